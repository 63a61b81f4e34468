package report

import (
	"cmp"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Merge combines the shard documents of one run into the document the run
// would have produced on one machine: counts summed, samples re-cut to the
// lowest agent indices, episodes recomputed, thresholds re-evaluated, the
// shard marker dropped. Its deterministic part (DeterministicJSON) is
// byte-identical to the unsharded run's. Documents are named "document 1",
// "document 2", … in errors; MergeLabeled names them.
func Merge(docs ...*Results) (*Results, error) {
	labels := make([]string, len(docs))
	for i := range docs {
		labels[i] = "document " + strconv.Itoa(i+1)
	}
	return MergeLabeled(labels, docs)
}

// MergeLabeled is Merge with a label per document (usually its file name)
// for the error messages.
func MergeLabeled(labels []string, docs []*Results) (*Results, error) {
	if len(docs) == 0 {
		return nil, errors.New("nothing to merge: give the shard documents of one run")
	}
	if len(labels) != len(docs) {
		return nil, fmt.Errorf("merge: %d labels for %d documents", len(labels), len(docs))
	}
	if err := checkShards(labels, docs); err != nil {
		return nil, err
	}
	for i := 1; i < len(docs); i++ {
		if err := sameRun(labels[0], docs[0], labels[i], docs[i]); err != nil {
			return nil, err
		}
	}
	first, firstLabel := docs[0], labels[0]
	for i, d := range docs {
		if d.Run.Shard.Index == 0 {
			first, firstLabel = d, labels[i] // the command line comes from shard 0, whichever order the files came in
		}
	}
	out := &Results{
		Schema:  Schema,
		Version: Version,
		Run:     first.Run,
		Classes: slices.Clone(first.Classes),
	}
	out.Run.Shard = nil
	out.LintTokens = first.LintTokens // every shard lints the same tools
	// A shard's reproducing command is the whole run's (herd swarm
	// records it without the shard), and so is the merged document's.
	out.Run.Command = first.Run.Command
	for _, d := range docs {
		out.Partial = out.Partial || d.Partial
		out.Episodes += d.Episodes
	}
	var err error
	if out.Counts, err = mergeCounts(labels, docs); err != nil {
		return nil, err
	}
	out.Paired = sumBy(docs, func(d *Results) []Paired { return d.Paired },
		func(p Paired) [4]string { return [4]string{p.Goal, p.Class, p.A, p.B} },
		func(sum *Paired, p Paired) {
			sum.Both += p.Both
			sum.OnlyA += p.OnlyA
			sum.OnlyB += p.OnlyB
			sum.Neither += p.Neither
		})
	out.Invariants = sumBy(docs, func(d *Results) []InvariantCount { return d.Invariants },
		func(v InvariantCount) [2]string { return [2]string{v.Name, v.Variant} },
		func(sum *InvariantCount, v InvariantCount) { sum.N += v.N })
	out.Faults = sumBy(docs, func(d *Results) []FaultTally { return d.Faults },
		func(f FaultTally) [3]string { return [3]string{f.Variant, f.Tool, f.Kind} },
		func(sum *FaultTally, f FaultTally) {
			sum.Injected += f.Injected
			sum.Recovered += f.Recovered
			sum.Duplicated += f.Duplicated
		})
	out.Confusions = sumBy(docs, func(d *Results) []Confusion { return d.Confusions },
		func(c Confusion) [4]string { return [4]string{c.Goal, c.Variant, c.Meant, c.Called} },
		func(sum *Confusion, c Confusion) { sum.N += c.N })
	for _, d := range docs {
		// Normalize sorts these and keeps the lowest agents of each group:
		// every shard kept its own lowest, so the union holds the global ones.
		out.Traces = append(out.Traces, d.Traces...)
		out.Flipped = append(out.Flipped, d.Flipped...)
		out.Lint = append(out.Lint, d.Lint...)
		out.Trials = append(out.Trials, d.Trials...) // Normalize sums each task's shards
	}
	out.Timing = mergeTiming(docs, out.Episodes)
	out.Normalize()
	if specs := thresholdSpecs(first); len(specs) > 0 {
		ts, err := ParseThresholds(out, specs)
		if err != nil {
			return nil, fmt.Errorf("merge: re-evaluating the thresholds of %s: %w", firstLabel, err)
		}
		out.Thresholds = Evaluate(out, ts)
	}
	return out, nil
}

// checkShards refuses documents that are not the shards 0…n-1 of n, each
// exactly once.
func checkShards(labels []string, docs []*Results) error {
	byIndex := map[int]string{}
	count := 0
	for i, d := range docs {
		s := d.Run.Shard
		if s == nil {
			return fmt.Errorf("%s is not a shard (it has no run.shard): it already holds a whole run", labels[i])
		}
		if i == 0 {
			count = s.Count
		} else if s.Count != count {
			return fmt.Errorf("%s is shard %d of %d but %s is shard %d of %d: they split the run differently",
				labels[0], docs[0].Run.Shard.Index, count, labels[i], s.Index, s.Count)
		}
		if prev, dup := byIndex[s.Index]; dup {
			return fmt.Errorf("shard %d of %d is given twice (%s and %s)", s.Index, count, prev, labels[i])
		}
		byIndex[s.Index] = labels[i]
	}
	var have, missing []string
	for k := range count {
		if _, ok := byIndex[k]; ok {
			have = append(have, strconv.Itoa(k))
		} else {
			missing = append(missing, strconv.Itoa(k))
		}
	}
	switch len(missing) {
	case 0:
		return nil
	case 1:
		return fmt.Errorf("shards %s of %d: shard %s is missing", strings.Join(have, ","), count, missing[0])
	}
	return fmt.Errorf("shards %s of %d: shards %s are missing", strings.Join(have, ","), count, strings.Join(missing, ","))
}

// sameRun refuses two documents of different runs, naming the first field
// that differs.
func sameRun(la string, a *Results, lb string, b *Results) error {
	type field struct {
		name string
		x, y any
	}
	fields := []field{
		{"world", a.Run.World.Name, b.Run.World.Name},
		{"world version", a.Run.World.Version, b.Run.World.Version},
		{"world hash", a.Run.World.Hash, b.Run.World.Hash},
		{"herd version", a.Run.HerdVersion, b.Run.HerdVersion},
		{"target", a.Run.Target, b.Run.Target},
		{"seed", a.Run.Seed, b.Run.Seed},
		{"agents", a.Run.Agents, b.Run.Agents},
		{"variants", a.Run.Variants, b.Run.Variants},
		{"faults", a.Run.Faults, b.Run.Faults},
		{"mix", a.Run.Mix, b.Run.Mix},
		{"goals", a.Run.Goals, b.Run.Goals},
		{"outcome classes", a.Classes, b.Classes},
		{"thresholds", thresholdSpecs(a), thresholdSpecs(b)},
	}
	for _, f := range fields {
		if !reflect.DeepEqual(f.x, f.y) {
			return fmt.Errorf("cannot merge: %s and %s are from different runs: %s differs (%s vs %s)",
				la, lb, f.name, show(f.x), show(f.y))
		}
	}
	return nil
}

// thresholdSpecs are the thresholds of a document as they were given.
func thresholdSpecs(r *Results) []string {
	var specs []string
	for _, v := range r.Thresholds {
		specs = append(specs, v.Threshold)
	}
	return specs
}

// show prints a run field compactly for an error message.
func show(v any) string {
	switch x := v.(type) {
	case []string:
		return "[" + strings.Join(x, ",") + "]"
	case []MixEntry:
		parts := make([]string, len(x))
		for i, m := range x {
			parts[i] = fmt.Sprintf("%s=%g:%d", m.Persona, m.Weight, m.Agents)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case []ClassInfo:
		return fmt.Sprintf("%d classes", len(x))
	case string:
		if x == "" {
			return `""`
		}
		return x
	}
	return fmt.Sprint(v)
}

func mergeCounts(labels []string, docs []*Results) ([]Count, error) {
	type key [4]string
	type seen struct{ row, doc int } // where the key's row is, and which document gave it first
	at := map[key]seen{}
	var out []Count
	for i, d := range docs {
		for _, c := range d.Counts {
			k := key{c.Goal, c.Persona, c.Variant, c.Class}
			first, ok := at[k]
			if !ok {
				at[k] = seen{len(out), i}
				out = append(out, c)
				continue
			}
			if sum := &out[first.row]; sum.Severity != c.Severity {
				return nil, fmt.Errorf("cannot merge: %s says %s/%s is %s, %s says %s",
					labels[i], c.Goal, c.Class, c.Severity, labels[first.doc], sum.Severity)
			}
			out[first.row].N += c.N
		}
	}
	return out, nil
}

// sumBy concatenates a section across documents, summing rows with the same
// key (first-seen order; Normalize sorts afterwards).
func sumBy[T any, K comparable](docs []*Results, section func(*Results) []T, key func(T) K, add func(*T, T)) []T {
	at := map[K]int{}
	var out []T
	for _, d := range docs {
		for _, row := range section(d) {
			k := key(row)
			if j, ok := at[k]; ok {
				add(&out[j], row)
				continue
			}
			at[k] = len(out)
			out = append(out, row)
		}
	}
	return out
}

// mergeTiming combines the shards' timing: the earliest start, the longest
// wall time (shards run side by side), summed workers and cores, every host,
// all histograms and calls by class (Normalize, which Merge calls next, sums
// equal tools, values and classes), and in-flight samples summed at equal
// offsets (each shard's offsets count from its own start, which is close
// enough when the shards start together, as a CI matrix or an Indexed Job
// does).
func mergeTiming(docs []*Results, episodes int) *Timing {
	var out *Timing
	var hosts []string
	var started time.Time
	for _, d := range docs {
		t := d.Timing
		if t == nil {
			continue
		}
		if out == nil {
			out = &Timing{}
		}
		if s, err := time.Parse(time.RFC3339Nano, t.Started); err == nil && (started.IsZero() || s.Before(started)) {
			started, out.Started = s, t.Started
		} else if out.Started == "" {
			out.Started = t.Started
		}
		out.Seconds = max(out.Seconds, t.Seconds)
		out.Workers += t.Workers
		out.GOMAXPROCS += t.GOMAXPROCS
		if t.Host != "" && !slices.Contains(hosts, t.Host) {
			hosts = append(hosts, t.Host)
		}
		for _, h := range t.Latency {
			out.Latency = append(out.Latency, LatencyHistogram{Tool: h.Tool, Bars: slices.Clone(h.Bars)})
		}
		out.InFlight = append(out.InFlight, t.InFlight...)
		out.Calls = append(out.Calls, t.Calls...)
	}
	if out == nil {
		return nil
	}
	out.Host = strings.Join(hosts, ", ")
	if out.Seconds > 0 {
		out.EpisodesPerSec = float64(episodes) / out.Seconds
	}
	slices.SortStableFunc(out.InFlight, func(a, b Sample) int { return cmp.Compare(a.T, b.T) })
	folded := out.InFlight[:0]
	for _, s := range out.InFlight {
		if n := len(folded); n > 0 && folded[n-1].T == s.T {
			folded[n-1].InFlight += s.InFlight
			continue
		}
		folded = append(folded, s)
	}
	out.InFlight = folded
	return out
}
