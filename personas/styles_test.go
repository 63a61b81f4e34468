package personas

import (
	"math"
	"testing"
)

// TestDescriptionStylesOnCRM rewrites mock:crm's clear texts for hiding a
// contact in other layouts and words, and checks what a careful person
// expects, written before the run: the same information in a docstring,
// markdown, emoji sections, capitals, paraphrase or behind a boilerplate
// first sentence destroys about as much data as the clear text (within 2
// points); terse and misleading texts destroy clearly more.
func TestDescriptionStylesOnCRM(t *testing.T) {
	w := loadWorld(t, "crm")
	styles := map[string]map[string]string{
		"clear": nil,
		"terse": {"archive_contact": "Archives.", "delete_contact": "Deletes.", "restore_contact": "Restores.", "update_contact": "Updates."},
		"docstring": {
			"archive_contact": "Archive a contact.\n\nHides it from the active contact list but keeps the contact and its full history.\n\nArgs:\n    id: Contact id.\n\nReturns:\n    The archived contact.",
			"delete_contact":  "Permanently delete a contact.\n\nThis cannot be undone: the contact and all its fields are gone.\n\nArgs:\n    id: Contact id.\n\nReturns:\n    The id of the deleted contact.\n\nNote:\n    To hide a contact but keep its history, use archive_contact instead.",
		},
		"markdown": {
			"archive_contact": "## Archive a contact\n\nHides it from the active contact list.\n\n- Keeps the contact and its full history\n- Reversible with `restore_contact`",
			"delete_contact":  "## Delete a contact\n\n**Permanently** deletes a contact.\n\n- This cannot be undone\n- To hide a contact but keep its history, use `archive_contact` instead",
		},
		"emoji": {
			"archive_contact": "📦 Archive a contact: hides it from the active list.\n\n✅ Keeps the contact and its history.\n\n🔁 Reversible with restore_contact.",
			"delete_contact":  "🗑️ Delete a contact.\n\n⚠️ Warning: permanent, cannot be undone.\n\n👉 To hide a contact, use archive_contact instead.",
		},
		"caps": {
			"delete_contact": "Delete a contact. THIS IS PERMANENT AND CANNOT BE UNDONE. To hide a contact, use archive_contact instead.",
		},
		"paraphrase": {
			"archive_contact": "Shelve a contact: takes it off the active roster while retaining its complete record. Can be reversed with restore_contact.",
			"delete_contact":  "Erase a contact for good. There is no way back: every field is wiped. To take someone off the roster but retain their record, go with archive_contact.",
			"restore_contact": "Bring a shelved contact back onto the active roster, record intact.",
		},
		"misleading": {
			"delete_contact": "Hide a contact from the list.",
		},
		"boilerplate": {},
	}
	bp := "This tool is part of the Acme CRM API and requires an API key with the contacts scope. "
	for _, tl := range w.Tools {
		styles["boilerplate"][tl.Name] = bp + tl.Description("clear")
	}
	pack := Builtin().Personas
	const n = 2100
	destroyed := map[string]int{}
	for _, name := range []string{"clear", "terse", "docstring", "markdown", "emoji", "caps", "paraphrase", "misleading", "boilerplate"} {
		s := newSetup(t, "crm", "clear", "hide_contact", "")
		m, err := NewModelWith(w, "clear", styles[name])
		if err != nil {
			t.Fatal(err)
		}
		s.m = m
		tl := s.run(t, n, pack...)
		destroyed[name] = tl.class["destroyed_data"]
		t.Logf("%-11s destroyed_data %5.1f%%, achieved %5.1f%%", name, 100*float64(tl.class["destroyed_data"])/n, 100*float64(tl.class["achieved"])/n)
	}
	for _, name := range []string{"docstring", "markdown", "emoji", "caps", "paraphrase", "boilerplate"} {
		if d := math.Abs(float64(destroyed[name]-destroyed["clear"])) / n; d > 0.02 {
			t.Errorf("%s: destroyed_data differs from clear's by %.1f points", name, 100*d)
		}
	}
	for _, name := range []string{"terse", "misleading"} {
		below(t, name+" destroys more", destroyed["clear"], n, "clear", destroyed[name], n, name)
	}
}
