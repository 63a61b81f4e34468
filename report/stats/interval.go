package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Interval is a two-sided confidence interval on a proportion or difference.
// It is written to JSON as {"lo": …, "hi": …}, as every herd document does.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// Contains reports whether x lies inside the closed interval.
func (iv Interval) Contains(x float64) bool { return iv.Lo <= x && x <= iv.Hi }

// Width is Hi - Lo.
func (iv Interval) Width() float64 { return iv.Hi - iv.Lo }

// CheckCount returns an error unless 0 <= k <= n: k of n is a count out of
// a total (episodes that recovered of faults injected, say). The interval
// functions clamp such input rather than fail; a reader of counts from
// outside (a results file) checks them here to report the mistake.
func CheckCount(k, n int) error {
	switch {
	case n < 0:
		return fmt.Errorf("total %d is negative", n)
	case k < 0:
		return fmt.Errorf("count %d is negative", k)
	case k > n:
		return fmt.Errorf("count %d exceeds its total %d", k, n)
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
