package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/herd-sh/herd/report/stats"
)

// MaxCount bounds every count a results document holds (episodes, agents,
// counts, calls, latency observations): about 10^12, far above any run,
// and low enough that a renderer's sums of them cannot overflow int64.
const MaxCount = 1 << 40

// maxBars bounds the bars of one latency histogram: an HDR histogram of
// calls from a microsecond to an hour at herd's precision has a few
// thousand distinct values.
const maxBars = 1 << 16

// maxLatencyUS bounds a latency bar's value: a day, in microseconds.
const maxLatencyUS = 24 * 3600 * 1_000_000

// Validate checks what the JSON types cannot: counts are within 0 and
// MaxCount (nor recoveries more than the faults injected), the counts of
// each variant add up to its episodes, severities are known, the shard is
// within its count, latency histograms, calls and in-flight samples are
// sane. A document from elsewhere (a CI artifact, a pull request) is read
// through it, so no renderer meets a count that wraps. It names the first
// offending field by its JSON path, e.g. "counts[3].n is -1".
func (r *Results) Validate() error {
	if err := r.validateFields(); err != nil {
		return err
	}
	if err := r.validateSums(); err != nil {
		return err
	}
	if err := r.validateWorldDiffs(); err != nil {
		return err
	}
	if err := r.validateTrials(); err != nil {
		return err
	}
	if r.Timing != nil {
		if err := r.Timing.Ceiling.validate(); err != nil {
			return err
		}
	}
	if err := r.validateLintTokens(); err != nil {
		return err
	}
	return r.validateTiming()
}

// checkCount says what is wrong with count n at path, or nil.
func checkCount(path string, n int64) error {
	if n < 0 || n > MaxCount {
		return fmt.Errorf("%s is %d, want 0 to %d", path, n, int64(MaxCount))
	}
	return nil
}

func (r *Results) validateFields() error {
	if len(r.Run.Variants) == 0 {
		return fmt.Errorf("run.variants is empty: a run has at least one variant")
	}
	if err := checkCount("run.agents", int64(r.Run.Agents)); err != nil {
		return err
	}
	if err := checkCount("episodes", int64(r.Episodes)); err != nil {
		return err
	}
	if s := r.Run.Shard; s != nil && (s.Count < 1 || s.Index < 0 || s.Index >= s.Count) {
		return fmt.Errorf("run.shard is %d of %d: want 0 ≤ index < count", s.Index, s.Count)
	}
	if m := r.Run.Model; m != nil {
		if len(m.Name) > 256 || len(m.Endpoint) > 64 || len(m.Cassette) > 64 {
			return fmt.Errorf("run.model: a name, endpoint or cassette hash longer than its limit")
		}
		for _, n := range []struct {
			path string
			v    int64
		}{{"run.model.max_steps", int64(m.MaxSteps)}, {"run.model.requests", m.Requests},
			{"run.model.prompt_tokens", m.PromptTokens}, {"run.model.output_tokens", m.OutputTokens}} {
			if err := checkCount(n.path, n.v); err != nil {
				return err
			}
		}
	}
	for i, m := range r.Run.Mix {

		if m.Agents < 0 || m.Agents > MaxCount || m.Weight < 0 || math.IsNaN(m.Weight) || math.IsInf(m.Weight, 0) {
			return fmt.Errorf("run.mix[%d] (%s): weight %v and agents %d must not be negative", i, m.Persona, m.Weight, m.Agents)
		}
	}
	for i, c := range r.Counts {
		if err := checkSeverity(c.Severity); err != nil {
			return fmt.Errorf("counts[%d].severity: %w", i, err)
		}
		if err := checkCount(fmt.Sprintf("counts[%d].n", i), int64(c.N)); err != nil {
			return err
		}
		if c.Goal == "" || c.Class == "" || c.Variant == "" {
			return fmt.Errorf("counts[%d]: goal, variant and class must be set", i)
		}
	}
	for i, c := range r.Classes {
		if err := checkSeverity(c.Severity); err != nil {
			return fmt.Errorf("classes[%d].severity: %w", i, err)
		}
	}
	for i, p := range r.Paired {
		for _, n := range []int{p.Both, p.OnlyA, p.OnlyB, p.Neither} {
			if n < 0 || n > MaxCount {
				return fmt.Errorf("paired[%d] (%s %s %s/%s): counts must be from 0 to %d", i, p.Goal, p.Class, p.A, p.B, int64(MaxCount))
			}
		}
	}
	for i, v := range r.Invariants {
		if err := checkCount(fmt.Sprintf("invariants[%d].n", i), int64(v.N)); err != nil {
			return err
		}
	}
	for i, f := range r.Faults {
		for _, n := range []int{f.Injected, f.Recovered, f.Duplicated} {
			if n < 0 || n > MaxCount {
				return fmt.Errorf("faults[%d] (%s %s): counts must be from 0 to %d", i, f.Tool, f.Kind, int64(MaxCount))
			}
		}
		// Reports show recovered as a rate of injected; more recoveries
		// than faults would silently show as 100%.
		if err := stats.CheckCount(f.Recovered, f.Injected); err != nil {
			return fmt.Errorf("faults[%d] (%s %s): recovered of injected: %w", i, f.Tool, f.Kind, err)
		}
	}
	for i, c := range r.Confusions {
		if err := checkCount(fmt.Sprintf("confusions[%d].n", i), int64(c.N)); err != nil {
			return err
		}
	}
	return nil
}

// validateSums checks that the counts of each variant add up to its
// episodes (every finished episode ends in exactly one class), and that
// no per-variant tally counts more episodes than the variant has.
func (r *Results) validateSums() error {
	nv := len(r.Run.Variants)
	if r.Episodes%nv != 0 {
		return fmt.Errorf("episodes is %d, not a multiple of the %d variants (each agent runs every variant)", r.Episodes, nv)
	}
	perVariant := int64(r.Episodes / nv)
	sums := make(map[string]int64, nv)
	for _, v := range r.Run.Variants {
		sums[v] = 0
	}
	for i, c := range r.Counts {
		if _, ok := sums[c.Variant]; !ok {
			return fmt.Errorf("counts[%d].variant is %q, not one of run.variants", i, c.Variant)
		}
		sums[c.Variant] += int64(c.N) // each ≤ MaxCount: no overflow before the check below
		if sums[c.Variant] > perVariant {
			return fmt.Errorf("counts of variant %s add up to more than its %d episodes (at counts[%d])", c.Variant, perVariant, i)
		}
	}
	for _, v := range r.Run.Variants {
		if sums[v] != perVariant {
			return fmt.Errorf("counts of variant %s add up to %d, but episodes says %d per variant (%d in all)", v, sums[v], perVariant, r.Episodes)
		}
	}
	for i, p := range r.Paired {
		if n := int64(p.Both) + int64(p.OnlyA) + int64(p.OnlyB) + int64(p.Neither); n > perVariant {
			return fmt.Errorf("paired[%d] (%s %s %s/%s) counts %d agents, more than the %d per variant", i, p.Goal, p.Class, p.A, p.B, n, perVariant)
		}
	}
	for i, v := range r.Invariants {
		if int64(v.N) > perVariant {
			return fmt.Errorf("invariants[%d] (%s) counts %d episodes, more than the %d of its variant", i, v.Name, v.N, perVariant)
		}
	}
	for i, c := range r.Confusions {
		if int64(c.N) > perVariant {
			return fmt.Errorf("confusions[%d] (%s) counts %d episodes, more than the %d of its variant", i, c.Goal, c.N, perVariant)
		}
	}
	return nil
}

// validateTiming checks the machine-dependent section: durations finite
// and not negative, latency bars bounded (their counts
// summed within MaxCount), calls and in-flight samples within MaxCount.
func (r *Results) validateTiming() error {
	t := r.Timing
	if t == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"timing.seconds", t.Seconds}, {"timing.episodes_per_sec", t.EpisodesPerSec}} {
		if f.v < 0 || math.IsNaN(f.v) || math.IsInf(f.v, 0) {
			return fmt.Errorf("%s is %v, want a finite number ≥ 0", f.name, f.v)
		}
	}
	if t.Workers < 0 || t.GOMAXPROCS < 0 {
		return fmt.Errorf("timing.workers %d and timing.gomaxprocs %d must not be negative", t.Workers, t.GOMAXPROCS)
	}
	for i, h := range t.Latency {
		if len(h.Bars) > maxBars {
			return fmt.Errorf("timing.latency[%d] (%s) has %d bars, at most %d", i, h.Tool, len(h.Bars), maxBars)
		}
		var calls int64
		for j, b := range h.Bars {
			if b.ValueUS < 0 || b.ValueUS > maxLatencyUS {
				return fmt.Errorf("timing.latency[%d].bars[%d] (%s): value_us is %d, want 0 to %d (a day)", i, j, h.Tool, b.ValueUS, int64(maxLatencyUS))
			}
			if err := checkCount(fmt.Sprintf("timing.latency[%d].bars[%d].count (%s)", i, j, h.Tool), b.Count); err != nil {
				return err
			}
			calls += b.Count // each ≤ MaxCount and at most maxBars of them: no overflow
			if calls > MaxCount {
				return fmt.Errorf("timing.latency[%d] (%s): the bars count %d calls or more, at most %d", i, h.Tool, calls, int64(MaxCount))
			}
		}
	}
	var calls int64
	for i, c := range t.Calls {
		if err := checkCount(fmt.Sprintf("timing.calls[%d].n (%s %s)", i, c.Tool, c.Class), c.N); err != nil {
			return err
		}
		calls += c.N
		if calls > MaxCount {
			return fmt.Errorf("timing.calls add up to %d or more, at most %d", calls, int64(MaxCount))
		}
	}
	for _, h := range []*LatencyHistogram{t.LatencyOK, t.LatencyError} {
		if h == nil {
			continue
		}
		if len(h.Bars) > maxBars {
			return fmt.Errorf("timing latency %s has %d bars, at most %d", h.Tool, len(h.Bars), maxBars)
		}
		var n int64
		for j, b := range h.Bars {
			if b.ValueUS < 0 || b.ValueUS > maxLatencyUS {
				return fmt.Errorf("timing latency %s, bar %d: value_us is %d, want 0 to %d (a day)", h.Tool, j, b.ValueUS, int64(maxLatencyUS))
			}
			if err := checkCount(fmt.Sprintf("timing latency %s, bar %d, count", h.Tool, j), b.Count); err != nil {
				return err
			}
			if n += b.Count; n > MaxCount {
				return fmt.Errorf("timing latency %s: the bars count %d calls or more, at most %d", h.Tool, n, int64(MaxCount))
			}
		}
	}
	if err := checkCount("timing.warmup_calls", t.WarmupCalls); err != nil {
		return err
	}
	if t.Stopped != "" && !slices.Contains(StopReasons, t.Stopped) {
		return fmt.Errorf("timing.stopped is %q, want one of %s", t.Stopped, strings.Join(StopReasons, ", "))
	}
	if err := t.Server.validate(); err != nil {
		return err
	}
	for i, s := range t.InFlight {
		if s.T < 0 || math.IsNaN(s.T) || math.IsInf(s.T, 0) {
			return fmt.Errorf("timing.in_flight[%d].t is %v, want a finite number ≥ 0", i, s.T)
		}
		if err := checkCount(fmt.Sprintf("timing.in_flight[%d].in_flight", i), int64(s.InFlight)); err != nil {
			return err
		}
	}
	return nil
}

func checkSeverity(s string) error {
	switch s {
	case SeverityOK, SeverityFailed, SeverityHarmful:
		return nil
	}
	return fmt.Errorf("%q is not a severity (ok, failed or harmful)", s)
}

// Bounds of a results document's server section: a document is input
// (herd report reads files from anywhere), so a list in it is bounded
// like the histograms are.
const (
	maxServerProcesses = 4096
	maxSkippedTools    = 100_000
	maxSampleLines     = 16
)

// validate checks the server section (nil is fine).
func (s *ServerStats) validate() error {
	if s == nil {
		return nil
	}
	if s.Processes < 0 || s.Processes > maxServerProcesses {
		return fmt.Errorf("timing.server.processes is %d, want 0 to %d", s.Processes, maxServerProcesses)
	}
	if err := checkCount("timing.server.non_json_lines", s.NonJSONLines); err != nil {
		return err
	}
	if len(s.NonJSONSample) > maxSampleLines || int64(len(s.NonJSONSample)) > s.NonJSONLines {
		return fmt.Errorf("timing.server.non_json_sample has %d lines, want at most %d and no more than non_json_lines (%d)", len(s.NonJSONSample), maxSampleLines, s.NonJSONLines)
	}
	if len(s.ProcessStats) > maxServerProcesses {
		return fmt.Errorf("timing.server.process_stats has %d entries, at most %d", len(s.ProcessStats), maxServerProcesses)
	}
	for i, p := range s.ProcessStats {
		if p.PID < 0 || p.RSSKB < 0 || p.PeakRSSKB < 0 || p.CPUSeconds < 0 || math.IsNaN(p.CPUSeconds) || math.IsInf(p.CPUSeconds, 0) {
			return fmt.Errorf("timing.server.process_stats[%d] (pid %d): pid, rss_kb, peak_rss_kb and cpu_seconds must be finite and not negative", i, p.PID)
		}
	}
	if len(s.Skipped) > maxSkippedTools {
		return fmt.Errorf("timing.server.skipped has %d tools, at most %d", len(s.Skipped), maxSkippedTools)
	}
	for i, t := range s.Skipped {
		switch t.Reason {
		case SkipWrites, SkipOpenWorld, SkipFiltered:
		default:
			return fmt.Errorf("timing.server.skipped[%d] (%s): reason %q, want %s, %s or %s", i, t.Tool, t.Reason, SkipWrites, SkipOpenWorld, SkipFiltered)
		}
	}
	return nil
}
