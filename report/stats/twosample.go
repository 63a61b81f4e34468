package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// minExpectedForZ is Cochran's rule: the pooled z-test (the uncorrected
// chi-square test) is trusted only when every expected cell count of the 2x2
// table is at least 5; below that Fisher's exact test is used.
const minExpectedForZ = 5

// TwoSampleDiff compares two independent proportions: diff = k2/n2 - k1/n1,
// with Newcombe's hybrid score interval (method 10 of Newcombe 1998, Stat Med
// 17:873) and a two-sided p-value for "the rates are equal".
//
// The p-value comes from Fisher's exact test when any expected cell count is
// below 5 (Cochran's rule), and from the pooled two-proportion z-test
// otherwise, where its normal approximation is good and Fisher's sum would be
// needlessly long. A group with n==0 has rate 0 and Wilson interval {0,1}, so
// the interval becomes honest-wide and p is 1. Counts outside 0<=k<=n are
// clamped; an invalid conf gives the interval {-1,1}.
func TwoSampleDiff(k1, n1, k2, n2 int, conf float64) (diff float64, ci Interval, p float64) {
	k1, n1 = clampCount(k1, n1)
	k2, n2 = clampCount(k2, n2)
	r1, r2 := rateOf(k1, n1), rateOf(k2, n2)
	diff = r2 - r1
	p = twoSampleP(k1, n1, k2, n2)
	if !validConf(conf) {
		return diff, Interval{-1, 1}, p
	}
	w1, w2 := Wilson(k1, n1, conf), Wilson(k2, n2, conf)
	// Square-and-add: each limit of the difference combines the distances
	// from each rate to the Wilson limit on the side that moves the
	// difference the same way.
	lo := diff - math.Hypot(r2-w2.Lo, w1.Hi-r1)
	hi := diff + math.Hypot(w2.Hi-r2, r1-w1.Lo)
	return diff, Interval{clamp(lo, -1, 1), clamp(hi, -1, 1)}, p
}

func rateOf(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// twoSampleP chooses between Fisher's exact test and the pooled z-test.
func twoSampleP(k1, n1, k2, n2 int) float64 {
	n := float64(n1 + n2)
	succ := float64(k1 + k2)
	fail := n - succ
	if n1 == 0 || n2 == 0 || succ == 0 || fail == 0 {
		return 1 // one group empty or every outcome identical: no evidence of a difference
	}
	// The smallest expected cell is (smallest row total)·(smallest column total)/n.
	if float64(min(n1, n2))*math.Min(succ, fail)/n < minExpectedForZ {
		return FisherExact(k1, n1, k2, n2)
	}
	pooled := succ / n
	se := math.Sqrt(pooled * (1 - pooled) * (1/float64(n1) + 1/float64(n2)))
	z := (float64(k2)/float64(n2) - float64(k1)/float64(n1)) / se
	return math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(z)))
}
