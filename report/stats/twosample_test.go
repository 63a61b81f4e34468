package stats

import "testing"

func TestTwoSampleDiffPublished(t *testing.T) {
	// Newcombe RG (1998). Interval estimation for the difference between
	// independent proportions: comparison of eleven methods. Stat Med
	// 17:873-890, example (a): 56/70 vs 48/80, difference 0.2000, method 10
	// (hybrid score) 95% interval 0.0524 to 0.3339. Our difference is
	// k2/n2 - k1/n1, so 56/70 goes second.
	diff, ci, p := TwoSampleDiff(48, 80, 56, 70, 0.95)
	if !near(diff, 0.2, 4) || !near(ci.Lo, 0.0524, 4) || !near(ci.Hi, 0.3339, 4) {
		t.Errorf("got %.4f [%.4f, %.4f], want 0.2000 [0.0524, 0.3339]", diff, ci.Lo, ci.Hi)
	}
	// Expected counts are all >= 5, so this is the pooled z-test: pooled
	// rate 104/150, z = 0.2/sqrt(p̄(1-p̄)(1/70+1/80)) = 2.6509, p = 0.0080.
	if !near(p, 0.0080, 4) {
		t.Errorf("pooled z p = %.4f, want 0.0080", p)
	}
	// Swapping groups negates the difference and mirrors the interval.
	d2, ci2, p2 := TwoSampleDiff(56, 70, 48, 80, 0.95)
	if !near(d2, -diff, 12) || !near(ci2.Lo, -ci.Hi, 12) || !near(ci2.Hi, -ci.Lo, 12) || p2 != p {
		t.Errorf("swap: %v %+v %v", d2, ci2, p2)
	}
}

func TestTwoSampleDiffSmallCountsUseFisher(t *testing.T) {
	// Fisher's tea-tasting table (3 of 4 vs 1 of 4): two-sided p = 0.4857
	// (Agresti, Categorical Data Analysis, §3.5.1; R fisher.test).
	if got := FisherExact(3, 4, 1, 4); !near(got, 0.4857, 4) {
		t.Errorf("FisherExact(3/4, 1/4) = %.4f, want 0.4857", got)
	}
	// Expected cells are 2, so TwoSampleDiff must report Fisher's p.
	if _, _, p := TwoSampleDiff(3, 4, 1, 4, 0.95); p != FisherExact(3, 4, 1, 4) {
		t.Errorf("small table p = %v, want Fisher %v", p, FisherExact(3, 4, 1, 4))
	}
	// 1/10 vs 9/10: only the two most extreme tables on each side are as
	// unlikely; p = 2·(C(10,1)C(10,9)+C(10,0)C(10,10))/C(20,10) = 202/184756.
	if got := FisherExact(1, 10, 9, 10); !near(got, 202.0/184756, 12) {
		t.Errorf("FisherExact(1/10, 9/10) = %v, want %v", got, 202.0/184756)
	}
	// Rare events over a large sample still take the exact path and stay fast.
	if _, _, p := TwoSampleDiff(0, 100000, 6, 100000, 0.95); !(p > 0.01 && p < 0.05) {
		t.Errorf("0 vs 6 of 100000: p = %v, want about 0.031", p)
	}
}

func TestTwoSampleDiffEdges(t *testing.T) {
	if d, ci, p := TwoSampleDiff(0, 0, 0, 0, 0.95); d != 0 || p != 1 || !(ci.Lo <= -0.9 && ci.Hi >= 0.9) {
		t.Errorf("empty groups: %v %+v %v", d, ci, p)
	}
	if _, ci, _ := TwoSampleDiff(3, 10, 5, 10, 2); ci != (Interval{-1, 1}) {
		t.Errorf("invalid conf: %+v, want {-1 1}", ci)
	}
	if d, ci, p := TwoSampleDiff(10, 10, 0, 10, 0.95); d != -1 || ci.Lo != -1 || ci.Hi >= 0 || p >= 0.001 {
		t.Errorf("10/10 vs 0/10: %v %+v %v", d, ci, p)
	}
}
