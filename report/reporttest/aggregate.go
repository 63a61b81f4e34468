package reporttest

import (
	"fmt"
	"math"

	"github.com/herd-sh/herd/report"
)

// aggregator tallies episodes the way the swarm's aggregator does: counts
// only, plus bounded samples that keep the lowest agent indices (agents
// arrive in ascending order, so "the first few seen" is "the lowest").
type aggregator struct {
	w          *world
	episodes   int
	counts     map[[4]string]*report.Count
	paired     map[[4]string]*report.Paired
	invariants map[[2]string]int
	faults     map[[3]string]*report.FaultTally
	confusions map[[4]string]int
	traces     []report.Trace
	traceSeen  map[[3]string]int
	flips      []report.Flip
	flipSeen   map[[3]string]int
	latency    map[string]map[int64]int64
}

func newAggregator(w *world) *aggregator {
	return &aggregator{
		w:          w,
		counts:     map[[4]string]*report.Count{},
		paired:     map[[4]string]*report.Paired{},
		invariants: map[[2]string]int{},
		faults:     map[[3]string]*report.FaultTally{},
		confusions: map[[4]string]int{},
		traceSeen:  map[[3]string]int{},
		flipSeen:   map[[3]string]int{},
		latency:    map[string]map[int64]int64{},
	}
}

var faultKinds = []struct {
	kind string
	p    float64
}{{"timeout", 0.4}, {"rate_limited", 0.3}, {"timeout_after_commit", 0.2}, {"unavailable", 0.1}}

func (g *aggregator) add(a agent) {
	w := g.w
	goal := w.goals[a.goal]
	persona := w.personas[a.persona]
	classOf := make([]int, len(w.variants))
	for vi, v := range w.variants {
		ci := w.outcome(a, v)
		classOf[vi] = ci
		c := goal.classes[ci]
		g.episodes++
		key := [4]string{goal.name, persona.name, v, c.name}
		if g.counts[key] == nil {
			g.counts[key] = &report.Count{Goal: goal.name, Persona: persona.name, Variant: v, Class: c.name, Severity: c.severity}
		}
		g.counts[key].N++

		// Faults: one episode in twelve meets a fault on its write tool.
		fh := hash(a.seed, purposeFault, uint64(vi))
		if unit(fh) < 1.0/12 {
			kind := pickFault(unit(splitmix(fh)))
			fk := [3]string{v, c.tool, kind}
			if g.faults[fk] == nil {
				g.faults[fk] = &report.FaultTally{Variant: v, Tool: c.tool, Kind: kind}
			}
			f := g.faults[fk]
			f.Injected++
			if c.severity == report.SeverityOK {
				f.Recovered++
			}
			if kind == "timeout_after_commit" && (persona.name == "retrier" || persona.name == "hasty") {
				f.Duplicated++
			}
		}
		// Invariants: some overwrites leave two contacts with one email.
		if c.name == "overwrote_newer" && unit(hash(a.seed, purposeInvariant, uint64(vi))) < 0.3 {
			g.invariants[[2]string{"email_unique", v}]++
		}
		if c.name == "wrong_record" && unit(hash(a.seed, purposeInvariant, uint64(vi))) < 0.1 {
			g.invariants[[2]string{"archived_contacts_unlocked", v}]++
		}
		if c.tool != goal.meant {
			g.confusions[[4]string{goal.name, v, goal.meant, c.tool}]++
		}
		g.sampleTrace(a, v, ci)
		if w.cfg.Timing {
			g.time(a, vi, c.tool)
		}
	}
	g.pair(a, classOf)
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

// pair tallies the paired tables and flips for every variant pair.
func (g *aggregator) pair(a agent, classOf []int) {
	w := g.w
	goal := w.goals[a.goal]
	for i := range w.variants {
		for j := i + 1; j < len(w.variants); j++ {
			va, vb := w.variants[i], w.variants[j]
			ca, cb := goal.classes[classOf[i]], goal.classes[classOf[j]]
			rows := make([]string, 0, len(goal.classes)+3)
			for _, c := range goal.classes {
				rows = append(rows, c.name)
			}
			rows = append(rows, report.SeverityHarmful, report.SeverityFailed, report.SeverityOK)
			for k, row := range rows {
				var inA, inB bool
				if k < len(goal.classes) {
					inA, inB = ca.name == row, cb.name == row
				} else {
					inA, inB = ca.severity == row, cb.severity == row
				}
				key := [4]string{goal.name, row, va, vb}
				p := g.paired[key]
				if p == nil {
					p = &report.Paired{Goal: goal.name, Class: row, A: va, B: vb}
					g.paired[key] = p
				}
				switch {
				case inA && inB:
					p.Both++
				case inA:
					p.OnlyA++
				case inB:
					p.OnlyB++
				default:
					p.Neither++
				}
			}
			if ca.name != cb.name {
				fk := [3]string{goal.name, va, vb}
				if g.flipSeen[fk] < report.FlipsPerPair {
					g.flipSeen[fk]++
					g.flips = append(g.flips, report.Flip{
						Agent: a.index, Goal: goal.name, Persona: w.personas[a.persona].name,
						From: map[string]string{va: ca.name}, To: map[string]string{vb: cb.name},
						Replay: fmt.Sprintf("herd replay mock:crm --seed %d --agent %d --variant %s,%s", w.cfg.Seed, a.index, va, vb),
					})
				}
			}
		}
	}
}

func (g *aggregator) sampleTrace(a agent, variant string, ci int) {
	goal := g.w.goals[a.goal]
	key := [3]string{goal.name, variant, goal.classes[ci].name}
	if g.traceSeen[key] >= report.TracesPerClass {
		return
	}
	g.traceSeen[key]++
	g.traces = append(g.traces, g.w.trace(a, variant, ci))
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
		Partial:  cfg.Partial,
		Episodes: g.episodes,
	}
	for i, p := range w.personas {
		res.Run.Mix = append(res.Run.Mix, report.MixEntry{Persona: p.name, Weight: p.weight, Agents: mix[i]})
	}
	for _, goal := range w.goals {
		res.Run.Goals = append(res.Run.Goals, goal.name)
		for _, c := range goal.classes {
			res.Classes = append(res.Classes, report.ClassInfo{Goal: goal.name, Class: c.name, Severity: c.severity})
		}
	}
	for _, c := range g.counts {
		res.Counts = append(res.Counts, *c)
	}
	for _, p := range g.paired {
		res.Paired = append(res.Paired, *p)
	}
	for k, n := range g.invariants {
		res.Invariants = append(res.Invariants, report.InvariantCount{Name: k[0], Variant: k[1], N: n})
	}
	for _, f := range g.faults {
		res.Faults = append(res.Faults, *f)
	}
	for k, n := range g.confusions {
		res.Confusions = append(res.Confusions, report.Confusion{Goal: k[0], Variant: k[1], Meant: k[2], Called: k[3], N: n})
	}
	res.Traces = g.traces
	res.Flipped = g.flips
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
	seconds := math.Round(float64(g.episodes)/4000*1000+float64(shardIndex)*10) / 1000
	t := &report.Timing{
		Started:    fmt.Sprintf("2026-03-01T12:00:%02dZ", shardIndex),
		Seconds:    seconds,
		Workers:    8,
		GOMAXPROCS: 8,
		Host:       host,
	}
	if seconds > 0 {
		t.EpisodesPerSec = float64(g.episodes) / seconds
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
