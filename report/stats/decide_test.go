package stats

import "testing"

// The episodes EpisodesToDecide names are the first at which the interval
// clears the limit: one fewer still straddles it.
func TestEpisodesToDecide(t *testing.T) {
	for _, c := range []struct{ p, limit float64 }{
		{0.04, 0.05}, {0.06, 0.05}, {0.096, 0.10}, {0, 0.01}, {0.5, 0.45},
	} {
		n, ok := EpisodesToDecide(c.p, c.limit)
		if !ok {
			t.Errorf("p=%g limit=%g: no size decides", c.p, c.limit)
			continue
		}
		straddles := func(n int) bool {
			lo, hi := wilsonAt(c.p, float64(n), zFor(0.95))
			return lo < c.limit && hi >= c.limit
		}
		if straddles(n) || (n > MinEpisodes && !straddles(n-1)) {
			t.Errorf("p=%g limit=%g: n=%d is not the first size that decides", c.p, c.limit, n)
		}
	}
	// 4% against 5%: the Wald half-width 1.96·sqrt(0.04·0.96/n) falls
	// under one point at n=1,475; Wilson's upper arm is longer above a
	// small rate, so a few hundred more.
	if n, _ := EpisodesToDecide(0.04, 0.05); n < 1475 || n > 2000 {
		t.Errorf("4%% vs 5%%: %d episodes, want a little above 1,475", n)
	}
	for _, c := range []struct{ p, limit float64 }{{0.05, 0.05}, {0.5000000001, 0.5}} {
		if n, ok := EpisodesToDecide(c.p, c.limit); ok {
			t.Errorf("p=%g limit=%g: %d episodes; a rate on the limit is never decided", c.p, c.limit, n)
		}
	}
	// An interval already clear at the floor: the floor itself.
	if n, ok := EpisodesToDecide(0.5, 0.05); !ok || n != MinEpisodes {
		t.Errorf("50%% vs 5%%: %d, %v; want the floor %d", n, ok, MinEpisodes)
	}
}
