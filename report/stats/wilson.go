package stats

import "math"

// Wilson returns the Wilson score interval for k successes out of n at
// confidence conf (e.g. 0.95).
//
// n==0 → {0,1}: with no trials nothing is known about the rate. Counts outside
// 0<=k<=n are clamped (see CheckCount for reporting them as an error) and an
// invalid conf (not strictly inside (0,1)) yields {0,1}.
func Wilson(k, n int, conf float64) Interval {
	k, n = clampCount(k, n)
	if n == 0 || !validConf(conf) {
		return Interval{0, 1}
	}
	z := zFor(conf)
	nf, p := float64(n), float64(k)/float64(n)
	z2n := z * z / nf
	// Solving |p̂ - p| = z·sqrt(p(1-p)/n) for p (Wilson 1927) gives the centre
	// and half-width below; unlike the Wald interval it never leaves [0,1]
	// and does not collapse to zero width at k=0 or k=n.
	denom := 1 + z2n
	centre := (p + z2n/2) / denom
	half := z * math.Sqrt(p*(1-p)/nf+z2n/(4*nf)) / denom
	iv := Interval{clamp(centre-half, 0, 1), clamp(centre+half, 0, 1)}
	// At the edges the algebra gives exactly 0 or 1; pin them so rounding
	// never reports a lower bound of 1e-17 for zero observed events.
	if k == 0 {
		iv.Lo = 0
	}
	if k == n {
		iv.Hi = 1
	}
	return iv
}

// Rate bundles k, n, the point estimate and its 95% Wilson interval.
type Rate struct {
	K  int      `json:"k"`
	N  int      `json:"n"`
	P  float64  `json:"p"`
	CI Interval `json:"ci"`
}

// NewRate builds a Rate with a 95% Wilson interval. With n==0 the point
// estimate is 0 (not NaN, so it survives JSON encoding) and the interval is
// {0,1}, which says plainly that nothing is known. Counts outside 0<=k<=n are
// clamped as in Wilson.
func NewRate(k, n int) Rate {
	k, n = clampCount(k, n)
	r := Rate{K: k, N: n, CI: Wilson(k, n, 0.95)}
	if n > 0 {
		r.P = float64(k) / float64(n)
	}
	return r
}
