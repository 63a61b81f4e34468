package report

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
)

// The estimator against a table computed by hand. Four tasks of one goal,
// persona and variant, with (n, c) = (4, 4), (4, 2), (3, 1), (2, 0):
//
//	k=1  pass^1 = pass@1 = mean(c/n) = (1 + 1/2 + 1/3 + 0)/4        = 0.458333
//	k=2  pass^2 = (1 + C(2,2)/C(4,2) + 0 + 0)/4 = (1 + 1/6)/4       = 0.291667
//	     pass@2 = (1 + (1 − 1/6) + (1 − C(2,2)/C(3,2)) + 0)/4 = (1 + 5/6 + 2/3)/4 = 0.625
//	k=3  three tasks have 3 trials: pass^3 = (1 + 0 + 0)/3           = 0.333333
//	     pass@3 = (1 + 1 + 1)/3 (n−c < 3 for each)                   = 1
//	k=4  two tasks: pass^4 = (1 + 0)/2 = 0.5; pass@4 = 1
//	k≥5  no task has 5 trials: no row
func TestPassKHandComputed(t *testing.T) {
	r := &Results{Trials: []Trial{
		{Goal: "g", Persona: "p", Variant: "clear", Target: "t1", N: 4, OK: 4},
		{Goal: "g", Persona: "p", Variant: "clear", Target: "t2", N: 4, OK: 2},
		{Goal: "g", Persona: "p", Variant: "clear", Target: "t3", N: 3, OK: 1},
		{Goal: "g", Persona: "p", Variant: "clear", Target: "t4", N: 2, OK: 0},
	}}
	r.Trials = normalizeTrials(r.Trials)
	rows := r.derivePassK()
	want := []struct {
		k, tasks int
		hat, at  float64
	}{
		{1, 4, 0.458333, 0.458333},
		{2, 4, 0.291667, 0.625},
		{3, 3, 0.333333, 1},
		{4, 2, 0.5, 1},
	}
	var mine []PassK
	for _, row := range rows {
		if row.Persona == "p" {
			mine = append(mine, row)
		}
	}
	if len(mine) != len(want) {
		t.Fatalf("%d rows for persona p, want %d: %+v", len(mine), len(want), mine)
	}
	for i, w := range want {
		got := mine[i]
		if got.K != w.k || got.Tasks != w.tasks || math.Abs(got.PassHat-w.hat) > 1e-6 || math.Abs(got.PassAt-w.at) > 1e-6 {
			t.Errorf("k=%d: got tasks %d pass^k %v pass@k %v, want %d, %v, %v", w.k, got.Tasks, got.PassHat, got.PassAt, w.tasks, w.hat, w.at)
		}
		if !(got.PassHatI.Lo <= got.PassHat && got.PassHat <= got.PassHatI.Hi) || !(got.PassAtI.Lo <= got.PassAt && got.PassAt <= got.PassAtI.Hi) {
			t.Errorf("k=%d: the intervals %+v %+v do not hold the estimates", w.k, got.PassHatI, got.PassAtI)
		}
	}
	// pass^k never rises with k; pass@k never falls (same tasks: k 1 → 2).
	if mine[1].PassHat > mine[0].PassHat || mine[1].PassAt < mine[0].PassAt {
		t.Error("pass^k rose or pass@k fell from k=1 to k=2")
	}
	// The pooled row (persona "") of a one-persona cell is the same.
	for _, row := range rows {
		if row.Persona == "" && row.K == 2 && math.Abs(row.PassHat-0.291667) > 1e-6 {
			t.Errorf("pooled k=2 pass^k %v", row.PassHat)
		}
	}
}

// A task split across shards sums back to itself, so the merged estimate
// and its interval are byte-identical to the unsharded one.
func TestPassKShardsMergeExactly(t *testing.T) {
	whole := &Results{Trials: []Trial{
		{Goal: "g", Persona: "p", Variant: "v", Target: "a", N: 6, OK: 5},
		{Goal: "g", Persona: "p", Variant: "v", Target: "b", N: 5, OK: 1},
		{Goal: "g", Persona: "q", Variant: "v", Target: "a", N: 8, OK: 8},
	}}
	split := &Results{Trials: []Trial{
		{Goal: "g", Persona: "q", Variant: "v", Target: "a", N: 3, OK: 3},
		{Goal: "g", Persona: "p", Variant: "v", Target: "b", N: 2, OK: 0},
		{Goal: "g", Persona: "p", Variant: "v", Target: "a", N: 6, OK: 5},
		{Goal: "g", Persona: "q", Variant: "v", Target: "a", N: 5, OK: 5},
		{Goal: "g", Persona: "p", Variant: "v", Target: "b", N: 3, OK: 1},
	}}
	for _, r := range []*Results{whole, split} {
		r.Trials = normalizeTrials(r.Trials)
		r.PassK = r.derivePassK()
	}
	a, b := mustJSON(t, whole.PassK), mustJSON(t, split.PassK)
	if !bytes.Equal(a, b) {
		t.Fatalf("merged trials give other estimates:\n%s\n%s", a, b)
	}
}

// Thresholds name pass^k and pass@k per goal.
func TestPassKThreshold(t *testing.T) {
	th, err := ParseThreshold("hide_contact:pass^4>80%")
	if err != nil || th.Metric != "pass^4" || th.Scope != "hide_contact" || th.Limit != 0.8 {
		t.Fatalf("parse: %+v %v", th, err)
	}
	if _, err := ParseThreshold("pass@9>50%"); err == nil {
		t.Error("pass@9 parsed; k is 1 to 8")
	}
	r := &Results{Run: Run{Variants: []string{"clear"}}, Classes: []ClassInfo{{Goal: "hide_contact", Class: "achieved", Severity: SeverityOK}}}
	for i := range 400 {
		r.Trials = append(r.Trials, Trial{Goal: "hide_contact", Persona: "p", Variant: "clear", Target: string(rune('a'+i%26)) + string(rune('a'+i/26)), N: 4, OK: 4})
	}
	r.Normalize()
	v := Evaluate(r, []Threshold{th})[0]
	if v.Result != Ready || v.N != 400 || v.Value != 1 {
		t.Errorf("all 400 tasks right 4 of 4 times: %+v", v)
	}
	noScope, _ := ParseThreshold("pass^2>50%")
	if v := Evaluate(r, []Threshold{noScope})[0]; v.Result != NotReady {
		t.Errorf("pass^k without a goal: %+v, want NOT READY with a note", v)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
