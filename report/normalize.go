package report

import (
	"cmp"
	"slices"
	"strings"
)

// Bounds of the sampled sections. Samples keep the lowest agent indices, so
// that the union of shard samples, cut again, is the single-machine sample.
const (
	TracesPerClass = 3  // traces kept per goal × variant × class
	FlipsPerPair   = 20 // flipped agents kept per goal × (variant A, variant B)
)

// Normalize puts the document in canonical order, in place: every list
// sorted by its keys (byte order of the strings, agent indices numerically),
// rows whose counts are all zero dropped, duplicate sample entries removed
// and the samples cut to their bounds. Classes, run.variants, run.goals,
// run.mix and thresholds keep the order they were given in (world order and
// command-line order).
//
// Producers need not sort: Write, DeterministicJSON, Fingerprint, Decode and
// Merge all normalize, which is what makes a merged document byte-identical
// to the unsharded one.
func (r *Results) Normalize() {
	r.Counts = slices.DeleteFunc(r.Counts, func(c Count) bool { return c.N == 0 })
	slices.SortFunc(r.Counts, func(a, b Count) int {
		return cmpStrings(a.Goal, b.Goal, a.Persona, b.Persona, a.Variant, b.Variant, a.Class, b.Class)
	})
	slices.SortFunc(r.Paired, func(a, b Paired) int {
		return cmpStrings(a.Goal, b.Goal, a.Class, b.Class, a.A, b.A, a.B, b.B)
	})
	r.Invariants = slices.DeleteFunc(r.Invariants, func(v InvariantCount) bool { return v.N == 0 })
	slices.SortFunc(r.Invariants, func(a, b InvariantCount) int {
		return cmpStrings(a.Name, b.Name, a.Variant, b.Variant)
	})
	r.Faults = slices.DeleteFunc(r.Faults, func(f FaultTally) bool {
		return f.Injected == 0 && f.Recovered == 0 && f.Duplicated == 0
	})
	slices.SortFunc(r.Faults, func(a, b FaultTally) int {
		return cmpStrings(a.Variant, b.Variant, a.Tool, b.Tool, a.Kind, b.Kind)
	})
	r.Confusions = slices.DeleteFunc(r.Confusions, func(c Confusion) bool { return c.N == 0 })
	slices.SortFunc(r.Confusions, func(a, b Confusion) int {
		if c := cmpStrings(a.Goal, b.Goal, a.Variant, b.Variant); c != 0 {
			return c
		}
		if c := cmp.Compare(b.N, a.N); c != 0 { // most frequent first
			return c
		}
		return cmpStrings(a.Meant, b.Meant, a.Called, b.Called)
	})
	r.Traces = normalizeTraces(r.Traces)
	r.Flipped = normalizeFlips(r.Flipped)
	slices.SortFunc(r.Lint, func(a, b LintFinding) int {
		return cmpStrings(a.Tool, b.Tool, a.Variant, b.Variant, a.Dimension, b.Dimension,
			a.Level, b.Level, a.Message, b.Message, a.Fix, b.Fix)
	})
	r.Lint = slices.Compact(r.Lint)
	// Derived last, from the normalized counts: a file's own rates are never
	// believed.
	r.Rates = r.deriveRates()
	r.Trials = normalizeTrials(r.Trials)
	r.PassK = r.derivePassK()
	if r.Timing != nil {
		r.Timing.Latency = normalizeLatency(r.Timing.Latency)
		r.Timing.Calls = normalizeCalls(r.Timing.Calls)
		slices.SortStableFunc(r.Timing.InFlight, func(a, b Sample) int { return cmp.Compare(a.T, b.T) })
	}
}

// normalizeTraces sorts by goal, variant, class, agent and keeps the
// TracesPerClass lowest agents of each goal × variant × class.
func normalizeTraces(ts []Trace) []Trace {
	slices.SortStableFunc(ts, func(a, b Trace) int {
		if c := cmpStrings(a.Goal, b.Goal, a.Variant, b.Variant, a.Class, b.Class); c != 0 {
			return c
		}
		return cmp.Compare(a.Agent, b.Agent)
	})
	return keepLowest(ts, TracesPerClass, func(a, b Trace) bool {
		return a.Goal == b.Goal && a.Variant == b.Variant && a.Class == b.Class
	}, func(t Trace) int { return t.Agent })
}

// flipPair is the (variant A, variant B) a flip compares; maps with more than
// one entry (not what the swarm writes) still get a stable key.
func flipPair(f Flip) (string, string) {
	return strings.Join(sortedKeys(f.From), ","), strings.Join(sortedKeys(f.To), ",")
}

// normalizeFlips sorts by goal, pair, agent and keeps the FlipsPerPair lowest
// agents of each goal × pair.
func normalizeFlips(fs []Flip) []Flip {
	slices.SortStableFunc(fs, func(a, b Flip) int {
		a1, a2 := flipPair(a)
		b1, b2 := flipPair(b)
		if c := cmpStrings(a.Goal, b.Goal, a1, b1, a2, b2); c != 0 {
			return c
		}
		return cmp.Compare(a.Agent, b.Agent)
	})
	return keepLowest(fs, FlipsPerPair, func(a, b Flip) bool {
		a1, a2 := flipPair(a)
		b1, b2 := flipPair(b)
		return a.Goal == b.Goal && a1 == b1 && a2 == b2
	}, func(f Flip) int { return f.Agent })
}

// keepLowest cuts a sample sorted by group, then agent, in place: the first
// bound distinct agents of each group stay, and an agent listed twice (from
// two overlapping samples) stays once.
func keepLowest[T any](xs []T, bound int, sameGroup func(a, b T) bool, agent func(T) int) []T {
	out := xs[:0]
	kept := 0
	for i, x := range xs {
		// xs[i-1] is intact: out only overwrites positions it has passed,
		// and a kept element is written over itself.
		same := i > 0 && sameGroup(xs[i-1], x)
		switch {
		case same && agent(xs[i-1]) == agent(x):
			continue
		case same:
			kept++
		default:
			kept = 1
		}
		if kept <= bound {
			out = append(out, x)
		}
	}
	return out
}

// normalizeLatency sorts histograms by tool and bars by value, folding
// duplicate tools and duplicate values together.
func normalizeLatency(hs []LatencyHistogram) []LatencyHistogram {
	slices.SortStableFunc(hs, func(a, b LatencyHistogram) int { return cmp.Compare(a.Tool, b.Tool) })
	out := hs[:0]
	for _, h := range hs {
		if n := len(out); n > 0 && out[n-1].Tool == h.Tool {
			out[n-1].Bars = append(out[n-1].Bars, h.Bars...)
			continue
		}
		out = append(out, h)
	}
	for i := range out {
		out[i].Bars = foldBars(out[i].Bars)
	}
	return out
}

// foldBars sorts bars by value, sums bars of equal value and drops empty ones.
func foldBars(bars []Bar) []Bar {
	slices.SortStableFunc(bars, func(a, b Bar) int { return cmp.Compare(a.ValueUS, b.ValueUS) })
	out := bars[:0]
	for _, b := range bars {
		if b.Count == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].ValueUS == b.ValueUS {
			out[n-1].Count += b.Count
			continue
		}
		out = append(out, b)
	}
	return out
}

// cmpStrings compares pairs (a1, b1), (a2, b2), … in order: the first pair
// that differs decides.
func cmpStrings(pairs ...string) int {
	for i := 0; i+1 < len(pairs); i += 2 {
		if c := strings.Compare(pairs[i], pairs[i+1]); c != 0 {
			return c
		}
	}
	return 0
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
