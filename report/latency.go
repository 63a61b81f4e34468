package report

import (
	"cmp"
	"math"
	"slices"

	"github.com/herd-sh/herd/report/stats"
)

// Percentiles are the latency percentiles every renderer shows.
var Percentiles = []struct {
	Name string
	Q    float64
}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}, {"p99.9", 0.999}}

// LatencyRow is one tool's latency percentiles, in milliseconds.
type LatencyRow struct {
	Tool   string
	Calls  int64
	Values []float64        // one per Percentiles entry
	CIs    []stats.Interval // bootstrap 95% intervals; only for the "all" row
}

// latencyResamples is the bootstrap size of every latency interval.
const latencyResamples = 1000

// latencyQuantile is the q-quantile of the bars with its 95% bootstrap
// interval; reports and verdicts both use it, so they agree.
func latencyQuantile(bars []stats.Bar, q float64, seed uint64) (float64, stats.Interval) {
	return stats.BootstrapQuantile(windowBars(bars, q), q, latencyResamples, seed, 0.95)
}

// windowSigmas is how far from the estimate's rank a resampled quantile can
// land before windowBars changes anything: the resampled rank count is
// binomial(n, q), and 8 standard deviations happen less than once in 10^15.
const windowSigmas = 8

// windowBars keeps the bars around the q-quantile's rank and folds all the
// observations below (and above) that window into one bar at the nearest
// value outside it. The bootstrap walks bar by bar, so on a histogram of
// thousands of values this makes it many times cheaper, while its resampled
// quantiles — which never leave the window in practice — are unchanged.
func windowBars(bars []stats.Bar, q float64) []stats.Bar {
	clean := make([]stats.Bar, 0, len(bars))
	var n int64
	for _, b := range bars {
		if b.Count > 0 {
			clean = append(clean, b)
			n = addCount(n, b.Count)
		}
	}
	slices.SortFunc(clean, func(a, b stats.Bar) int { return cmp.Compare(a.Value, b.Value) })
	if n == 0 || len(clean) < 64 {
		return clean
	}
	q = min(max(q, 0), 1)
	rank := math.Ceil(q * float64(n))
	sigma := math.Sqrt(float64(n) * q * (1 - q))
	loRank := int64(rank - windowSigmas*sigma - 1)
	hiRank := int64(rank + windowSigmas*sigma + 1)
	var below int64 // observations in bars before i
	first, last := 0, len(clean)-1
	for i, b := range clean {
		if below+b.Count < loRank {
			first = i + 1
		}
		if below >= hiRank && last == len(clean)-1 {
			last = i - 1
		}
		below = addCount(below, b.Count)
	}
	// Counts near the int64 bound (a document never validated) make the
	// ranks meaningless; the bars are then returned as they are.
	if first == 0 && last == len(clean)-1 || first > last || n == math.MaxInt64 {
		return clean
	}
	var out []stats.Bar
	var under, over int64
	for _, b := range clean[:first] {
		under = addCount(under, b.Count)
	}
	for _, b := range clean[last+1:] {
		over = addCount(over, b.Count)
	}
	if under > 0 {
		out = append(out, stats.Bar{Value: clean[first-1].Value, Count: under})
	}
	out = append(out, clean[first:last+1]...)
	if over > 0 {
		out = append(out, stats.Bar{Value: clean[last+1].Value, Count: over})
	}
	return out
}

// OverallLatency is the latency of every call at each of Percentiles, in
// milliseconds: the point values of LatencyRows' "all" row, without the
// bootstrap behind its intervals (a progress line needs no interval). Nil
// without timing or calls.
func (r *Results) OverallLatency() []float64 {
	if r.Timing == nil {
		return nil
	}
	for _, h := range r.Timing.Latency {
		if h.Tool != AllTools || h.Calls() == 0 {
			continue
		}
		bars := statsBars(h.Bars)
		out := make([]float64, len(Percentiles))
		for i, p := range Percentiles {
			out[i] = stats.Quantile(bars, p.Q)
		}
		return out
	}
	return nil
}

// LatencyRows is the latency table: the "all" row first (with bootstrap
// intervals), then every tool by name (point estimates). Empty without
// timing.
func (r *Results) LatencyRows() []LatencyRow {
	if r.Timing == nil {
		return nil
	}
	var out []LatencyRow
	for _, h := range r.Timing.Latency {
		calls := h.Calls()
		if calls == 0 {
			continue
		}
		bars := statsBars(h.Bars)
		row := LatencyRow{Tool: h.Tool, Calls: calls}
		for _, p := range Percentiles {
			if h.Tool == AllTools {
				v, ci := latencyQuantile(bars, p.Q, r.Run.Seed)
				row.Values = append(row.Values, v)
				row.CIs = append(row.CIs, ci)
				continue
			}
			row.Values = append(row.Values, stats.Quantile(bars, p.Q)) // per tool: the point value only
		}
		out = append(out, row)
	}
	slices.SortStableFunc(out, func(a, b LatencyRow) int {
		switch {
		case a.Tool == AllTools && b.Tool != AllTools:
			return -1
		case b.Tool == AllTools && a.Tool != AllTools:
			return 1
		}
		return cmpStrings(a.Tool, b.Tool)
	})
	return out
}
