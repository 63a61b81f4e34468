package engine

import (
	"encoding/json"
	"testing"
)

// ChangesJSON lists exactly what a session changed, canonically: nothing
// for a fresh session or one whose writes were undone, each changed record
// once, before and after, in type then id order.
func TestChangesJSON(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 42)
	s := b.NewSession(1, nil)
	const none = `{"world":"crm","seed":42,"changes":[]}`
	if got := string(s.ChangesJSON()); got != none {
		t.Fatalf("fresh session: %s", got)
	}
	id := ""
	for _, r := range s.List(w.Type("contact")) {
		if m := r.Map(); m["archived"] == false && m["locked"] == false {
			id = r.ID()
			break
		}
	}
	if r := s.Call("archive_contact", map[string]any{"id": id}); !r.OK() {
		t.Fatalf("archive: %v", r.Err)
	}
	var doc struct {
		Changes []struct {
			Type, ID      string
			Before, After map[string]any
		}
	}
	if err := json.Unmarshal(s.ChangesJSON(), &doc); err != nil {
		t.Fatal(err)
	}
	// The archive, and the audit record its effect created.
	if len(doc.Changes) != 2 || doc.Changes[0].Type != "contact" || doc.Changes[0].ID != id ||
		doc.Changes[0].Before["archived"] != false || doc.Changes[0].After["archived"] != true ||
		doc.Changes[1].Type != "audit" || doc.Changes[1].Before != nil || doc.Changes[1].After == nil {
		t.Fatalf("after archiving %s: %s", id, s.ChangesJSON())
	}
	// Another session (another key) that made the same change holds the
	// same state: the same bytes.
	other := b.NewSession(2, nil)
	other.Call("archive_contact", map[string]any{"id": id})
	if string(other.ChangesJSON()) != string(s.ChangesJSON()) {
		t.Errorf("equal states, different changes:\n%s\n%s", other.ChangesJSON(), s.ChangesJSON())
	}
}
