package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// McNemarExact returns the two-sided exact McNemar p-value for discordant
// pair counts b (only A succeeded) and c (only B succeeded).
//
// Under the null hypothesis that A and B succeed equally often, each
// discordant pair is a fair coin, so min(b,c) is tested against
// Binomial(b+c, 0.5): p = min(1, 2·P(X <= min(b,c))). b+c == 0 gives 1: with
// no discordant pairs there is no evidence of a difference. Negative counts
// are treated as 0.
func McNemarExact(b, c int) float64 {
	b, c = max(b, 0), max(c, 0)
	n := b + c
	if n == 0 {
		return 1
	}
	lower := distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(min(b, c)))
	return math.Min(1, 2*lower)
}
