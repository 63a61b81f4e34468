package engine

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// busySession makes creates, updates, deletes and refunds under the dice
// profile, so a snapshot has every kind of change in it.
func busySession(t testing.TB, b *Base, key uint64) *Session {
	t.Helper()
	w := b.World()
	s := b.NewSession(key, w.Profile("dice"))
	paid := firstWhere(t, b, "order", func(r *Record) bool { return r.Get("status") == "paid" })
	free := firstWhere(t, b, "customer", func(r *Record) bool { return !r.Get("locked").(bool) })
	mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0001", "amount": 100, "idempotency_key": "k-000001"}))
	mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0002", "amount": 200}))
	mustOK(t, s.Call("refund_order", map[string]any{"id": paid.ID(), "amount": 50}))
	mustOK(t, s.Call("update_customer", map[string]any{"id": free.ID(), "email": "sn@example.com"}))
	mustOK(t, s.Call("delete_customer", map[string]any{"id": free.ID()}))
	s.Call("get_order", map[string]any{"id": "o_0003"})
	return s
}

func TestSnapshotRestoreRoundTrip(t *testing.T) {
	_, b := shopBase(t)
	s := busySession(t, b, 7)
	snap, err := s.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	fresh := b.NewSession(99, s.Profile())
	if err := fresh.Restore(snap); err != nil {
		t.Fatal(err)
	}
	again, err := fresh.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, snap) {
		t.Fatalf("snapshot after restore differs: %s", firstDiff(again, snap))
	}
	if a, c := fresh.StateJSON(), s.StateJSON(); !bytes.Equal(a, c) {
		t.Fatalf("StateJSON after restore differs: %s", firstDiff(a, c))
	}
	if fresh.Calls() != s.Calls() || fresh.Elapsed() != s.Elapsed() || fresh.Key() != s.Key() {
		t.Fatalf("restored calls/clock/key %d/%s/%d, want %d/%s/%d", fresh.Calls(), fresh.Elapsed(), fresh.Key(), s.Calls(), s.Elapsed(), s.Key())
	}
	if len(fresh.Journal()) != 0 {
		t.Fatal("restore kept a journal")
	}
	// The restored session goes on exactly as the original: same ids, same
	// dice.
	for _, x := range []*Session{s, fresh} {
		x.Call("create_payment", map[string]any{"order": "o_0004", "amount": 9})
		for i := 0; i < 20; i++ {
			x.Call("get_order", map[string]any{"id": "o_0004"})
		}
	}
	tail := func(x *Session) []byte {
		var buf bytes.Buffer
		x.WriteJournal(&buf)
		lines := bytes.SplitAfter(buf.Bytes(), []byte("\n"))
		return bytes.Join(lines[len(lines)-22:], nil) // the 21 new calls
	}
	if a, c := tail(fresh), tail(s); !bytes.Equal(a, c) {
		t.Fatalf("restored session diverged from the original: %s", firstDiff(a, c))
	}
	if a, c := fresh.StateJSON(), s.StateJSON(); !bytes.Equal(a, c) {
		t.Fatal("states diverged after the same calls")
	}
}

func TestBaseSnapshotRestores(t *testing.T) {
	_, b := shopBase(t)
	snap, err := b.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s := busySession(t, b, 3)
	if err := s.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if a, c := s.StateJSON(), b.NewSession(0, nil).StateJSON(); !bytes.Equal(a, c) {
		t.Fatalf("restoring the base snapshot: %s", firstDiff(a, c))
	}
	if s.Changes() != nil {
		t.Fatalf("changes after restoring the base: %v", s.Changes())
	}
}

func TestRestoreRefusesForeignSnapshots(t *testing.T) {
	w, b := shopBase(t)
	s := busySession(t, b, 1)
	snap, _ := s.Snapshot()

	other := mustSeed(t, w, 12)
	x := other.NewSession(1, nil)
	xState := x.StateJSON()
	err := x.Restore(snap)
	if err == nil || !strings.Contains(err.Error(), "seed 11") || !strings.Contains(err.Error(), "seed 12") {
		t.Fatalf("restoring a seed-11 snapshot at seed 12: %v", err)
	}
	if !bytes.Equal(x.StateJSON(), xState) {
		t.Fatal("a refused restore changed the session")
	}

	crm := mustLoad(t, "../worlds/crm.yaml")
	c := mustSeed(t, crm, 11).NewSession(1, nil)
	if err := c.Restore(snap); err == nil || !strings.Contains(err.Error(), "world shop") || !strings.Contains(err.Error(), "not crm") {
		t.Fatalf("restoring a shop snapshot into crm: %v", err)
	}

	// A snapshot of the same world name but another file (hash) is refused.
	changed := bytes.Replace(w.Source, []byte("version: 3"), []byte("version: 4"), 1)
	w2, err := Parse("shop-v4.yaml", changed)
	if err != nil {
		t.Fatal(err)
	}
	if err := mustSeed(t, w2, 11).NewSession(1, nil).Restore(snap); err == nil || !strings.Contains(err.Error(), "not shop") {
		t.Fatalf("restoring into another version of the world: %v", err)
	}

	bad := []struct{ name, data, want string }{
		{"not json", "{", "snapshot:"},
		{"future version", strings.Replace(string(snap), `"version":1`, `"version":9`, 1), "version 9"},
		{"unknown type", strings.Replace(string(snap), `"refund":`, `"refnud":`, 1), `unknown record type "refnud"`},
		{"bad enum", strings.Replace(string(snap), `"status":"paid"`, `"status":"lost"`, 1), `"lost", not one of open, paid, shipped`},
		{"wrong field type", strings.Replace(string(snap), `"refunded":0`, `"refunded":"none"`, 1), "field refunded: want an integer, got a string"},
		{"unknown field", strings.Replace(string(snap), `"refunded":0`, `"refundd":0`, 1), `unknown field "refundd"`},
		{"duplicate id", strings.Replace(string(snap), `"payment":[`, `"payment":[{"id":"pay_0001","order":"o_0001","amount":1},`, 1), "pay_0001 appears twice"},
	}
	for _, c := range bad {
		y := b.NewSession(5, nil)
		err := y.Restore([]byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", c.name, err, c.want)
		}
		if !bytes.Equal(y.StateJSON(), b.NewSession(0, nil).StateJSON()) {
			t.Errorf("%s: a refused restore changed the session", c.name)
		}
	}
}

// A restored session never numbers a new record with an id the snapshot
// already holds (a create would silently overwrite it): a next_id that
// would is refused, and a missing one is derived from the records.
func TestRestoreKeepsNewIDsFree(t *testing.T) {
	w, b := shopBase(t)
	snap, err := busySession(t, b, 1).Snapshot() // created pay_0001 and pay_0002
	if err != nil {
		t.Fatal(err)
	}
	edit := func(change func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(snap, &m); err != nil {
			t.Fatal(err)
		}
		change(m)
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	pay := w.Type("payment")
	low := edit(func(m map[string]any) { m["next_id"].([]any)[pay.index] = 2 })
	if err := b.NewSession(5, nil).Restore(low); err == nil || !strings.Contains(err.Error(), "next_id[2] is 2, but payment ids up to pay_0002 are taken") {
		t.Errorf("next_id below a restored id: %v", err)
	}
	back := edit(func(m map[string]any) { m["elapsed_ns"] = -1 })
	if err := b.NewSession(5, nil).Restore(back); err == nil || !strings.Contains(err.Error(), "elapsed_ns is -1") {
		t.Errorf("negative clock: %v", err)
	}

	s := b.NewSession(5, nil)
	if err := s.Restore(edit(func(m map[string]any) { delete(m, "next_id") })); err != nil {
		t.Fatal(err)
	}
	res := mustOK(t, s.Call("create_payment", map[string]any{"order": "o_0003", "amount": 5}))
	if res.Record.ID() != "pay_0003" {
		t.Errorf("first payment after restoring without next_id is %s, want pay_0003", res.Record.ID())
	}
	if n := len(s.List(pay)); n != 3 {
		t.Errorf("%d payments, want the 2 restored and the new one", n)
	}
}
