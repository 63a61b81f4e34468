package engine

import (
	"strings"
	"testing"
)

// The precomputed search must agree with a plain case-insensitive scan,
// including for records the session changed or created.
func TestSearchAgreesWithPlainScan(t *testing.T) {
	w, err := LoadFile("../worlds/crm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(42)
	if err != nil {
		t.Fatal(err)
	}
	s := b.NewSession(1, nil)
	contacts := s.List(w.Type("contact"))
	// Change one record's name so it matches, and create one that matches.
	victim := contacts[10]
	if r := s.Call("update_contact", map[string]any{"id": victim.ID(), "company": "Zyxwv Holdings"}); !r.OK() {
		t.Fatalf("update: %v", r.Err)
	}
	if r := s.Call("create_contact", map[string]any{"name": "Zyxwv Person", "email": "zyxwv@example.com"}); !r.OK() {
		t.Fatalf("create: %v", r.Err)
	}
	for _, q := range []string{"smith", "SMITH", "zyxwv", "a", "example.org", "nobody-at-all", contacts[3].String("name")} {
		res := s.Call("search_contacts", map[string]any{"query": q, "include_archived": true})
		if !res.OK() {
			t.Fatalf("search %q: %v", q, res.Err)
		}
		var want []string
		for _, r := range s.List(w.Type("contact")) {
			lq := strings.ToLower(q)
			if strings.Contains(strings.ToLower(r.String("name")), lq) || strings.Contains(strings.ToLower(r.String("email")), lq) {
				want = append(want, r.ID())
			}
		}
		if len(want) > 20 {
			want = want[:20] // the tool's default limit
		}
		var got []string
		for _, r := range res.Records {
			got = append(got, r.ID())
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("search %q:\n got %v\nwant %v", q, got, want)
		}
	}
}
