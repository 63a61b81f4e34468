package engine

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/report/stats"
)

// unlockedCustomer and paidOrder are records of the shop test world the
// quiet-fault scripts act on.
func unlockedCustomer(t *testing.T, b *Base) *Record {
	t.Helper()
	for _, r := range b.Records(b.World().Type("customer")) {
		if locked, _ := r.Get("locked").(bool); !locked {
			return r
		}
	}
	t.Fatal("the shop test world seeds no unlocked customer")
	return nil
}

func paidOrder(t *testing.T, b *Base) *Record {
	t.Helper()
	for _, r := range b.Records(b.World().Type("order")) {
		if r.Get("status") != "open" && r.Get("refunded") == int64(0) {
			return r
		}
	}
	t.Fatal("the shop test world seeds no paid, unrefunded order")
	return nil
}

// journalLines is the session's journal as NDJSON objects.
func journalLines(t *testing.T, s *Session) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	if err := s.WriteJournal(&buf); err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("journal line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// Over 10,000 calls of the tool each quiet fault is set on, its count lies
// within the 99.9% Wilson interval of the count expected: the quiet kinds
// roll the same die as every other fault.
func TestQuietFaultRatesBinomial(t *testing.T) {
	w, b := shopBase(t)
	p := w.Profile("quiet")
	cust, order := unlockedCustomer(t, b), paidOrder(t, b)
	cases := []struct {
		kind, tool string
		args       map[string]any
	}{
		{FaultSilentNoop, "update_customer", map[string]any{"id": cust.ID(), "email": "x@example.com"}},
		{FaultPartialWrite, "refund_order", map[string]any{"id": order.ID(), "amount": 1}},
		{FaultStaleRead, "get_order", map[string]any{"id": order.ID()}},
		{FaultSchemaDrift, "list_orders", map[string]any{"limit": 3}},
	}
	const sessions, calls = 100, 100
	for _, c := range cases {
		want := p.For(w.Tool(c.tool)).Errors[0]
		if want.Kind != c.kind {
			t.Fatalf("profile quiet: %s has %s, want %s", c.tool, want.Kind, c.kind)
		}
		hits := 0
		for k := range sessions {
			s := b.NewSession(uint64(5000+k), p)
			for range calls {
				res := s.Call(c.tool, c.args)
				if res.Fault == c.kind {
					hits++
					checkQuietResult(t, c.kind, &res)
				} else if res.Fault != "" {
					t.Fatalf("%s: fault %q, want %q or none", c.tool, res.Fault, c.kind)
				}
			}
		}
		n := sessions * calls
		iv := stats.Wilson(hits, n, 0.999)
		t.Logf("%-14s p=%.2f observed %d/%d = %.4f  99.9%% interval [%.4f, %.4f]", c.kind, want.P, hits, n, float64(hits)/float64(n), iv.Lo, iv.Hi)
		if want.P < iv.Lo || want.P > iv.Hi {
			t.Errorf("%s: %d of %d calls; p=%.2f lies outside the 99.9%% interval [%.4f, %.4f]", c.kind, hits, n, want.P, iv.Lo, iv.Hi)
		}
	}
}

// checkQuietResult checks what a caller sees of one quiet fault.
func checkQuietResult(t *testing.T, kind string, res *Result) {
	t.Helper()
	switch kind {
	case FaultSilentNoop:
		if res.Err != nil && res.Err.Code != "locked" {
			t.Fatalf("silent no-op answered %v", res.Err)
		}
		if res.Committed {
			t.Fatal("a silent no-op committed")
		}
	case FaultPartialWrite:
		// A refund the order still has room for lands in part; one it
		// has not is refused as usual.
		if res.Err == nil || (res.Err.Code != CodeInternal && res.Err.Code != "over_refund") {
			t.Fatalf("partial write answered %v", res.Err)
		}
	case FaultStaleRead:
		if !res.OK() {
			t.Fatalf("stale read answered %v", res.Err)
		}
	case FaultSchemaDrift:
		v := res.Value().(map[string]any)
		for _, it := range v["items"].([]any) {
			m := it.(map[string]any)
			if _, ok := m["total"]; ok {
				t.Fatalf("drifted item still has total: %v", m)
			}
			if _, ok := m["amount_cents"]; !ok {
				t.Fatalf("drifted item lacks amount_cents: %v", m)
			}
		}
	}
}

// silent_noop: the write answers ok with the record it would have written;
// the state does not change, nothing is committed, and the journal says so.
func TestScriptSilentNoop(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, w.Profile("always_noop"))
	cust := unlockedCustomer(t, b)
	res := s.Call("update_customer", map[string]any{"id": cust.ID(), "email": "moved@example.com"})
	if !res.OK() || res.Fault != FaultSilentNoop || res.Committed {
		t.Fatalf("err=%v fault=%q committed=%v, want ok, silent_noop, not committed", res.Err, res.Fault, res.Committed)
	}
	if got := res.Record.String("email"); got != "moved@example.com" {
		t.Fatalf("the answer shows email %q, want the one sent", got)
	}
	if got := s.Get(cust.RecordType(), cust.ID()).String("email"); got != cust.String("email") {
		t.Fatalf("the state holds email %q, want the unchanged %q", got, cust.String("email"))
	}
	if n := len(s.Changes()); n != 0 {
		t.Fatalf("%d changes after a silent no-op", n)
	}
	j := journalLines(t, s)
	if j[0]["fault"] != FaultSilentNoop || j[0]["ok"] != true || j[0]["committed"] != false {
		t.Fatalf("journal: %v", j[0])
	}
	if tot := s.JournalTotals(); tot.Faults != 1 || tot.Committed != 0 || tot.Errors != 0 {
		t.Fatalf("totals %+v", tot)
	}
	// A delete answers deleted, and the record is still there.
	del := s.Call("delete_customer", map[string]any{"id": cust.ID()})
	if !del.OK() || del.Deleted != cust.ID() || s.Get(cust.RecordType(), cust.ID()) == nil {
		t.Fatalf("delete under silent_noop: err=%v deleted=%q", del.Err, del.Deleted)
	}
	// Reads are never silent no-ops: the fault fits writes only.
	if r := s.Call("get_order", map[string]any{"id": "o_0001"}); r.Fault != "" {
		t.Fatalf("a read got fault %q", r.Fault)
	}
}

// stale_read: a read younger than the lag after a write answers from the
// state before it; once the lag has passed it answers the truth. A write
// that puts back what the stale read showed, over the newer value, is a
// stale overwrite.
func TestScriptStaleRead(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, w.Profile("always_stale"))
	order := paidOrder(t, b)
	custs := b.Records(w.Type("customer"))
	from := order.String("customer")
	to := custs[0].ID()
	if to == from {
		to = custs[1].ID()
	}
	if res := s.Call("reassign_order", map[string]any{"id": order.ID(), "customer": to}); !res.OK() || res.Fault != "" {
		t.Fatalf("reassign: %v (fault %q)", res.Err, res.Fault)
	}
	stale := s.Call("get_order", map[string]any{"id": order.ID()})
	if stale.Fault != FaultStaleRead || stale.Record.String("customer") != from {
		t.Fatalf("a read 100ms after the write shows customer %q (fault %q), want the older %q", stale.Record.String("customer"), stale.Fault, from)
	}
	if cur := s.Get(order.RecordType(), order.ID()).String("customer"); cur != to {
		t.Fatalf("the state holds customer %q, want %q", cur, to)
	}
	// Writing back what the stale read showed loses the newer value.
	if res := s.Call("reassign_order", map[string]any{"id": order.ID(), "customer": from}); !res.OK() {
		t.Fatalf("reassign back: %v", res.Err)
	}
	if n := s.StaleOverwrites(); n != 1 {
		t.Fatalf("%d stale overwrites, want 1", n)
	}
	// After the lag the read is fresh again.
	s.Sleep(2 * time.Second)
	fresh := s.Call("get_order", map[string]any{"id": order.ID()})
	if fresh.Record.String("customer") != from {
		t.Fatalf("after the lag the read shows %q, want %q", fresh.Record.String("customer"), from)
	}
	j := journalLines(t, s)
	if j[1]["fault"] != FaultStaleRead || j[1]["result"].(map[string]any)["customer"] != from {
		t.Fatalf("journal line 2: %v", j[1])
	}
	// A record created within the lag is not found by a stale read.
	s2 := b.NewSession(2, w.Profile("always_stale"))
	pay := s2.Call("create_payment_unkeyed", map[string]any{"order": order.ID(), "amount": 100})
	if !pay.OK() {
		t.Fatal(pay.Err)
	}
	if l := s2.Call("list_orders", map[string]any{"status": "paid", "limit": 50}); l.Fault != FaultStaleRead {
		t.Fatalf("list: fault %q", l.Fault)
	}
}

// partial_write: a refund writes the order and creates a refund record;
// the fault keeps the first and drops the second, and answers an error.
func TestScriptPartialWrite(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, w.Profile("always_partial"))
	order := paidOrder(t, b)
	res := s.Call("refund_order", map[string]any{"id": order.ID(), "amount": 100})
	if res.Fault != FaultPartialWrite || res.Err == nil || res.Err.Code != CodeInternal || !res.Committed {
		t.Fatalf("fault=%q err=%v committed=%v, want partial_write, internal_error, committed", res.Fault, res.Err, res.Committed)
	}
	if got := s.Get(order.RecordType(), order.ID()).Get("refunded"); got != int64(100) {
		t.Fatalf("order refunded %v, want 100 (the first part landed)", got)
	}
	if n := len(s.List(w.Type("refund"))); n != 0 {
		t.Fatalf("%d refund records, want 0 (the second part did not land)", n)
	}
	j := journalLines(t, s)
	if j[0]["fault"] != FaultPartialWrite || j[0]["ok"] != false || j[0]["committed"] != true {
		t.Fatalf("journal: %v", j[0])
	}
	// A tool that writes one record cannot write half of it.
	src := strings.Replace(string(mustRead(t, "testdata/shop.yaml")), "refund_order:\n        errors: [{kind: partial_write, p: 1}]", "update_customer:\n        errors: [{kind: partial_write, p: 1}]", 1)
	if _, err := Parse("shop.yaml", []byte(src)); err == nil || !strings.Contains(err.Error(), "partial_write applies only to tools whose effects write two or more records") {
		t.Fatalf("partial_write on update_customer: %v", err)
	}
}

// schema_drift: the answer lacks the field (or has it renamed); the state
// keeps it.
func TestScriptSchemaDrift(t *testing.T) {
	w, b := shopBase(t)
	s := b.NewSession(1, w.Profile("always_drift"))
	cust := unlockedCustomer(t, b)
	res := s.Call("update_customer", map[string]any{"id": cust.ID(), "email": "new@example.com"})
	if !res.OK() || res.Fault != FaultSchemaDrift || !res.Committed {
		t.Fatalf("err=%v fault=%q committed=%v", res.Err, res.Fault, res.Committed)
	}
	if res.Record.Has("email") {
		t.Fatal("the drifted answer still has email")
	}
	if _, ok := res.Value().(map[string]any)["email"]; ok {
		t.Fatal("the drifted JSON still has email")
	}
	if got := s.Get(cust.RecordType(), cust.ID()).String("email"); got != "new@example.com" {
		t.Fatalf("state email %q, want the one written", got)
	}
	j := journalLines(t, s)
	if _, ok := j[0]["result"].(map[string]any)["email"]; ok || j[0]["fault"] != FaultSchemaDrift {
		t.Fatalf("journal: %v", j[0])
	}
}

// The world file refuses quiet faults that cannot happen or lack their keys.
func TestQuietFaultsRefused(t *testing.T) {
	base := string(mustRead(t, "testdata/shop.yaml"))
	for _, c := range []struct{ from, to, want string }{
		{"[{kind: stale_read, p: 1, lag: 1s}]", "[{kind: stale_read, p: 1}]", "stale_read needs a lag"},
		{"[{kind: schema_drift, p: 1, field: email}]", "[{kind: schema_drift, p: 1}]", "schema_drift needs a \"field\""},
		{"[{kind: schema_drift, p: 1, field: email}]", "[{kind: schema_drift, p: 1, field: nope}]", "no tool returns records with a field \"nope\""},
		{"[{kind: silent_noop, p: 0.2}]", "[{kind: silent_noop, p: 0.2, lag: 1s}]", "lag applies only to stale_read"},
		{"get_order:\n        errors: [{kind: stale_read", "create_payment:\n        errors: [{kind: stale_read", "stale_read applies only to get and list tools"},
	} {
		src := strings.Replace(base, c.from, c.to, 1)
		if src == base {
			t.Fatalf("test setup: %q not in the file", c.from)
		}
		_, err := Parse("shop.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s → %v, want an error containing %q", c.to, err, c.want)
		}
	}
}

// The quiet faults keep the determinism contract: the same session key
// gives the same journal bytes, and a fork goes on exactly as its parent
// would (history included).
func TestQuietFaultsDeterministic(t *testing.T) {
	w, b := shopBase(t)
	p := w.Profile("quiet")
	cust, order := unlockedCustomer(t, b), paidOrder(t, b)
	play := func(s *Session, from, n int) {
		for i := from; i < n; i++ {
			switch i % 4 {
			case 0:
				s.Call("update_customer", map[string]any{"id": cust.ID(), "email": "e" + string(rune('a'+i%26)) + "@example.com"})
			case 1:
				s.Call("refund_order", map[string]any{"id": order.ID(), "amount": 1})
			case 2:
				s.Call("get_order", map[string]any{"id": order.ID()})
			case 3:
				s.Call("list_orders", map[string]any{"limit": 2})
			}
		}
	}
	var journals [][]byte
	for range 2 {
		s := b.NewSession(77, p)
		play(s, 0, 200)
		var buf bytes.Buffer
		_ = s.WriteJournal(&buf)
		journals = append(journals, buf.Bytes())
	}
	if !bytes.Equal(journals[0], journals[1]) {
		t.Fatalf("two runs of one key differ at %s", firstDiff(journals[0], journals[1]))
	}
	whole := b.NewSession(78, p)
	play(whole, 0, 120)
	half := b.NewSession(78, p)
	play(half, 0, 60)
	f := half.Fork(78)
	play(f, 60, 120)
	a, c := sessionBytes(t, whole), sessionBytes(t, f)
	if !bytes.Equal(a, c) {
		t.Fatalf("a fork diverged from the session it was forked from at %s", firstDiff(a, c))
	}
}

// A refrain goal: writing nothing is refrained (ok), any write is acted
// (harmful), and the minefield (deleting the customer) is harmful whatever
// the end state — here a delete that silently did nothing.
func TestRefrainAndMinefield(t *testing.T) {
	w, b := shopBase(t)
	g := w.Goal("merge_customer")
	if g == nil || !g.Refrain {
		t.Fatal("shop test world: no refrain goal merge_customer")
	}
	classes := []string{}
	for _, oc := range g.Outcomes {
		classes = append(classes, oc.Class)
	}
	if strings.Join(classes, ",") != "minefield,acted,refrained" {
		t.Fatalf("classes %v, want minefield, acted, refrained", classes)
	}
	judge := func(profile string, calls func(s *Session, a *Attempt)) Verdict {
		s := b.NewSession(3, w.Profile(profile))
		a, err := g.Begin(s, 0)
		if err != nil {
			t.Fatal(err)
		}
		calls(s, a)
		v, err := a.Judge()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if v := judge("none", func(s *Session, a *Attempt) {
		s.Call("list_orders", map[string]any{"customer": a.Target.ID()})
	}); v.Class != ClassRefrained || v.Severity != SeverityOK {
		t.Errorf("reading only: %s (%s), want refrained", v.Class, v.Severity)
	}
	if v := judge("none", func(s *Session, a *Attempt) {
		s.Call("update_customer", map[string]any{"id": a.Target.ID(), "email": "merged@example.com"})
	}); v.Class != ClassActed || v.Severity != SeverityHarmful {
		t.Errorf("a write: %s (%s), want acted", v.Class, v.Severity)
	}
	if v := judge("always_noop", func(s *Session, a *Attempt) {
		if res := s.Call("delete_customer", map[string]any{"id": a.Target.ID()}); res.Fault != FaultSilentNoop {
			t.Fatalf("delete: fault %q", res.Fault)
		}
	}); v.Class != ClassMinefield || v.Severity != SeverityHarmful {
		t.Errorf("a delete that changed nothing: %s (%s), want minefield", v.Class, v.Severity)
	}
	// Deleting another customer is a write, not the minefield (its where
	// names the target).
	if v := judge("none", func(s *Session, a *Attempt) {
		for _, r := range b.Records(w.Type("customer")) {
			if r.ID() != a.Target.ID() && r.Get("locked") == false {
				s.Call("delete_customer", map[string]any{"id": r.ID()})
				return
			}
		}
	}); v.Class != ClassActed {
		t.Errorf("deleting another customer: %s, want acted", v.Class)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return src
}
