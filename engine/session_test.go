package engine

import (
	"bytes"
	"testing"
)

// shopBase loads the engine's test world and seeds it at its default seed.
func shopBase(t testing.TB) (*World, *Base) {
	t.Helper()
	w := mustLoad(t, "testdata/shop.yaml")
	return w, mustSeed(t, w, w.DefaultSeed)
}

// firstWhere returns the first seeded record of typ for which ok is true.
func firstWhere(t testing.TB, b *Base, typ string, ok func(*Record) bool) *Record {
	t.Helper()
	for _, r := range b.Records(b.World().Type(typ)) {
		if ok(r) {
			return r
		}
	}
	t.Fatalf("no seeded %s fits the test", typ)
	return nil
}

func mustOK(t testing.TB, res Result) Result {
	t.Helper()
	if !res.OK() {
		t.Fatalf("%s: %v", res.Tool, res.Err)
	}
	return res
}

func wantCode(t testing.TB, res Result, code string) {
	t.Helper()
	if res.Err == nil || res.Err.Code != code {
		t.Fatalf("%s: got %v, want error %s", res.Tool, res.Err, code)
	}
}

func TestSessionWritesAreIsolated(t *testing.T) {
	w, b := shopBase(t)
	baseState := b.NewSession(0, nil).StateJSON()
	cust := firstWhere(t, b, "customer", func(r *Record) bool { return !r.Get("locked").(bool) })

	a := b.NewSession(1, nil)
	res := mustOK(t, a.Call("update_customer", map[string]any{"id": cust.ID(), "email": "new@example.com", "expected_version": 1}))
	if res.Record.Get("version") != int64(2) || res.Record.Get("email") != "new@example.com" {
		t.Fatalf("update result: %v", res.Record.Map())
	}
	mustOK(t, a.Call("create_payment", map[string]any{"order": "o_0001", "amount": 100}))

	if got := a.Lookup("customer", cust.ID()).Get("email"); got != "new@example.com" {
		t.Fatalf("session does not see its own write: %v", got)
	}
	if len(a.List(w.Type("payment"))) != 1 {
		t.Fatal("session does not list the payment it created")
	}
	// The base record and the base state are untouched.
	if cust.Get("version") != int64(1) || cust.Get("email") == "new@example.com" {
		t.Fatalf("the base record changed: %v", cust.Map())
	}
	other := b.NewSession(2, nil)
	if got := other.StateJSON(); !bytes.Equal(got, baseState) {
		t.Fatalf("another session sees the write: %s", firstDiff(got, baseState))
	}
	if other.Lookup("customer", cust.ID()).Get("version") != int64(1) || len(other.List(w.Type("payment"))) != 0 {
		t.Fatal("another session sees the write")
	}
	if got := b.NewSession(0, nil).StateJSON(); !bytes.Equal(got, baseState) {
		t.Fatal("the base state changed")
	}
	// Two sessions creating records each get the same first id: ids are
	// per session, not global.
	p2 := mustOK(t, other.Call("create_payment", map[string]any{"order": "o_0002", "amount": 5}))
	if p2.Record.ID() != "pay_0001" {
		t.Fatalf("second session's first payment is %s, want pay_0001", p2.Record.ID())
	}
}

func TestFailedCallChangesNothing(t *testing.T) {
	_, b := shopBase(t)
	s := b.NewSession(1, nil)
	mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0003", "amount": 10}))
	before := s.StateJSON()

	locked := firstWhere(t, b, "customer", func(r *Record) bool { return r.Get("locked").(bool) })
	open := firstWhere(t, b, "order", func(r *Record) bool { return r.Get("status") == "open" })
	paid := firstWhere(t, b, "order", func(r *Record) bool { return r.Get("status") == "paid" })
	free := firstWhere(t, b, "customer", func(r *Record) bool { return !r.Get("locked").(bool) })
	cases := []struct {
		tool string
		args map[string]any
		code string
	}{
		{"update_customer", map[string]any{"id": locked.ID(), "email": "x@y.z"}, "locked"},
		{"update_customer", map[string]any{"id": free.ID(), "email": "x@y.z", "expected_version": 7}, "stale_write"},
		{"delete_customer", map[string]any{"id": locked.ID()}, "locked"},
		{"refund_order", map[string]any{"id": open.ID()}, "not_paid"},
		{"refund_order", map[string]any{"id": paid.ID(), "amount": paid.Get("total").(int64) + 1}, "over_refund"},
		// The set effect succeeds, then the update of a missing customer
		// fails: the set must not land either.
		{"reassign_order", map[string]any{"id": paid.ID(), "customer": "cu_9999"}, CodeNotFound},
		{"create_payment", map[string]any{"order": "o_9999", "amount": 10}, "unknown_order"},
		{"create_payment", map[string]any{"order": "o_0001", "amount": 0}, CodeInvalidArgument},
		{"create_payment", map[string]any{"order": "o_0001", "amount": 1.5}, CodeInvalidArgument},
		{"create_payment", map[string]any{"order": "o_0001"}, CodeInvalidArgument},
		{"create_payment", map[string]any{"order": "o_0001", "amount": 1, "idempotency_key": "short"}, CodeInvalidArgument},
		{"create_payment", map[string]any{"order": "o_0001", "amount": 1, "tip": 3}, CodeInvalidArgument},
		{"list_orders", map[string]any{"status": "lost"}, CodeInvalidArgument},
		{"get_order", map[string]any{"id": 7}, CodeInvalidArgument},
		{"get_order", map[string]any{"id": "o_9999"}, CodeNotFound},
		{"drop_tables", nil, CodeUnknownTool},
	}
	for _, c := range cases {
		res := s.Call(c.tool, c.args)
		wantCode(t, res, c.code)
		if res.Committed || res.Record != nil {
			t.Errorf("%s %v: failed call reports committed=%v record=%v", c.tool, c.args, res.Committed, res.Record)
		}
		if got := s.StateJSON(); !bytes.Equal(got, before) {
			t.Fatalf("%s %v failed with %s but changed the state: %s", c.tool, c.args, res.Err.Code, firstDiff(got, before))
		}
	}
	if got := s.Calls(); got != len(cases)+1 {
		t.Fatalf("Calls() = %d, want %d", got, len(cases)+1)
	}
	if got := s.ErrorCounts()[CodeInvalidArgument]; got != 7 {
		t.Fatalf("invalid_argument counted %d times, want 7", got)
	}
	if len(s.Changes()) != 2 { // the payment and the order it marked paid
		t.Fatalf("changes: %d, want 2", len(s.Changes()))
	}
}

func TestForkCopiesThenDiverges(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, nil)
	paid := firstWhere(t, b, "order", func(r *Record) bool { return r.Get("status") == "paid" })
	mustOK(t, s.Call("refund_order", map[string]any{"id": paid.ID(), "amount": 100}))
	mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0002", "amount": 10}))
	orig := s.StateJSON()

	f := s.Fork(2)
	if got := f.StateJSON(); !bytes.Equal(got, orig) {
		t.Fatalf("fork state differs: %s", firstDiff(got, orig))
	}
	if f.Calls() != s.Calls() || f.Elapsed() != s.Elapsed() || len(f.Journal()) != len(s.Journal()) {
		t.Fatal("fork did not copy calls, clock and journal")
	}

	mustOK(t, f.Call("refund_order", map[string]any{"id": paid.ID(), "amount": 100}))
	mustOK(t, f.Call("create_payment", map[string]any{"order": "o_0003", "amount": 20}))
	if got := s.StateJSON(); !bytes.Equal(got, orig) {
		t.Fatalf("a write in the fork changed the original: %s", firstDiff(got, orig))
	}
	forked := f.StateJSON()
	mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0004", "amount": 30}))
	if got := f.StateJSON(); !bytes.Equal(got, forked) {
		t.Fatal("a write in the original changed the fork")
	}
	// Both went on numbering payments from where the fork happened.
	if id := f.List(w.Type("payment"))[1].ID(); id != "pay_0002" {
		t.Fatalf("fork's second payment is %s", id)
	}
	if id := s.List(w.Type("payment"))[1].ID(); id != "pay_0002" {
		t.Fatalf("original's second payment is %s", id)
	}
	if got := f.Lookup("order", paid.ID()).Get("refunded"); got != int64(200) {
		t.Fatalf("fork refunded %v, want 200", got)
	}
	if got := s.Lookup("order", paid.ID()).Get("refunded"); got != int64(100) {
		t.Fatalf("original refunded %v, want 100", got)
	}
}

func TestResetReturnsToBase(t *testing.T) {
	w, b := shopBase(t)
	base := b.NewSession(0, nil).StateJSON()
	s := b.NewSession(1, w.Profile("dice"))
	for i := 0; i < 20; i++ {
		s.Call("create_payment", map[string]any{"order": "o_0001", "amount": 10 + i})
		s.Call("get_order", map[string]any{"id": "o_0002"})
	}
	if bytes.Equal(s.StateJSON(), base) {
		t.Fatal("the writes did not change the state")
	}
	s.Reset()
	if got := s.StateJSON(); !bytes.Equal(got, base) {
		t.Fatalf("after Reset: %s", firstDiff(got, base))
	}
	if s.Calls() != 0 || s.Elapsed() != 0 || len(s.Journal()) != 0 || len(s.ErrorCounts()) != 0 || s.Changes() != nil {
		t.Fatal("Reset kept calls, clock, journal, error counts or changes")
	}
	if s.Key() != 1 || s.Profile() != w.Profile("dice") {
		t.Fatal("Reset lost the key or the profile")
	}
	// After a reset, the session replays exactly as a new one would.
	fresh := b.NewSession(1, w.Profile("dice"))
	for _, x := range []*Session{s, fresh} {
		x.Call("create_payment", map[string]any{"order": "o_0001", "amount": 10})
		x.Call("get_order", map[string]any{"id": "o_0002"})
	}
	if a, c := sessionBytes(t, s), sessionBytes(t, fresh); !bytes.Equal(a, c) {
		t.Fatalf("reset session and new session differ: %s", firstDiff(a, c))
	}
}

// Deleting and creating show in List, Changes and StateJSON consistently.
func TestChangesAndListAgree(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, nil)
	free := firstWhere(t, b, "customer", func(r *Record) bool { return !r.Get("locked").(bool) })
	res := mustOK(t, s.Call("delete_customer", map[string]any{"id": free.ID()}))
	if res.Deleted != free.ID() || !res.Committed {
		t.Fatalf("delete result: %+v", res)
	}
	if s.Lookup("customer", free.ID()) != nil {
		t.Fatal("deleted customer still found")
	}
	if n := len(s.List(w.Type("customer"))); n != 19 {
		t.Fatalf("%d customers listed after a delete, want 19", n)
	}
	wantCode(t, s.Call("delete_customer", map[string]any{"id": free.ID()}), CodeNotFound)
	ch := s.Changes()
	if len(ch) != 1 || ch[0].After != nil || ch[0].Before == nil || ch[0].ID != free.ID() {
		t.Fatalf("changes: %+v", ch)
	}
	if bytes.Contains(s.StateJSON(), []byte(`"id":"`+free.ID()+`"`)) {
		t.Fatal("StateJSON still holds the deleted customer")
	}
}

// After a fork, the two sessions share nothing that either can change:
// idempotency keys, error counts, rate limits and id counters included,
// however many times the parent forks.
func TestForkSharesNothingMutable(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, nil)
	k1 := map[string]any{"order": "o_0001", "amount": 10, "idempotency_key": "key-one-1"}
	k2 := map[string]any{"order": "o_0001", "amount": 20, "idempotency_key": "key-two-2"}
	mustOK(t, s.Call("create_payment", k1))
	wantCode(t, s.Call("get_order", map[string]any{"id": "o_9999"}), CodeNotFound)

	f1, f2 := s.Fork(2), s.Fork(3)
	if r := f1.Call("create_payment", k1); !r.Replayed {
		t.Fatal("the fork lost the parent's idempotency key")
	}
	mustOK(t, f1.Call("create_payment", k2))
	if r := s.Call("create_payment", k2); r.Replayed {
		t.Fatal("the parent sees an idempotency key used only in its fork")
	}
	if r := f2.Call("create_payment", k2); r.Replayed {
		t.Fatal("a sibling fork sees an idempotency key used only in the other")
	}
	wantCode(t, f1.Call("get_order", map[string]any{"id": "o_9998"}), CodeNotFound)
	if s.ErrorCounts()[CodeNotFound] != 1 || f2.ErrorCounts()[CodeNotFound] != 1 || f1.ErrorCounts()[CodeNotFound] != 2 {
		t.Fatalf("error counts leak between forks: %v %v %v", s.ErrorCounts(), f1.ErrorCounts(), f2.ErrorCounts())
	}
	for _, c := range []struct {
		x     *Session
		calls int
	}{{s, 3}, {f1, 5}, {f2, 3}} {
		pays := c.x.List(w.Type("payment"))
		if len(pays) != 2 || pays[1].ID() != "pay_0002" {
			t.Fatalf("session %d: payments %v", c.x.Key(), pays)
		}
		if len(c.x.Journal()) != c.calls || c.x.Calls() != c.calls {
			t.Fatalf("session %d: %d journal entries, %d calls; want %d", c.x.Key(), len(c.x.Journal()), c.x.Calls(), c.calls)
		}
	}
	if s.Journal()[2].Args["amount"] != 20 || f1.Journal()[4].Tool != "get_order" || f2.Journal()[2].Tool != "create_payment" {
		t.Fatal("journals are mixed up between forks")
	}
}
