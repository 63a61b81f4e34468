package report

import (
	"math"
	"testing"

	"github.com/herd-sh/herd/report/stats"
)

// windowBars must not change what the bootstrap sees near the quantile: the
// count, the estimate, and (up to resampling noise) the interval.
func TestWindowBarsKeepsTheQuantile(t *testing.T) {
	var bars []stats.Bar
	for v := 1.0; v < 5000; v *= 1.01 { // ~860 distinct values, a long tail
		bars = append(bars, stats.Bar{Value: math.Round(v*100) / 100, Count: int64(1 + 4000/v)})
	}
	var n int64
	for _, b := range bars {
		n += b.Count
	}
	for _, q := range []float64{0.5, 0.9, 0.99, 0.999} {
		w := windowBars(bars, q)
		var wn int64
		for _, b := range w {
			wn += b.Count
		}
		if wn != n {
			t.Errorf("q=%v: windowed bars hold %d observations, want %d", q, wn, n)
		}
		if len(w) >= len(bars) {
			t.Errorf("q=%v: window kept all %d bars", q, len(bars))
		}
		fullEst, fullCI := stats.BootstrapQuantile(bars, q, 2000, 9, 0.95)
		winEst, winCI := stats.BootstrapQuantile(w, q, 2000, 9, 0.95)
		if fullEst != winEst {
			t.Errorf("q=%v: estimate %v with the window, %v without", q, winEst, fullEst)
		}
		// Different draws, same distribution: the ends agree to a few bars.
		if math.Abs(fullCI.Lo-winCI.Lo) > 0.05*fullEst || math.Abs(fullCI.Hi-winCI.Hi) > 0.05*fullEst {
			t.Errorf("q=%v: interval %v with the window, %v without", q, winCI, fullCI)
		}
	}
}
