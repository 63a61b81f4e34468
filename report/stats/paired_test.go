package stats

import "testing"

func TestPairedDiffPublished(t *testing.T) {
	cases := []struct {
		name         string
		table        PairedTable
		diff, lo, hi float64
	}{
		// Newcombe RG (1998). Improved confidence intervals for the difference
		// between binomial proportions based on paired data. Stat Med
		// 17:2635-2650, Table II example (a): e=36, f=12, g=2, h=0 (n=50),
		// difference (f-g)/n = 0.2000, method 10: 0.0569 to 0.3404.
		// Newcombe's f (first member only) is our OnlyB, since PairedDiff
		// reports pB - pA.
		{"newcombe-a", PairedTable{Both: 36, OnlyB: 12, OnlyA: 2, Neither: 0}, 0.2000, 0.0569, 0.3404},
		// Fagerland, Lydersen & Laake (2017), Statistical Analysis of
		// Contingency Tables, ch. 8, Cavo et al. 2012: n11=59, n12=6,
		// n21=16, n22=80; Newcombe square-and-add estimate -0.0621,
		// 95% CI -0.1186 to -0.0046.
		{"cavo-2012", PairedTable{Both: 59, OnlyB: 6, OnlyA: 16, Neither: 80}, -0.0621, -0.1186, -0.0046},
	}
	for _, c := range cases {
		diff, ci := PairedDiff(c.table, 0.95)
		if !near(diff, c.diff, 4) || !near(ci.Lo, c.lo, 4) || !near(ci.Hi, c.hi, 4) {
			t.Errorf("%s: got %.4f [%.4f, %.4f], want %.4f [%.4f, %.4f]", c.name, diff, ci.Lo, ci.Hi, c.diff, c.lo, c.hi)
		}
	}
}

func TestPairedDiffOrientationAndEdges(t *testing.T) {
	tab := PairedTable{Both: 12, OnlyA: 9, OnlyB: 2, Neither: 21}
	d, ci := PairedDiff(tab, 0.95)
	sw, swci := PairedDiff(PairedTable{Both: 12, OnlyA: 2, OnlyB: 9, Neither: 21}, 0.95)
	if !near(d, -7.0/44, 12) || !near(sw, -d, 12) || !near(swci.Lo, -ci.Hi, 12) || !near(swci.Hi, -ci.Lo, 12) {
		t.Errorf("swapping A and B should negate: %v %+v vs %v %+v", d, ci, sw, swci)
	}
	if !ci.Contains(d) {
		t.Errorf("interval %+v does not contain its estimate %v", ci, d)
	}
	// Positive correlation between the arms must make the paired interval
	// narrower than the independent-samples interval on the same margins.
	_, unpaired, _ := TwoSampleDiff(21, 44, 14, 44, 0.95)
	if ci.Width() >= unpaired.Width() {
		t.Errorf("paired width %.4f not below unpaired %.4f", ci.Width(), unpaired.Width())
	}
	if d, ci := PairedDiff(PairedTable{}, 0.95); d != 0 || ci != (Interval{-1, 1}) {
		t.Errorf("empty table: %v %+v", d, ci)
	}
	// Identical variants: zero difference, interval straddles 0.
	if d, ci := PairedDiff(PairedTable{Both: 100, Neither: 200}, 0.95); d != 0 || !(ci.Lo < 0 && ci.Hi > 0) {
		t.Errorf("no discordant pairs: %v %+v", d, ci)
	}
	// All pairs favour B: the interval stays inside [-1, 1].
	if d, ci := PairedDiff(PairedTable{OnlyB: 30}, 0.95); d != 1 || ci.Hi != 1 || ci.Lo <= 0 {
		t.Errorf("all OnlyB: %v %+v", d, ci)
	}
}
