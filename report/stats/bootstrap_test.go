package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// latencyBars is a deterministic, right-skewed latency histogram of roughly
// `total` observations spread over `bars` log-spaced values from 1ms to ~5s,
// shaped like HDR-histogram output for a service.
func latencyBars(total int64, bars int) []Bar {
	out := make([]Bar, 0, bars)
	lognorm := distuv.LogNormal{Mu: math.Log(40), Sigma: 0.8}
	prev := 0.0
	for i := range bars {
		hi := math.Exp(math.Log(5000) * float64(i+1) / float64(bars))
		cdf := lognorm.CDF(hi)
		if c := int64(math.Round(float64(total) * (cdf - prev))); c > 0 {
			out = append(out, Bar{Value: hi, Count: c})
		}
		prev = cdf
	}
	return out
}

func totalCount(bars []Bar) (n int64) {
	for _, b := range bars {
		n += b.Count
	}
	return n
}

func TestBootstrapQuantileEstimateIsNearestRank(t *testing.T) {
	// Values 1..10, ten observations each: p50 is rank 50 → value 5,
	// p99 is rank 99 → value 10, p0 is the minimum. Order of bars and a
	// duplicated value must not matter.
	bars := []Bar{{10, 10}, {3, 10}, {1, 10}, {2, 10}, {4, 10}, {5, 4}, {5, 6}, {6, 10}, {7, 10}, {8, 10}, {9, 10}, {-1, 0}, {math.NaN(), 5}}
	for _, c := range []struct{ q, want float64 }{{0.5, 5}, {0.99, 10}, {0, 1}, {0.91, 10}, {0.9, 9}, {1, 10}} {
		if got, _ := BootstrapQuantile(bars, c.q, 50, 1, 0.95); got != c.want {
			t.Errorf("q=%v: estimate %v, want %v", c.q, got, c.want)
		}
		if got := Quantile(bars, c.q); got != c.want {
			t.Errorf("q=%v: Quantile %v, want %v", c.q, got, c.want)
		}
	}
}

func TestBootstrapQuantileDeterministic(t *testing.T) {
	bars := latencyBars(20000, 300)
	e1, ci1 := BootstrapQuantile(bars, 0.99, 400, 7, 0.95)
	e2, ci2 := BootstrapQuantile(bars, 0.99, 400, 7, 0.95)
	if e1 != e2 || ci1 != ci2 {
		t.Fatalf("same seed differs: %v %+v vs %v %+v", e1, ci1, e2, ci2)
	}
	h := newSampleHist(bars)
	r := h.rankFor(0.99)
	a, b := h.replicates(r, 400, 7), h.replicates(r, 400, 8)
	same := true
	for i := range a {
		same = same && a[i] == b[i]
	}
	if same {
		t.Error("different seeds produced identical replicates; the seed is not used")
	}
}

func TestBootstrapQuantileIntervalShape(t *testing.T) {
	big := latencyBars(100000, 400)
	small := make([]Bar, len(big))
	for i, b := range big {
		small[i] = Bar{b.Value, b.Count / 100} // same shape, 1% of the data
	}
	// (With 100,000 observations an interval may collapse into a single bar:
	// the bootstrap cannot resolve finer than the histogram does.)
	for _, q := range []float64{0.5, 0.9, 0.99} {
		eb, cb := BootstrapQuantile(big, q, 500, 3, 0.95)
		es, cs := BootstrapQuantile(small, q, 500, 3, 0.95)
		if !cb.Contains(eb) || !cs.Contains(es) {
			t.Errorf("q=%v: interval misses estimate: big %v %+v, small %v %+v", q, eb, cb, es, cs)
		}
		if cs.Width() <= cb.Width() {
			t.Errorf("q=%v: small-sample width %.3f not wider than big %.3f", q, cs.Width(), cb.Width())
		}
	}
}

func TestBootstrapQuantileWidthMatchesTheory(t *testing.T) {
	// Uniform values 1..1000, 10 each (n=10,000). The sample median has
	// standard error sqrt(q(1-q)/n)/f = 0.005/0.001 = 5, so the 95%
	// percentile interval should be about 2·1.96·5 ≈ 19.6 wide. A sampler
	// that resampled wrongly (e.g. without replacement, or by bars instead
	// of observations) would miss this by a wide margin.
	bars := make([]Bar, 1000)
	for i := range bars {
		bars[i] = Bar{float64(i + 1), 10}
	}
	est, ci := BootstrapQuantile(bars, 0.5, 2000, 11, 0.95)
	t.Logf("median %v, 95%% CI %+v, width %v", est, ci, ci.Width())
	if est != 500 || ci.Width() < 15 || ci.Width() > 25 {
		t.Errorf("median %v CI %+v: width %v, want 500 and about 19.6", est, ci, ci.Width())
	}
}

func TestResampledQuantileIsExact(t *testing.T) {
	// The bootstrap distribution of an order statistic is known exactly:
	// the resampled rank-r value is <= v_j iff at least r of the n draws
	// land at or below v_j, i.e. P = P(Bin(n, F_j) >= r). Compare observed
	// frequencies with that, for a low rank (walked from the bottom) and a
	// high rank (walked from the top).
	bars := []Bar{{1, 5}, {2, 3}, {3, 7}, {4, 2}, {5, 3}} // n = 20
	h := newSampleHist(bars)
	const draws = 40000
	for _, rank := range []int64{6, 17} {
		reps := h.replicates(rank, draws, uint64(rank))
		freq := map[float64]int{}
		for _, v := range reps {
			freq[v]++
		}
		prevAtMost := 0.0
		for i, v := range h.values {
			F := float64(h.below[i]+h.counts[i]) / float64(h.n)
			atMost := distuv.Binomial{N: float64(h.n), P: F}.Survival(float64(rank) - 1)
			want := atMost - prevAtMost
			prevAtMost = atMost
			got := float64(freq[v]) / draws
			se := math.Sqrt(want * (1 - want) / draws)
			if math.Abs(got-want) > 4.5*se+1e-9 {
				t.Errorf("rank %d value %v: frequency %.4f, exact %.4f (±%.4f)", rank, v, got, want, se)
			}
		}
	}
}

func TestBootstrapQuantileMillionObservations(t *testing.T) {
	bars := latencyBars(1_000_000, 2000)
	n := totalCount(bars)
	est, ci := BootstrapQuantile(bars, 0.99, 200, 5, 0.95)
	t.Logf("n=%d bars=%d p99=%.1f CI %+v", n, len(bars), est, ci)
	if n < 990_000 || !ci.Contains(est) || ci.Width() <= 0 {
		t.Fatalf("n=%d p99=%v CI %+v", n, est, ci)
	}
	// With a million observations the p99 is pinned to within a few percent.
	if ci.Width() > 0.05*est {
		t.Errorf("p99 interval %+v too wide for n=%d", ci, n)
	}
}

func TestBootstrapQuantileBadInput(t *testing.T) {
	if est, ci := BootstrapQuantile(nil, 0.5, 100, 1, 0.95); est != 0 || ci != (Interval{}) {
		t.Errorf("empty: %v %+v", est, ci)
	}
	if q := Quantile([]Bar{{5, 0}, {math.NaN(), 3}}, 0.5); q != 0 {
		t.Errorf("Quantile of no usable bar: %v, want 0", q)
	}
	if est, ci := BootstrapQuantile([]Bar{{5, 0}, {7, -2}}, 0.5, 100, 1, 0.95); est != 0 || ci != (Interval{}) {
		t.Errorf("no positive counts: %v %+v", est, ci)
	}
	bars := []Bar{{1, 10}, {2, 10}, {3, 10}}
	if est, ci := BootstrapQuantile(bars, 0.5, 100, 1, 1.5); est != 2 || ci != (Interval{1, 3}) {
		t.Errorf("invalid conf: %v %+v, want 2 {1 3}", est, ci)
	}
	if est, _ := BootstrapQuantile(bars, 7, 100, 1, 0.95); est != 3 {
		t.Errorf("q>1 should clamp to the maximum, got %v", est)
	}
	// Zero resamples falls back to DefaultResamples instead of failing.
	a1, c1 := BootstrapQuantile(bars, 0.5, 0, 9, 0.95)
	a2, c2 := BootstrapQuantile(bars, 0.5, DefaultResamples, 9, 0.95)
	if a1 != a2 || c1 != c2 {
		t.Errorf("resamples=0 gave %v %+v, DefaultResamples gave %v %+v", a1, c1, a2, c2)
	}
}

func BenchmarkBootstrapQuantile(b *testing.B) {
	// A million-observation latency histogram over 2,000 HDR-style bars,
	// p99 with 1,000 resamples: the cost depends on bars, not on n.
	bars := latencyBars(1_000_000, 2000)
	for b.Loop() {
		BootstrapQuantile(bars, 0.99, 1000, 1, 0.95)
	}
}
