package stats

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Bar is one histogram bar: Count observations of Value (HDR-histogram
// output, for example).
type Bar struct {
	Value float64
	Count int64
}

// DefaultResamples is used when BootstrapQuantile is asked for fewer than one
// resample.
const DefaultResamples = 1000

// pcgStream is the fixed second PCG word; the caller's seed picks the stream
// state, so the same seed always gives the same interval.
const pcgStream = 0x6865726473746174 // "herdstat"

// Quantile is the nearest-rank q-quantile of the sample described by bars:
// the estimate BootstrapQuantile returns, without an interval. Bad input is
// treated as there (an empty sample gives 0).
func Quantile(bars []Bar, q float64) float64 {
	h := newSampleHist(bars)
	if h.n == 0 {
		return 0
	}
	return h.valueAtRank(h.rankFor(q))
}

// BootstrapQuantile returns the q-quantile of the sample described by bars and
// a percentile-bootstrap interval for it at confidence conf, from `resamples`
// resamples drawn with a PCG generator seeded by seed.
//
// The quantile is the nearest-rank one: the smallest value v with at least
// ceil(q·n) observations <= v (q=0 gives the minimum) — the definition HDR
// histograms use, so the estimate matches what they print.
//
// Each resample is a multinomial draw of n observations over the bars, made
// exactly as a sequence of conditional binomials: bar i receives
// Binomial(remaining, count_i / count still unvisited). Only bars up to the
// one holding the target rank are drawn (walking from the nearer end), so the
// cost is O(resamples × bars), independent of n.
//
// Bars with non-positive counts or non-finite values are ignored. An empty
// sample gives estimate 0 and interval {0,0} (callers should check TooFew or
// the count first); q outside [0,1] is clamped (NaN means the median); an
// invalid conf gives the full sample range.
func BootstrapQuantile(bars []Bar, q float64, resamples int, seed uint64, conf float64) (estimate float64, ci Interval) {
	h := newSampleHist(bars)
	if h.n == 0 {
		return 0, Interval{}
	}
	rank := h.rankFor(q)
	estimate = h.valueAtRank(rank)
	if !validConf(conf) {
		return estimate, Interval{h.values[0], h.values[len(h.values)-1]}
	}
	if resamples < 1 {
		resamples = DefaultResamples
	}
	reps := h.replicates(rank, resamples, seed)
	slices.Sort(reps)
	alpha := 1 - conf
	return estimate, Interval{pickRank(reps, alpha/2), pickRank(reps, 1-alpha/2)}
}

// sampleHist is a cleaned histogram: sorted distinct values with positive
// counts, and prefix sums so a rank can be located by binary search.
type sampleHist struct {
	values []float64
	counts []int64
	below  []int64 // below[i] = observations in bars before i
	n      int64
}

func newSampleHist(bars []Bar) sampleHist {
	clean := make([]Bar, 0, len(bars))
	for _, b := range bars {
		if b.Count > 0 && !math.IsNaN(b.Value) && !math.IsInf(b.Value, 0) {
			clean = append(clean, b)
		}
	}
	slices.SortFunc(clean, func(x, y Bar) int { return cmp.Compare(x.Value, y.Value) }) // no NaN left
	var h sampleHist
	for _, b := range clean {
		if k := len(h.values); k > 0 && h.values[k-1] == b.Value {
			h.counts[k-1] += b.Count // merge duplicate values
		} else {
			h.values = append(h.values, b.Value)
			h.counts = append(h.counts, b.Count)
			h.below = append(h.below, h.n)
		}
		h.n += b.Count
	}
	return h
}

// rankFor is the 1-based nearest rank ceil(q·n), kept within [1, n].
func (h sampleHist) rankFor(q float64) int64 {
	if math.IsNaN(q) {
		q = 0.5
	}
	r := int64(math.Ceil(clamp(q, 0, 1) * float64(h.n)))
	return min(max(r, 1), h.n)
}

// valueAtRank is the value of the rank-th smallest observation.
func (h sampleHist) valueAtRank(rank int64) float64 {
	i := sort.Search(len(h.values), func(i int) bool { return h.below[i]+h.counts[i] >= rank })
	return h.values[i]
}

// replicates draws `resamples` bootstrap resamples and returns, for each, the
// value of its rank-th smallest observation.
func (h sampleHist) replicates(rank int64, resamples int, seed uint64) []float64 {
	bin := distuv.Binomial{Src: rand.NewPCG(seed, pcgStream)}
	out := make([]float64, resamples)
	for i := range out {
		out[i] = h.resampledValueAtRank(rank, &bin)
	}
	return out
}

// resampledValueAtRank draws one multinomial resample of size n, bar by bar,
// stopping at the bar that holds the rank-th observation. For ranks in the
// upper half it walks down from the largest value, looking for the
// (n-rank+1)-th largest observation instead: the same statistic, reached
// after far fewer bars for high percentiles such as p99.
func (h sampleHist) resampledValueAtRank(rank int64, bin *distuv.Binomial) float64 {
	last := len(h.values) - 1
	target, fromTop := rank, false
	if rank > h.n/2 {
		target, fromTop = h.n-rank+1, true
	}
	remaining := h.n // observations of the resample not yet placed
	unvisited := h.n // original observations in bars not yet visited
	var placed int64 // resample observations placed so far
	for step := 0; step <= last; step++ {
		i := step
		if fromTop {
			i = last - step
		}
		x := remaining // the final bar takes everything left
		if step < last && h.counts[i] < unvisited {
			bin.N, bin.P = float64(remaining), float64(h.counts[i])/float64(unvisited)
			x = min(int64(bin.Rand()), remaining)
		}
		placed += x
		if placed >= target {
			return h.values[i]
		}
		remaining -= x
		unvisited -= h.counts[i]
	}
	// Unreachable: the final bar absorbs every remaining draw, so placed
	// reaches n >= target there. Returning the estimate's own bar keeps the
	// function total without a panic.
	return h.valueAtRank(rank)
}

// pickRank is the nearest-rank p-quantile of sorted xs.
func pickRank(xs []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}
