package stats

import "math"

// FisherExact returns the two-sided p-value of Fisher's exact test for k1/n1
// versus k2/n2: the probability, under the hypergeometric distribution of the
// first group's successes given all margins, of a table no more likely than
// the one observed. This is the "sum of small p" definition used by R's
// fisher.test. Counts outside 0<=k<=n are clamped.
func FisherExact(k1, n1, k2, n2 int) float64 {
	k1, n1 = clampCount(k1, n1)
	k2, n2 = clampCount(k2, n2)
	succ := k1 + k2
	lo, hi := max(0, succ-n2), min(succ, n1)
	if lo == hi {
		return 1
	}
	h := hypergeom{n1: n1, n2: n2, succ: succ}
	observed := h.logProb(k1)
	// Tables whose probability ties the observed one must count as "as
	// extreme"; the relative tolerance absorbs lgamma rounding, as R does.
	const tieTolerance = 1e-7
	limit := observed + math.Log1p(tieTolerance)
	p := 0.0
	for x := lo; x <= hi; x++ {
		if lp := h.logProb(x); lp <= limit {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}

// hypergeom is the distribution of the first group's successes when succ
// successes are spread over groups of n1 and n2 at random.
type hypergeom struct{ n1, n2, succ int }

func (h hypergeom) logProb(x int) float64 {
	return logChoose(h.n1, x) + logChoose(h.n2, h.succ-x) - logChoose(h.n1+h.n2, h.succ)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}
