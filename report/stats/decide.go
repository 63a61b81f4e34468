package stats

import "math"

// maxEpisodesToDecide bounds EpisodesToDecide's search: past a billion
// episodes the answer is "not at any size a run would have".
const maxEpisodesToDecide = 1_000_000_000

// EpisodesToDecide is the fewest episodes (at least MinEpisodes) at which
// the 95% Wilson interval around rate p would lie wholly on one side of
// limit, were the rate to stay p: how big a run that straddles the limit
// would likely have to be to decide. False when p is on the limit or no
// run up to a billion episodes would clear it.
//
// The rate is held fixed rather than rounded to whole counts, so the width
// shrinks monotonically with n and a bisection finds the first n.
func EpisodesToDecide(p, limit float64) (int, bool) {
	if math.IsNaN(p) || math.IsNaN(limit) || p == limit || p < 0 || p > 1 {
		return 0, false
	}
	clears := func(n int) bool {
		lo, hi := wilsonAt(p, float64(n), zFor(0.95))
		return hi < limit || lo >= limit
	}
	if !clears(maxEpisodesToDecide) {
		return 0, false
	}
	lo, hi := MinEpisodes, maxEpisodesToDecide
	if clears(lo) {
		return lo, true
	}
	for hi-lo > 1 { // clears(hi), !clears(lo)
		mid := lo + (hi-lo)/2
		if clears(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi, true
}

// wilsonAt is the Wilson interval of a rate p over n trials, p not
// necessarily a whole count over n.
func wilsonAt(p, n, z float64) (lo, hi float64) {
	z2n := z * z / n
	denom := 1 + z2n
	centre := (p + z2n/2) / denom
	half := z * math.Sqrt(p*(1-p)/n+z2n/(4*n)) / denom
	return centre - half, centre + half
}
