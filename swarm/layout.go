package swarm

import (
	"slices"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/report"
)

// Layout is the shape of what an Aggregator counts, by name: a run's
// goals with their outcome classes, personas, variants, tools, invariants
// and fault kinds. A run builds its own (Plan); Layout lets a producer that
// is not a run — reporttest's simulated worlds — tally its episodes with
// the same aggregator.
type Layout struct {
	Goals      []GoalLayout
	Personas   []string
	Variants   []string
	Tools      []string // the tools outcomes may name (faults, confusions)
	Invariants []string
	FaultKinds []string
	// Trace is the sampled trace of r's episode under variant v.
	Trace func(r *AgentResult, v int) (report.Trace, error)
	// FlipReplay is the command that replays an agent whose outcome
	// flipped from variant a to variant b ("" for none).
	FlipReplay func(agent int, a, b string) string
}

// GoalLayout is one goal: its outcome classes in order, and the tool it
// meant (confusions count calls of the others).
type GoalLayout struct {
	Name    string
	Classes []report.ClassInfo // Class and Severity
	Meant   string
}

// NewAggregator is an empty aggregator of l.
func NewAggregator(l Layout) *Aggregator {
	in := &layout{personas: l.Personas, variants: l.Variants, tools: l.Tools, invariants: l.Invariants,
		toolIdx: map[string]int{}, kindIdx: map[string]int{}, trace: l.Trace, flipReplay: l.FlipReplay}
	for i, t := range l.Tools {
		in.toolIdx[t] = i
	}
	in.kinds = slices.Sorted(slices.Values(l.FaultKinds))
	for i, k := range in.kinds {
		in.kindIdx[k] = i
	}
	for _, g := range l.Goals {
		in.goals = append(in.goals, g.Name)
		cs := make([]classInfo, len(g.Classes))
		for i, c := range g.Classes {
			cs[i] = classInfo{c.Class, engine.Severity(c.Severity)}
		}
		in.addGoalClasses(cs)
		m := -1
		if ti, ok := in.toolIdx[g.Meant]; ok {
			m = ti
		}
		in.meant = append(in.meant, m)
	}
	if in.trace == nil {
		in.trace = func(r *AgentResult, v int) (report.Trace, error) {
			return ToReportTrace(r.Index, r.Seed, l.Variants[v], r.Outcomes[v], ""), nil
		}
	}
	if in.flipReplay == nil {
		in.flipReplay = func(int, string, string) string { return "" }
	}
	in.addPairs()
	return newAggregator(in)
}

// Fill writes what the aggregator counted into res: episodes, classes,
// counts, paired tables, invariants, faults, confusions and the samples of
// traces and flipped agents; res is then normalized.
func (a *Aggregator) Fill(res *report.Results) { a.fill(res) }
