package engine

import (
	"testing"
)

// Placeholders are filled from what each kind of message may name: a
// precondition's from r and args, an invariant's from r, a goal's intent
// from target and knows (rnd included).
func TestMessagesFillPlaceholders(t *testing.T) {
	w, err := Parse("msg.yaml", world(`      title: {type: str, default: "Old"}
      n:     {type: int, default: 0}`, `
  bump_item:
    kind: update
    record: item
    descriptions: {clear: Add to n., ambiguous: Bump.}
    params:
      id: {type: str, required: true}
      by: {type: int, required: true}
    when:
      - {expr: "args.by < 10", error: too_big, message: "{{r.id}} ({{r.title}}) cannot grow by {{ args.by }}"}
      - {expr: "args.by > 0", error: not_positive}
    effects:
      - set: {n: "r.n + args.by"}
invariants:
  - {name: small, each: item, expr: "r.n < 5", message: "item {{r.id}} grew to {{r.n}}"}
goals:
  rename:
    intent: "Rename {{target.title}} ({{target.id}}) to {{knows.title}}, pick {{knows.pick}}"
    target: {record: item}
    knows: {title: "'New ' + target.id", pick: "rnd % 7"}
    outcomes:
      - {class: done, severity: ok, when: "true"}`))
	if err != nil {
		t.Fatal(err)
	}
	b := mustSeed(t, w, 1)
	s := b.NewSession(1, nil)
	res := s.Call("bump_item", map[string]any{"id": "i_0001", "by": 12})
	wantCode(t, res, "too_big")
	if want := "i_0001 (Old) cannot grow by 12"; res.Err.Message != want {
		t.Errorf("precondition message %q, want %q", res.Err.Message, want)
	}
	res = s.Call("bump_item", map[string]any{"id": "i_0001", "by": 0})
	wantCode(t, res, "not_positive")
	if want := "not positive"; res.Err.Message != want {
		t.Errorf("message of a precondition without one: %q, want %q", res.Err.Message, want)
	}
	mustOK(t, s.Call("bump_item", map[string]any{"id": "i_0001", "by": 7}))
	viol, err := s.CheckInvariants()
	if err != nil {
		t.Fatal(err)
	}
	if len(viol) != 1 || viol[0] != (Violation{Invariant: "small", RecordID: "i_0001", Message: "item i_0001 grew to 7"}) {
		t.Errorf("violations %+v", viol)
	}
	// rnd 39 picks candidate 39 % 50 (i_0040); knows sees rnd >> 2 = 9.
	a, err := w.Goal("rename").Begin(b.NewSession(2, nil), 39)
	if err != nil {
		t.Fatal(err)
	}
	if want := "Rename Old (i_0040) to New i_0040, pick 2"; a.Intent != want {
		t.Errorf("intent %q, want %q", a.Intent, want)
	}
	if a.Knows["title"] != "New i_0040" || a.Knows["pick"] != int64(2) {
		t.Errorf("knows %v", a.Knows)
	}
}
