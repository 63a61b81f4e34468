package report_test

import (
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/stats"
)

func TestViewsAddUp(t *testing.T) {
	res := fixture()
	if got := len(res.ClassRates()); got != 12*2 {
		t.Errorf("%d class rates; want 12 classes × 2 variants", got)
	}
	for _, v := range res.Variants() {
		// Every goal's classes partition its episodes.
		perGoal := map[string]int{}
		for _, cr := range res.ClassRates() {
			if cr.Variant == v {
				perGoal[cr.Goal] += cr.K
				if cr.N == 0 || cr.CI != stats.Wilson(cr.K, cr.N, 0.95) {
					t.Errorf("%s/%s/%s: interval %v is not Wilson(%d, %d)", cr.Goal, cr.Class, v, cr.CI, cr.K, cr.N)
				}
			}
		}
		total := 0
		for _, n := range perGoal {
			total += n
		}
		if total != res.Episodes/2 {
			t.Errorf("variant %s: class counts sum to %d; want %d episodes", v, total, res.Episodes/2)
		}
		// Persona and goal harmful counts both sum to the overall one.
		var overall stats.Rate
		for _, g := range res.HarmfulOverall() {
			if g.Variant == v {
				overall = g.Rate
			}
		}
		for name, rates := range map[string][]report.GroupRate{"persona": res.HarmfulByPersona(), "goal": res.HarmfulByGoal()} {
			k, n := 0, 0
			for _, g := range rates {
				if g.Variant == v {
					k += g.K
					n += g.N
				}
			}
			if k != overall.K || n != overall.N {
				t.Errorf("variant %s: %s rates sum to %d/%d; overall is %d/%d", v, name, k, n, overall.K, overall.N)
			}
		}
	}
	// The misuse map's rows are the class rates, one per variant, in order.
	flat := res.ClassRates()
	rows := res.ClassRows()
	if len(rows) != 12 {
		t.Errorf("%d class rows; want 12 classes", len(rows))
	}
	i := 0
	for _, row := range rows {
		if len(row.Rates) != len(res.Variants()) {
			t.Errorf("%s/%s: %d rates for %d variants", row.Goal, row.Class, len(row.Rates), len(res.Variants()))
		}
		for _, r := range row.Rates {
			if i >= len(flat) || flat[i].Goal != row.Goal || flat[i].Class != row.Class || flat[i].Severity != row.Severity || flat[i].Rate != r {
				t.Fatalf("class row %s/%s does not match class rate %d", row.Goal, row.Class, i)
			}
			i++
		}
	}
	if i != len(flat) {
		t.Errorf("class rows hold %d rates; ClassRates has %d", i, len(flat))
	}
	// A paired comparison's margins are the per-variant class counts.
	rates := map[[3]string]stats.Rate{}
	for _, cr := range res.ClassRates() {
		rates[[3]string{cr.Goal, cr.Class, cr.Variant}] = cr.Rate
	}
	for _, c := range res.Comparisons() {
		if c.Aggregate {
			continue
		}
		a, b := rates[[3]string{c.Goal, c.Class, c.A}], rates[[3]string{c.Goal, c.Class, c.B}]
		if c.RateA.K != a.K || c.RateB.K != b.K || c.RateA.N != a.N {
			t.Errorf("%s/%s: paired margins %d, %d of %d; class counts %d, %d of %d", c.Goal, c.Class, c.RateA.K, c.RateB.K, c.RateA.N, a.K, b.K, a.N)
		}
		if c.P != stats.McNemarExact(c.Table.OnlyA, c.Table.OnlyB) {
			t.Errorf("%s/%s: p is not McNemar's", c.Goal, c.Class)
		}
	}
}
