package stats

import "math"

// PairedTable is the 2x2 table of n paired outcomes: the same agent seed run
// under variant A and variant B.
type PairedTable struct {
	Both    int // succeeded under A and B
	OnlyA   int // succeeded under A only (b)
	OnlyB   int // succeeded under B only (c)
	Neither int // failed under both
}

// N is the number of pairs.
func (t PairedTable) N() int { return t.Both + t.OnlyA + t.OnlyB + t.Neither }

// PairedDiff returns the paired difference pB - pA = (c - b)/n and its
// interval by Newcombe's method 10 for paired proportions (Newcombe 1998,
// Stat Med 17:2635): the Wilson intervals of the two marginal rates combined
// by "square and add", with the covariance accounted for through the
// (continuity-corrected) phi correlation of the table.
//
// An empty table gives diff 0 and the full range {-1, 1}. Negative cells are
// treated as 0; an invalid conf gives {-1, 1}.
func PairedDiff(t PairedTable, conf float64) (diff float64, ci Interval) {
	a, b := float64(max(t.Both, 0)), float64(max(t.OnlyA, 0))
	c, d := float64(max(t.OnlyB, 0)), float64(max(t.Neither, 0))
	n := a + b + c + d
	if n == 0 || !validConf(conf) {
		if n > 0 {
			diff = (c - b) / n
		}
		return diff, Interval{-1, 1}
	}
	// Orient as Newcombe writes it: θ = p1 - p2 with p1 = pB, p2 = pA.
	k1, k2, total := t.Both+max(t.OnlyB, 0), t.Both+max(t.OnlyA, 0), int(n)
	p1, p2 := float64(k1)/n, float64(k2)/n
	w1, w2 := Wilson(k1, total, conf), Wilson(k2, total, conf)
	phi := correctedPhi(a, c, b, d, n) // rows: B success/failure; cols: A
	theta := p1 - p2

	dl1, du1 := p1-w1.Lo, w1.Hi-p1
	dl2, du2 := p2-w2.Lo, w2.Hi-p2
	delta := math.Sqrt(math.Max(0, dl1*dl1-2*phi*dl1*du2+du2*du2))
	eps := math.Sqrt(math.Max(0, du1*du1-2*phi*du1*dl2+dl2*dl2))
	return theta, Interval{clamp(theta-delta, -1, 1), clamp(theta+eps, -1, 1)}
}

// correctedPhi is the phi coefficient of the 2x2 table [[a b] [c d]] with
// Newcombe's continuity correction: a positive numerator ad-bc is reduced by
// n/2 (floored at 0) and a negative one is left as is. It is 0 when any
// margin is empty, where the correlation is undefined.
func correctedPhi(a, b, c, d, n float64) float64 {
	margins := (a + b) * (c + d) * (a + c) * (b + d)
	if margins == 0 {
		return 0
	}
	num := a*d - b*c
	switch {
	case num > n/2:
		num -= n / 2
	case num > 0:
		num = 0
	}
	return num / math.Sqrt(margins)
}
