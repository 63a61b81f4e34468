package personas

import (
	"testing"
)

func TestFillsMatchKnowsToParams(t *testing.T) {
	crm := loadWorld(t, "crm")
	g := crm.Goal("update_email") // knows id, email
	upd := crm.Tool("update_contact")
	fills := fillsFor(upd, g, true)
	for i, p := range upd.Params {
		f := fills[i]
		switch p.Name {
		case "email":
			if f.known != "email" {
				t.Errorf("email is filled from knows.email, got %+v", f)
			}
		case "expected_version":
			if f.version == nil || f.version.Name != "version" {
				t.Errorf("expected_version echoes the version field, got %+v", f)
			}
		default:
			if f.known != "" {
				t.Errorf("%s: nothing known fills it, got %+v", p.Name, f)
			}
		}
	}

	pay := loadWorld(t, "payments")
	refund := pay.Tool("create_refund")
	fills = fillsFor(refund, pay.Goal("refund_charge"), false) // knows charge, amount, dollars
	for i, p := range refund.Params {
		want := map[string]string{"amount": "amount"}[p.Name] // charge is the key, filled with the resolved id
		if fills[i].known != want {
			t.Errorf("create_refund %s: filled from %q, want %q", p.Name, fills[i].known, want)
		}
	}
	m := newModel(t, pay, "clear")
	if got := m.byGoal[pay.Goal("refund_charge")].idKeyFor["charge"]; got != "charge" {
		t.Errorf("knows.charge is the id for tools keyed by charge, got %q", got)
	}
}

func TestHostileArgumentsCoverEveryKind(t *testing.T) {
	crm := loadWorld(t, "crm")
	upd := crm.Tool("update_contact")
	a := agent{dice: newDice(1)}
	seen := map[string]int{}
	for i := 0; i < 2000; i++ {
		args := map[string]any{"id": "c_0001", "email": "a@example.com", "expected_version": int64(3)}
		kind := a.mutate(upd, args)
		seen[kind]++
		switch kind {
		case hostileExtra:
			if _, ok := args[hostileExtraName]; !ok {
				t.Fatal("unknown argument not added")
			}
		case hostileMissing:
			if _, ok := args["id"]; ok {
				t.Fatal("the only required argument is still there")
			}
		}
	}
	for _, k := range hostileKinds {
		if seen[k] == 0 {
			t.Errorf("never sent %s: %v", k, seen)
		}
	}
}
