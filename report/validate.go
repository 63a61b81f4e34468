package report

import (
	"fmt"
	"math"

	"github.com/herd-sh/herd/report/stats"
)

// Validate checks what the JSON types cannot: counts are not negative (nor
// recoveries more than the faults injected), severities are known, the
// shard is within its count. It names the first offending field by its JSON
// path, e.g. "counts[3].n is -1".
func (r *Results) Validate() error {
	if len(r.Run.Variants) == 0 {
		return fmt.Errorf("run.variants is empty: a run has at least one variant")
	}
	if r.Run.Agents < 0 {
		return fmt.Errorf("run.agents is %d, want ≥ 0", r.Run.Agents)
	}
	if r.Episodes < 0 {
		return fmt.Errorf("episodes is %d, want ≥ 0", r.Episodes)
	}
	if s := r.Run.Shard; s != nil && (s.Count < 1 || s.Index < 0 || s.Index >= s.Count) {
		return fmt.Errorf("run.shard is %d of %d: want 0 ≤ index < count", s.Index, s.Count)
	}
	for i, m := range r.Run.Mix {
		if m.Agents < 0 || m.Weight < 0 || math.IsNaN(m.Weight) {
			return fmt.Errorf("run.mix[%d] (%s): weight %v and agents %d must not be negative", i, m.Persona, m.Weight, m.Agents)
		}
	}
	for i, c := range r.Counts {
		if err := checkSeverity(c.Severity); err != nil {
			return fmt.Errorf("counts[%d].severity: %w", i, err)
		}
		if c.N < 0 {
			return fmt.Errorf("counts[%d].n is %d, want ≥ 0", i, c.N)
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
		if p.Both < 0 || p.OnlyA < 0 || p.OnlyB < 0 || p.Neither < 0 {
			return fmt.Errorf("paired[%d] (%s %s %s/%s): counts must not be negative", i, p.Goal, p.Class, p.A, p.B)
		}
	}
	for i, v := range r.Invariants {
		if v.N < 0 {
			return fmt.Errorf("invariants[%d].n is %d, want ≥ 0", i, v.N)
		}
	}
	for i, f := range r.Faults {
		if f.Injected < 0 || f.Recovered < 0 || f.Duplicated < 0 {
			return fmt.Errorf("faults[%d] (%s %s): counts must not be negative", i, f.Tool, f.Kind)
		}
		// Reports show recovered as a rate of injected; more recoveries
		// than faults would silently show as 100%.
		if err := stats.CheckCount(f.Recovered, f.Injected); err != nil {
			return fmt.Errorf("faults[%d] (%s %s): recovered of injected: %w", i, f.Tool, f.Kind, err)
		}
	}
	for i, c := range r.Confusions {
		if c.N < 0 {
			return fmt.Errorf("confusions[%d].n is %d, want ≥ 0", i, c.N)
		}
	}
	if t := r.Timing; t != nil {
		for i, h := range t.Latency {
			for j, b := range h.Bars {
				if b.Count < 0 || b.ValueUS < 0 {
					return fmt.Errorf("timing.latency[%d].bars[%d] (%s): value_us and count must not be negative", i, j, h.Tool)
				}
			}
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
