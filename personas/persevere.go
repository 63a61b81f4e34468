package personas

import "slices"

// After a tool failed for an action, an agent tries another only as far as
// it still believes in one: the best untried tool's weight against the
// best tried tool's (both exp(sharpness × score / noise), so the ratio is
// how much less likely the agent thought the alternative was). A careful
// agent sure of its first pick (weight ratio near 0) stops rather than
// reach for a tool it never thought fit — writing a loan off as lost
// because renewing it failed; a noisy agent, for which the alternatives
// were nearly as likely, goes on. One draw decides both whether to go on
// and which tool: u below the ratio goes on, and u / ratio samples the
// untried tools as sample does.
func (d *dist) sampleNext(u float64, tried []int, triedHere bool) int {
	if !triedHere {
		return d.sample(u, tried)
	}
	bestTried, bestLeft := 0.0, 0.0
	for i, ti := range d.tools {
		if slices.Contains(tried, ti) {
			bestTried = max(bestTried, d.weights[i])
		} else {
			bestLeft = max(bestLeft, d.weights[i])
		}
	}
	if bestTried == 0 || bestLeft == 0 {
		return d.sample(u, tried)
	}
	ratio := min(1, bestLeft/bestTried)
	if u >= ratio {
		return -1
	}
	return d.sample(u/ratio, tried)
}
