package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval on a proportion or difference.
type Interval struct{ Lo, Hi float64 }

// Contains reports whether x lies inside the closed interval.
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// Width is Hi - Lo.
func (iv Interval) Width() float64 { return iv.Hi - iv.Lo }

// CheckConf returns an error unless conf is a usable confidence level, strictly
// between 0 and 1. The interval functions never panic on a bad level (they
// return the widest possible interval instead), so callers that take the level
// from a user should check it here first to report the mistake.
func CheckConf(conf float64) error {
	if !validConf(conf) {
		return fmt.Errorf("stats: confidence level %v must be strictly between 0 and 1 (e.g. 0.95)", conf)
	}
	return nil
}

// CheckCount returns an error unless 0 <= k <= n, naming the offending values.
// The interval functions clamp such input rather than panic; use this at the
// boundary where counts come from outside.
func CheckCount(k, n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("stats: trial count n=%d is negative", n)
	case k < 0:
		return fmt.Errorf("stats: success count k=%d is negative", k)
	case k > n:
		return fmt.Errorf("stats: success count k=%d exceeds trial count n=%d", k, n)
	}
	return nil
}

func validConf(conf float64) bool { return conf > 0 && conf < 1 } // false for NaN too

// zFor is the two-sided standard normal critical value for conf:
// 1.959964 for 0.95. Only called with a valid conf.
func zFor(conf float64) float64 {
	return distuv.UnitNormal.Quantile(1 - (1-conf)/2)
}

// clampCount forces k into [0, n] and n to >= 0, so nonsense counts degrade to
// the nearest meaningful table instead of producing NaN or a panic.
func clampCount(k, n int) (int, int) {
	n = max(n, 0)
	return min(max(k, 0), n), n
}

func clamp(x, lo, hi float64) float64 { return math.Min(math.Max(x, lo), hi) }
