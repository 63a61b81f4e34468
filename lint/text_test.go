package lint

import (
	"slices"
	"testing"
)

func TestFirstSentence(t *testing.T) {
	cases := map[string]string{
		"Fetch one contact by id, e.g. c_0042. Read-only.": "Fetch one contact by id, e.g. c_0042.",
		"Read config.json and return it. Then stop.":       "Read config.json and return it.",
		"Delete it permanently! It cannot be undone.":      "Delete it permanently!",
		"No period at all": "No period at all",
		// A line that goes on in lower case is a wrapped sentence (YAML
		// block scalars keep line breaks); a docstring's summary line
		// ends at its break when the next line starts anew.
		"List notes\nwith their titles.":                     "List notes with their titles.",
		"List notes\n\nArgs:\n    owner: whose notes.":       "List notes",
		"## Notes\n\nList notes. Read-only.":                 "List notes.",
		"Archive a note, i.e. hide it. Reversible any time.": "Archive a note, i.e. hide it.",
	}
	for in, want := range cases {
		if got := firstSentence(in); got != want {
			t.Errorf("firstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestStemsMeet(t *testing.T) {
	groups := [][]string{
		{"delete", "deletes", "deleted", "deleting"},
		{"contact", "contacts"},
		{"query", "queries", "queried"},
		{"fetch", "fetches", "fetched"},
		{"archive", "archived", "archives"},
	}
	for _, g := range groups {
		for _, w := range g[1:] {
			if stem(w) != stem(g[0]) {
				t.Errorf("stem(%q) = %q, stem(%q) = %q", w, stem(w), g[0], stem(g[0]))
			}
		}
	}
	if stem("address") == stem("add") {
		t.Error("address and add share a stem")
	}
}

func TestNameParts(t *testing.T) {
	for in, want := range map[string][]string{
		"delete_contact":   {"delete", "contact"},
		"deleteContact":    {"delete", "contact"},
		"get-order-by-id":  {"get", "order", "by", "id"},
		"reply_to_message": {"reply", "to", "message"},
	} {
		if got := nameParts(in); !slices.Equal(got, want) {
			t.Errorf("nameParts(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestJaccard(t *testing.T) {
	if j := jaccard([]string{"a", "b", "c", "d"}, []string{"a", "b", "c", "e"}); j != 0.6 {
		t.Errorf("jaccard = %v, want 0.6", j)
	}
	if j := jaccard([]string{"a", "a", "b"}, []string{"b", "a"}); j != 1 {
		t.Errorf("jaccard of equal sets = %v, want 1", j)
	}
}

func TestToolGuesses(t *testing.T) {
	cases := []struct {
		name, kind, record, family string
	}{
		{"delete_contact", "delete", "contact", familyRemove},
		{"listOrders", "list", "order", familyRead},
		{"search_contacts", "list", "contact", familyRead},
		{"send_invoice", "custom", "invoice", "verb:send"},
		{"archive_note", "custom", "note", familyRemove},
		{"create_ticket", "create", "ticket", familyCreate},
	}
	for _, c := range cases {
		tool := Tool{Name: c.name}
		if tool.kind() != c.kind || tool.record() != c.record || tool.family() != c.family {
			t.Errorf("%s: kind %q record %q family %q, want %q %q %q", c.name, tool.kind(), tool.record(), tool.family(), c.kind, c.record, c.family)
		}
	}
}
