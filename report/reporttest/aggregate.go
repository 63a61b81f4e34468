package reporttest

import (
	"fmt"
	"math"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// aggregator tallies episodes with the swarm's own aggregator
// (swarm.Aggregator.Add): the simulated agents become the outcomes a run's
// agents would have — class, faults met, invariants left violated, the
// write tool called — so the counts, paired tables, samples and flips are
// made exactly as a run makes them. Latency is simulated beside it.
type aggregator struct {
	w       *world
	agg     *swarm.Aggregator
	res     swarm.AgentResult
	latency map[string]map[int64]int64
}

func newAggregator(w *world) *aggregator {
	l := swarm.Layout{Variants: w.variants, FaultKinds: nil}
	for _, p := range w.personas {
		l.Personas = append(l.Personas, p.name)
	}
	tools := map[string]bool{}
	addTool := func(t string) {
		if !tools[t] {
			tools[t] = true
			l.Tools = append(l.Tools, t)
		}
	}
	for _, g := range w.goals {
		gl := swarm.GoalLayout{Name: g.name, Meant: g.meant}
		addTool(g.meant)
		for _, c := range g.classes {
			gl.Classes = append(gl.Classes, report.ClassInfo{Class: c.name, Severity: c.severity})
			addTool(c.tool)
		}
		l.Goals = append(l.Goals, gl)
	}
	l.Invariants = []string{"email_unique", "archived_contacts_unlocked"}
	for _, f := range faultKinds {
		l.FaultKinds = append(l.FaultKinds, f.kind)
	}
	l.Trace = func(r *swarm.AgentResult, v int) (report.Trace, error) {
		a := w.agent(r.Index)
		variant := w.variants[v]
		return w.trace(a, variant, w.outcome(a, variant)), nil
	}
	l.FlipReplay = func(agent int, va, vb string) string {
		return fmt.Sprintf("herd replay mock:crm --seed %d --agent %d --variant %s,%s", w.cfg.Seed, agent, va, vb)
	}
	return &aggregator{w: w, agg: swarm.NewAggregator(l), res: swarm.AgentResult{Outcomes: make([]personas.Outcome, len(w.variants))},
		latency: map[string]map[int64]int64{}}
}

var faultKinds = []struct {
	kind string
	p    float64
}{{"timeout", 0.4}, {"rate_limited", 0.3}, {"timeout_after_commit", 0.2}, {"unavailable", 0.1}}

func (g *aggregator) add(a agent) {
	w := g.w
	goal := w.goals[a.goal]
	persona := w.personas[a.persona]
	r := &g.res
	r.Index, r.Seed, r.Persona, r.Goal = a.index, a.seed, a.persona, a.goal
	for vi, v := range w.variants {
		c := goal.classes[w.outcome(a, v)]
		o := personas.Outcome{Class: c.name, Severity: engine.Severity(c.severity), Called: c.tool}
		// Faults: one episode in twelve meets a fault on its write tool.
		fh := hash(a.seed, purposeFault, uint64(vi))
		if unit(fh) < 1.0/12 {
			kind := pickFault(unit(splitmix(fh)))
			o.Faults = []personas.FaultEvent{{Tool: c.tool, Kind: kind}}
			o.Recovered = c.severity == report.SeverityOK
			if kind == "timeout_after_commit" && (persona.name == "retrier" || persona.name == "hasty") {
				o.Duplicated = 1
			}
		}
		// Invariants: some overwrites leave two contacts with one email.
		if c.name == "overwrote_newer" && unit(hash(a.seed, purposeInvariant, uint64(vi))) < 0.3 {
			o.Violations = []engine.Violation{{Invariant: "email_unique"}}
		}
		if c.name == "wrong_record" && unit(hash(a.seed, purposeInvariant, uint64(vi))) < 0.1 {
			o.Violations = []engine.Violation{{Invariant: "archived_contacts_unlocked"}}
		}
		r.Outcomes[vi] = o
		if w.cfg.Timing {
			g.time(a, vi, c.tool)
		}
	}
	if err := g.agg.Add(r); err != nil {
		panic("reporttest: " + err.Error()) // the layout holds every class the world has
	}
}

func pickFault(u float64) string {
	acc := 0.0
	for _, f := range faultKinds {
		acc += f.p
		if u < acc {
			return f.kind
		}
	}
	return faultKinds[len(faultKinds)-1].kind
}

// time records the latency of the episode's calls: a look, an act on the
// write tool it called and a verify, each on its own tool.
func (g *aggregator) time(a agent, vi int, writeTool string) {
	calls := []struct {
		tool   string
		median float64
	}{{g.w.goals[a.goal].lookup, 4200}, {writeTool, 9800}, {"get_contact", 3100}}
	for k, c := range calls {
		v := lognormal(hash(a.seed, purposeLatency, uint64(vi), uint64(k)), c.median, 0.55)
		for _, tool := range []string{c.tool, report.AllTools} {
			if g.latency[tool] == nil {
				g.latency[tool] = map[int64]int64{}
			}
			g.latency[tool][v]++
		}
	}
}

func (g *aggregator) results(mix []int) *report.Results {
	w := g.w
	cfg := w.cfg
	res := &report.Results{
		Schema:  report.Schema,
		Version: report.Version,
		Run: report.Run{
			HerdVersion: "v0.4.0",
			World: report.WorldRef{Name: "crm", Version: 3,
				Hash:   "5f1c0b8a9e2d4c7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b",
				Source: "mock:crm"},
			Target:   "in-process",
			Variants: w.variants,
			Faults:   "realistic",
			Seed:     cfg.Seed,
			Agents:   cfg.Agents,
			Shard:    cfg.Shard,
			Command:  w.command(),
		},
		Partial: cfg.Partial,
	}
	for i, p := range w.personas {
		res.Run.Mix = append(res.Run.Mix, report.MixEntry{Persona: p.name, Weight: p.weight, Agents: mix[i]})
	}
	for _, goal := range w.goals {
		res.Run.Goals = append(res.Run.Goals, goal.name)
	}
	g.agg.Fill(res)
	res.Lint = crmLint(w.variants)
	if cfg.Timing {
		res.Timing = g.timing()
	}
	return res
}

// timing makes the non-deterministic section: a fixed start, a wall time
// proportional to the work, one host per shard.
func (g *aggregator) timing() *report.Timing {
	cfg := g.w.cfg
	host, shardIndex := "runner-0", 0
	if cfg.Shard != nil {
		host, shardIndex = fmt.Sprintf("runner-%d", cfg.Shard.Index), cfg.Shard.Index
	}
	episodes := g.agg.Episodes()
	seconds := math.Round(float64(episodes)/4000*1000+float64(shardIndex)*10) / 1000
	t := &report.Timing{
		Started:    fmt.Sprintf("2026-03-01T12:00:%02dZ", shardIndex),
		Seconds:    seconds,
		Workers:    8,
		GOMAXPROCS: 8,
		Host:       host,
	}
	if seconds > 0 {
		t.EpisodesPerSec = float64(episodes) / seconds
	}
	for tool, bars := range g.latency {
		h := report.LatencyHistogram{Tool: tool}
		for v, n := range bars {
			h.Bars = append(h.Bars, report.Bar{ValueUS: v, Count: n})
		}
		t.Latency = append(t.Latency, h)
	}
	// In flight: a ramp to a plateau of 8 workers' worth of calls.
	for k := 0; k <= 20; k++ {
		at := seconds * float64(k) / 20
		level := min(float64(k)/5, 1) * 8 * 3
		t.InFlight = append(t.InFlight, report.Sample{T: math.Round(at*1000) / 1000, InFlight: int(level)})
	}
	return t
}

// crmLint is what the description linter says about the crm tools.
func crmLint(variants []string) []report.LintFinding {
	var out []report.LintFinding
	for _, v := range variants {
		if v == "clear" {
			out = append(out, report.LintFinding{Tool: "delete_contact", Variant: v, Dimension: "alternatives",
				Level: "info", Message: "names archive_contact as the way to hide a contact", Fix: ""})
			continue
		}
		out = append(out,
			report.LintFinding{Tool: "delete_contact", Variant: v, Dimension: "irreversibility", Level: "error",
				Message: `"Remove a contact." does not say the deletion is permanent`,
				Fix:     "Say it cannot be undone and point to archive_contact for hiding."},
			report.LintFinding{Tool: "archive_contact", Variant: v, Dimension: "effect", Level: "warning",
				Message: `"Archive a contact." does not say the history is kept`,
				Fix:     "Say the contact is hidden from lists but kept, with its history."},
			report.LintFinding{Tool: "replace_contact", Variant: v, Dimension: "concurrency", Level: "warning",
				Message: "no mention of the version parameter that prevents overwriting a newer edit",
				Fix:     "Document version and the conflict error."},
		)
	}
	return out
}
