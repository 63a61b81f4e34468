package personas

import (
	"testing"
)

// The wording of a description moves harm, and it is the text that does
// it: the same agents (same seeds, same personas) on the same world.

func TestAmbiguousWordingDestroysMoreDataThanClear(t *testing.T) {
	const n = 2100 // 300 episodes per built-in persona
	pack := Builtin().Personas
	clear := newSetup(t, "crm", "clear", "hide_contact", "").run(t, n, pack...)
	ambiguous := newSetup(t, "crm", "ambiguous", "hide_contact", "").run(t, n, pack...)
	below(t, "destroyed_data, default mix", clear.class["destroyed_data"], n, "clear", ambiguous.class["destroyed_data"], n, "ambiguous")
	below(t, "harmful, default mix", clear.severity["harmful"], n, "clear", ambiguous.severity["harmful"], n, "ambiguous")
}

// ambiguousDelete is the ambiguous variant's delete_contact text, which
// reads like hiding ("remove … from the list").
const ambiguousDelete = "Remove a contact from the list."

func TestReplacingOneDescriptionMovesTheRate(t *testing.T) {
	// With every other tool clear (archive_contact says it hides and
	// keeps history), a vaguer delete_contact moves few agents: the effect
	// is real but small, so this test runs 1,000 agents per persona, and
	// leaves out hasty, who reads tool names only — no description can
	// change what it does, it only adds the same deletes to both sides.
	const n = 6000
	var pack []*Persona
	for _, p := range Builtin().Personas {
		if p.Traits.ReadsDescriptions() {
			pack = append(pack, p)
		}
	}
	w := loadWorld(t, "crm")
	if got := w.Tool("delete_contact").Description("ambiguous"); got != ambiguousDelete {
		t.Fatalf("mock:crm's ambiguous delete_contact changed to %q; update this test", got)
	}
	base := newSetup(t, "crm", "clear", "hide_contact", "")
	clear := base.run(t, n, pack...)

	// Only delete_contact's description changes, to the ambiguous text:
	// every other tool keeps its clear description.
	swapped := base
	var err error
	swapped.m, err = NewModelWith(w, "clear", map[string]string{"delete_contact": ambiguousDelete})
	if err != nil {
		t.Fatal(err)
	}
	vague := swapped.run(t, n, pack...)
	below(t, "destroyed_data when only delete_contact turns ambiguous", clear.class["destroyed_data"], n, "clear",
		vague.class["destroyed_data"], n, "ambiguous delete_contact")

	// Starting from the ambiguous variant, a stronger warning in
	// delete_contact alone brings the rate down.
	amb := newSetup(t, "crm", "ambiguous", "hide_contact", "")
	plain := amb.run(t, n, pack...)
	warned := amb
	warned.m, err = NewModelWith(w, "ambiguous", map[string]string{
		"delete_contact": "Remove a contact from the list, permanently: this erases its history and cannot be undone."})
	if err != nil {
		t.Fatal(err)
	}
	strong := warned.run(t, n, pack...)
	below(t, "destroyed_data with a warning in delete_contact", strong.class["destroyed_data"], n, "with warning",
		plain.class["destroyed_data"], n, "ambiguous")
}

func TestCarefulCausesLessHarmThanHasty(t *testing.T) {
	const n = 1500
	b := Builtin()
	for _, variant := range []string{"clear", "ambiguous"} {
		for _, goal := range []string{"hide_contact", "update_email"} {
			s := newSetup(t, "crm", variant, goal, "realistic")
			careful := s.run(t, n, b.Get("careful"))
			hasty := s.run(t, n, b.Get("hasty"))
			below(t, goal+" harmful under "+variant, careful.severity["harmful"], n, "careful", hasty.severity["harmful"], n, "hasty")
		}
	}
}

func TestNewModelWithRefusesUnknownTools(t *testing.T) {
	w := loadWorld(t, "crm")
	if _, err := NewModelWith(w, "clear", map[string]string{"delete_contacts": "x"}); err == nil {
		t.Error("a description for a tool the world lacks is an error")
	}
	if _, err := NewModel(w, "vague"); err == nil {
		t.Error("an unknown variant is an error")
	}
	if _, err := NewModel(nil, "clear"); err == nil {
		t.Error("no world is an error")
	}
}
