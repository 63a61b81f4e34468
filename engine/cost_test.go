package engine

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Rules that would take forever or eat the machine are stopped by the cost
// limit with rule_cost_exceeded, quickly and without a large allocation,
// and the call changes nothing.
func TestCostLimitStopsRunawayRules(t *testing.T) {
	w := mustLoad(t, "testdata/costly.yaml")
	b := mustSeed(t, w, 0)
	s := b.NewSession(1, nil)
	before := s.StateJSON()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"find_twins", nil},                             // a nested comprehension over every pair of 400 records
		{"grow_name", map[string]any{"id": "p_0001"}},   // replace('', s) chains: quadratic growth
		{"double_name", map[string]any{"id": "p_0001"}}, // doubling 30 times over
	} {
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		res := s.Call(c.tool, c.args)
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		wantCode(t, res, CodeRuleCost)
		if !strings.Contains(res.Err.Message, "cost limit") {
			t.Errorf("%s: message %q does not name the cost limit", c.tool, res.Err.Message)
		}
		if took > 2*time.Second {
			t.Errorf("%s took %s to be stopped", c.tool, took)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 64<<20 {
			t.Errorf("%s allocated %d MB before it was stopped", c.tool, alloc>>20)
		}
		if got := s.StateJSON(); !bytes.Equal(got, before) {
			t.Fatalf("%s was stopped but changed the state", c.tool)
		}
	}
	if got := s.ErrorCounts()[CodeRuleCost]; got != 3 {
		t.Fatalf("rule_cost_exceeded counted %d times", got)
	}
	// A single pass over the records fits the limit.
	mustOK(t, s.Call("count_people", nil))
}

// The guarded replace still behaves like CEL's.
func TestReplaceStillReplaces(t *testing.T) {
	w := mustLoad(t, "testdata/costly.yaml")
	b := mustSeed(t, w, 0)
	s := b.NewSession(1, nil)
	name := s.Lookup("person", "p_0002").String("name")
	res := mustOK(t, s.Call("tidy_name", map[string]any{"id": "p_0002"}))
	if got, want := res.Record.String("name"), strings.Replace(name, " ", "_", 1); got != want {
		t.Fatalf("replace gave %q, want %q", got, want)
	}
	for _, c := range []struct {
		s, old, new string
		n           int64
		want        string
	}{
		{"a b c", " ", "_", -1, "a_b_c"},
		{"a b c", " ", "_", 1, "a_b c"},
		{"abc", "", "-", -1, "-a-b-c-"},
		{"héllo", "", ".", 2, ".h.éllo"},
	} {
		got := boundedReplace(celValue(c.s), celValue(c.old), celValue(c.new), c.n)
		if got != celValue(c.want) {
			t.Errorf("replace(%q, %q, %q, %d) = %v, want %q", c.s, c.old, c.new, c.n, got, c.want)
		}
	}
}

// Rules whose static worst case is within the limit run without the
// runtime tracker; rules over unbounded data keep it.
func TestCostTrackingOnlyWhereNeeded(t *testing.T) {
	crm := mustLoad(t, "../worlds/crm.yaml")
	for _, pc := range crm.Tool("update_contact").when {
		if pc.expr.tracked {
			t.Errorf("crm update_contact precondition %q is tracked; its worst case is a few steps", pc.expr.src)
		}
	}
	shop := mustLoad(t, "testdata/shop.yaml")
	if !shop.Tool("create_payment").when[0].expr.tracked {
		t.Error("a precondition walking records.order runs without a cost limit")
	}
	costly := mustLoad(t, "testdata/costly.yaml")
	for _, name := range []string{"find_twins", "grow_name", "double_name"} {
		tool := costly.Tool(name)
		for _, pc := range tool.when {
			if !pc.expr.tracked {
				t.Errorf("%s: %q runs without a cost limit", name, pc.expr.src)
			}
		}
		for _, ef := range tool.effects {
			for _, a := range ef.assign {
				if !a.expr.tracked {
					t.Errorf("%s: %q runs without a cost limit", name, a.expr.src)
				}
			}
		}
	}
}

// Stored strings are bounded (the static cost estimate relies on it).
func TestStoredStringsAreBounded(t *testing.T) {
	w := mustLoad(t, "testdata/costly.yaml")
	s := mustSeed(t, w, 0).NewSession(1, nil)
	// Each person's name is short; tidy_name cannot grow it, but a record
	// restored from a snapshot could carry anything.
	snap, _ := s.Snapshot()
	long := strings.Repeat("x", maxStoredString+1)
	bad := strings.Replace(string(snap), `"id":"p_0001","name":"`, `"id":"p_0001","name":"`+long, 1)
	if err := s.Restore([]byte(bad)); err == nil || !strings.Contains(err.Error(), "bytes long") {
		t.Fatalf("restoring an over-long string: %v", err)
	}
}
