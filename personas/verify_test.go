package personas

import (
	"testing"

	"github.com/herd-sh/herd/engine"
)

// A verifying agent judges its write by what it sent: after an update, the
// fields it sent must read back as sent. A record that changed otherwise
// (its version, a colleague's edit) does not prove the write landed.
func TestReadBackJudgesAWriteByTheFieldsItSent(t *testing.T) {
	s := newSetup(t, "crm", "clear", "update_email", "")
	careful := Builtin().Get("careful")
	w := s.m.world
	contact, upd := w.Type("contact"), w.Tool("update_contact")
	sess := s.base.NewSession(1, nil)
	a := agent{m: s.m, gv: s.m.byGoal[s.goal], tr: careful.Traits, s: sess, dice: newDice(1)}
	a.c = a.gv.choiceFor(s.m, careful)

	var before *engine.Record
	for _, rec := range s.base.Records(contact) {
		if locked, _ := rec.Get("locked").(bool); !locked {
			before = rec
			break
		}
	}
	if before == nil {
		t.Fatal("mock:crm seeds no unlocked contact")
	}
	sent := map[string]any{"id": before.ID(), "email": "new.address@example.com"}
	if res := sess.Call(upd.Name, sent); !res.OK() {
		t.Fatalf("update %s: %v", before.ID(), res.Err)
	}
	if !a.readBack(upd, &resolved{rt: contact, id: before.ID(), rec: before}, sent) {
		t.Error("the email reads back as sent: the write landed")
	}
	other := map[string]any{"id": before.ID(), "email": "someone.else@example.com"}
	if a.readBack(upd, &resolved{rt: contact, id: before.ID(), rec: before}, other) {
		t.Error("the email reads back otherwise than sent: the write did not land, though the record's version changed")
	}
	if got := sess.Calls(); got != 3 {
		t.Errorf("an update and two read-backs made %d calls", got)
	}
}
