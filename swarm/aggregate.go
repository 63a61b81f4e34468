package swarm

import (
	"fmt"
	"slices"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
)

// layout is the shape every aggregator of a run shares: the index spaces of
// goals, personas, variants, outcome classes, tools, invariants and fault
// kinds, by name. It is built once per run and read by every worker.
type layout struct {
	goals      []string
	personas   []string
	variants   []string
	classes    [][]classInfo    // per goal: its outcome classes, then invariant:NAME
	classIdx   []map[string]int // per goal: class → index
	pairs      [][2]int         // variant pairs (a < b)
	tools      []string         // world order
	toolIdx    map[string]int
	invariants []string
	kinds      []string // fault kinds, sorted
	kindIdx    map[string]int
	meant      []int // per goal: the meant tool's index, -1 when none
	// trace is the results' trace of r's episode under variant v, for the
	// sample; flipReplay the command that replays an agent whose outcome
	// flipped from variant a to variant b.
	trace      func(r *AgentResult, v int) (report.Trace, error)
	flipReplay func(agent int, a, b string) string
}

type classInfo struct {
	name     string
	severity engine.Severity
}

// severityRows are the extra paired rows per goal: any outcome of a severity.
var severityRows = []engine.Severity{engine.SeverityHarmful, engine.SeverityFailed, engine.SeverityOK}

// newWorldLayout is the layout of a run on world w.
func newWorldLayout(w *engine.World, goals []*engine.Goal, ps []*personas.Persona, variants []string, meant []string) *layout {
	l := &layout{variants: variants, toolIdx: map[string]int{}, kindIdx: map[string]int{}}
	for _, p := range ps {
		l.personas = append(l.personas, p.Name)
	}
	for i, t := range w.Tools {
		l.tools = append(l.tools, t.Name)
		l.toolIdx[t.Name] = i
	}
	for _, inv := range w.Invariants {
		l.invariants = append(l.invariants, inv.Name)
	}
	for gi, g := range goals {
		l.goals = append(l.goals, g.Name)
		var cs []classInfo
		for _, oc := range g.Outcomes {
			cs = append(cs, classInfo{oc.Class, oc.Severity})
		}
		for _, inv := range w.Invariants {
			cs = append(cs, classInfo{"invariant:" + inv.Name, engine.SeverityHarmful})
		}
		l.addGoalClasses(cs)
		m := -1
		if ti, ok := l.toolIdx[meant[gi]]; ok {
			m = ti
		}
		l.meant = append(l.meant, m)
	}
	kinds := map[string]bool{engine.CodeRateLimited: true, engine.CodeTimeout: true}
	for _, p := range w.Profiles {
		for _, t := range w.Tools {
			if tf := p.For(t); tf != nil {
				for _, e := range tf.Errors {
					kinds[e.Kind] = true
				}
			}
		}
	}
	for k := range kinds {
		l.kinds = append(l.kinds, k)
	}
	slices.Sort(l.kinds)
	for i, k := range l.kinds {
		l.kindIdx[k] = i
	}
	l.addPairs()
	return l
}

func (l *layout) addGoalClasses(cs []classInfo) {
	idx := make(map[string]int, len(cs))
	for i, c := range cs {
		idx[c.name] = i
	}
	l.classes = append(l.classes, cs)
	l.classIdx = append(l.classIdx, idx)
}

func (l *layout) addPairs() {
	for a := range l.variants {
		for b := a + 1; b < len(l.variants); b++ {
			l.pairs = append(l.pairs, [2]int{a, b})
		}
	}
}

// Aggregator accumulates episode outcomes into counts. Its memory depends on
// the world and the mix, never on the number of agents: dense counters plus
// bounded samples. Aggregators of one run merge exactly (Merge).
type Aggregator struct {
	l *layout

	episodes   int
	counts     []int // [goal][persona][variant][class], classes padded to maxClasses
	maxClasses int
	paired     []int // [goal][pair][class+severity rows][4]
	invariants []int // [variant][invariant]
	faults     []int // [variant][tool][kind][3]: injected, recovered, duplicated
	confusions []int // [goal][variant][tool]
	traces     []report.Trace
	flips      []report.Flip
	traceMax   []sampleState // [goal][variant][class]
	flipMax    []sampleState // [goal][pair]
	agents     []int         // per persona: agents counted
	// trials counts each task's episodes and ok ones (pass^k): bounded
	// by the world's targets × personas × goals × variants, not by agents.
	trials map[trialKey]*[2]int
}

// trialKey is one task: a goal, a persona, a variant and a target.
type trialKey struct {
	goal, persona, variant int
	target                 string
}

// sampleState is how many agents one bounded sample (the traces of a goal ×
// variant × class, the flips of a goal × pair) has taken and the highest
// among them, to decide cheaply whether a new agent qualifies. The sample
// keeps its lowest agents, so once it is full an agent above all it took
// can never enter it.
type sampleState struct {
	n        int
	maxAgent int
}

// wants reports whether agent could enter a sample that keeps limit agents.
func (s sampleState) wants(agent, limit int) bool { return s.n < limit || agent < s.maxAgent }

// took records that agent entered the sample.
func (s *sampleState) took(agent int) {
	s.n++
	s.maxAgent = max(s.maxAgent, agent)
}

func newAggregator(l *layout) *Aggregator {
	a := &Aggregator{l: l}
	for _, cs := range l.classes {
		a.maxClasses = max(a.maxClasses, len(cs))
	}
	G, P, V, T, K := len(l.goals), len(l.personas), len(l.variants), len(l.tools), len(l.kinds)
	a.counts = make([]int, G*P*V*a.maxClasses)
	a.paired = make([]int, G*max(len(l.pairs), 1)*(a.maxClasses+len(severityRows))*4)
	a.invariants = make([]int, V*max(len(l.invariants), 1))
	a.faults = make([]int, V*T*max(K, 1)*3)
	a.confusions = make([]int, G*V*T)
	a.traceMax = make([]sampleState, G*V*a.maxClasses)
	a.flipMax = make([]sampleState, G*max(len(l.pairs), 1))
	a.agents = make([]int, P)
	return a
}

// AgentResult is one agent's episodes, one outcome per variant of the run:
// what the run loop hands the aggregator.
type AgentResult struct {
	Index    int    // the agent's index in the run
	Seed     uint64 // its seed (AgentSeed)
	Persona  int    // index into the run's personas
	Goal     int    // index into the run's goals
	Outcomes []personas.Outcome
	classes  []int // per variant: class index
}

func (a *Aggregator) countIdx(g, p, v, c int) int {
	l := a.l
	return ((g*len(l.personas)+p)*len(l.variants)+v)*a.maxClasses + c
}

// classify resolves the outcome classes of r to indices.
func (a *Aggregator) classify(r *AgentResult) error {
	r.classes = r.classes[:0]
	for v, o := range r.Outcomes {
		ci, ok := a.l.classIdx[r.Goal][o.Class]
		if !ok {
			return fmt.Errorf("agent %d: goal %s variant %s: unknown outcome class %q", r.Index, a.l.goals[r.Goal], a.l.variants[v], o.Class)
		}
		r.classes = append(r.classes, ci)
	}
	return nil
}

// Add counts one agent's episodes, and samples their traces and the
// variants they flipped between. Aggregators of one run merge exactly
// (Merge), so each worker keeps its own.
func (a *Aggregator) Add(r *AgentResult) error {
	if err := a.classify(r); err != nil {
		return err
	}
	a.count(r)
	l := a.l
	for v := range r.Outcomes {
		if a.wantsTrace(r.Goal, v, r.classes[v], r.Index) {
			t, err := l.trace(r, v)
			if err != nil {
				return err
			}
			a.addTrace(r.Goal, v, r.classes[v], t)
		}
	}
	for pairIdx, pr := range l.pairs {
		if r.classes[pr[0]] != r.classes[pr[1]] && a.wantsFlip(r.Goal, pairIdx, r.Index) {
			va, vb := l.variants[pr[0]], l.variants[pr[1]]
			a.addFlip(r.Goal, pairIdx, report.Flip{
				Agent: r.Index, Goal: l.goals[r.Goal], Persona: l.personas[r.Persona],
				From:   map[string]string{va: r.Outcomes[pr[0]].Class},
				To:     map[string]string{vb: r.Outcomes[pr[1]].Class},
				Replay: l.flipReplay(r.Index, va, vb),
			})
		}
	}
	return nil
}

// count counts one agent's outcomes (classify first).
func (a *Aggregator) count(r *AgentResult) {
	l := a.l
	a.agents[r.Persona]++
	a.episodes += len(r.Outcomes)
	for v, o := range r.Outcomes {
		if o.Target != "" {
			a.addTrial(trialKey{r.Goal, r.Persona, v, o.Target}, 1, boolInt(o.Severity == engine.SeverityOK))
		}
		a.counts[a.countIdx(r.Goal, r.Persona, v, r.classes[v])]++
		for _, viol := range o.Violations {
			for ii, inv := range l.invariants {
				if inv == viol.Invariant {
					a.invariants[v*len(l.invariants)+ii]++
				}
			}
		}
		a.addFaults(v, &o)
		if o.Called != "" {
			if ti, ok := l.toolIdx[o.Called]; ok && ti != l.meant[r.Goal] {
				a.confusions[(r.Goal*len(l.variants)+v)*len(l.tools)+ti]++
			}
		}
	}
	nc := a.maxClasses + len(severityRows)
	for pi, pr := range l.pairs {
		ca, cb := r.classes[pr[0]], r.classes[pr[1]]
		base := (r.Goal*len(l.pairs) + pi) * nc * 4
		for c := 0; c < len(l.classes[r.Goal]); c++ {
			a.paired[base+c*4+pairCell(ca == c, cb == c)]++
		}
		sa, sb := l.classes[r.Goal][ca].severity, l.classes[r.Goal][cb].severity
		for si, sev := range severityRows {
			a.paired[base+(a.maxClasses+si)*4+pairCell(sa == sev, sb == sev)]++
		}
	}
}

// pairCell maps (in A, in B) to the Both, OnlyA, OnlyB, Neither cell.
func pairCell(inA, inB bool) int {
	switch {
	case inA && inB:
		return 0
	case inA:
		return 1
	case inB:
		return 2
	}
	return 3
}

// addFaults tallies the faults an episode met. Recovered and duplicated
// are per episode, attributed to each distinct (tool, kind) it met.
func (a *Aggregator) addFaults(v int, o *personas.Outcome) {
	l := a.l
	if len(o.Faults) == 0 {
		return
	}
	K := max(len(l.kinds), 1)
	// The cells this episode has already met. An episode meets a handful of
	// faults, so a scan of a stack array does what a map would without an
	// allocation per episode (this runs for every episode of a run).
	var seenCells [8]int
	seen := seenCells[:0]
	for _, f := range o.Faults {
		ti, ok1 := l.toolIdx[f.Tool]
		ki, ok2 := l.kindIdx[f.Kind]
		if !ok1 || !ok2 {
			continue
		}
		base := ((v*len(l.tools)+ti)*K + ki) * 3
		a.faults[base]++
		if slices.Contains(seen, base) {
			continue
		}
		seen = append(seen, base)
		if o.Recovered {
			a.faults[base+1]++
		}
		if o.Duplicated > 0 && (f.Kind == engine.FaultTimeoutAfterCommit || f.Kind == engine.CodeTimeout) {
			a.faults[base+2] += o.Duplicated
		}
	}
}

// wantsTrace reports whether agent would enter the trace sample of
// goal × variant × class.
func (a *Aggregator) wantsTrace(goal, variant, class, agent int) bool {
	return a.traceMax[a.traceIdx(goal, variant, class)].wants(agent, report.TracesPerClass)
}

func (a *Aggregator) traceIdx(goal, variant, class int) int {
	return (goal*len(a.l.variants)+variant)*a.maxClasses + class
}

func (a *Aggregator) addTrace(goal, variant, class int, t report.Trace) {
	a.traces = append(a.traces, t)
	a.traceMax[a.traceIdx(goal, variant, class)].took(t.Agent)
	if len(a.traces) > 4*report.TracesPerClass*len(a.traceMax) {
		a.compactTraces()
	}
}

// compactTraces cuts the trace sample back to its bound, keeping memory
// flat however many agents a worker sees.
func (a *Aggregator) compactTraces() {
	r := report.Results{Traces: a.traces}
	r.Normalize()
	a.traces = r.Traces
}

func (a *Aggregator) wantsFlip(goal, pair, agent int) bool {
	return a.flipMax[goal*len(a.l.pairs)+pair].wants(agent, report.FlipsPerPair)
}

func (a *Aggregator) addFlip(goal, pair int, f report.Flip) {
	a.flips = append(a.flips, f)
	a.flipMax[goal*len(a.l.pairs)+pair].took(f.Agent)
	if len(a.flips) > 4*report.FlipsPerPair*len(a.flipMax) {
		a.compactFlips()
	}
}

// compactFlips cuts the flipped-agent sample back to its bound.
func (a *Aggregator) compactFlips() {
	r := report.Results{Flipped: a.flips}
	r.Normalize()
	a.flips = r.Flipped
}

// Merge adds another aggregator of the same run into a.
func (a *Aggregator) Merge(b *Aggregator) {
	a.episodes += b.episodes
	addInto(a.counts, b.counts)
	addInto(a.paired, b.paired)
	addInto(a.invariants, b.invariants)
	addInto(a.faults, b.faults)
	addInto(a.confusions, b.confusions)
	addInto(a.agents, b.agents)
	for k, c := range b.trials {
		a.addTrial(k, c[0], c[1])
	}
	a.traces = append(a.traces, b.traces...)
	a.flips = append(a.flips, b.flips...)
	a.compactTraces()
	a.compactFlips()
}

func addInto(dst, src []int) {
	for i, v := range src {
		dst[i] += v
	}
}

// Episodes returns how many episodes the aggregator has counted.
func (a *Aggregator) Episodes() int { return a.episodes }

// Agents returns how many agents of each persona (in the run's order) the
// aggregator has counted.
func (a *Aggregator) Agents() []int { return a.agents }

// fill writes the aggregator's sections into a results document.
func (a *Aggregator) fill(res *report.Results) {
	l := a.l
	res.Episodes = a.episodes
	res.Counts = res.Counts[:0]
	for g, goal := range l.goals {
		for _, c := range l.classes[g] {
			res.Classes = append(res.Classes, report.ClassInfo{Goal: goal, Class: c.name, Severity: string(c.severity)})
		}
		for p, ps := range l.personas {
			for v, variant := range l.variants {
				for c, ci := range l.classes[g] {
					if n := a.counts[a.countIdx(g, p, v, c)]; n > 0 {
						res.Counts = append(res.Counts, report.Count{Goal: goal, Persona: ps, Variant: variant, Class: ci.name, Severity: string(ci.severity), N: n})
					}
				}
			}
		}
		nc := a.maxClasses + len(severityRows)
		for pi, pr := range l.pairs {
			base := (g*len(l.pairs) + pi) * nc * 4
			row := func(class string, off int) {
				cell := a.paired[base+off*4 : base+off*4+4]
				if cell[0]+cell[1]+cell[2]+cell[3] == 0 {
					return
				}
				res.Paired = append(res.Paired, report.Paired{Goal: goal, Class: class, A: l.variants[pr[0]], B: l.variants[pr[1]],
					Both: cell[0], OnlyA: cell[1], OnlyB: cell[2], Neither: cell[3]})
			}
			for c, ci := range l.classes[g] {
				row(ci.name, c)
			}
			for si, sev := range severityRows {
				row(string(sev), a.maxClasses+si)
			}
		}
		for v, variant := range l.variants {
			for ti, t := range l.tools {
				if n := a.confusions[(g*len(l.variants)+v)*len(l.tools)+ti]; n > 0 {
					meant := ""
					if l.meant[g] >= 0 {
						meant = l.tools[l.meant[g]]
					}
					res.Confusions = append(res.Confusions, report.Confusion{Goal: goal, Variant: variant, Meant: meant, Called: t, N: n})
				}
			}
		}
	}
	for v, variant := range l.variants {
		for ii, inv := range l.invariants {
			if n := a.invariants[v*len(l.invariants)+ii]; n > 0 {
				res.Invariants = append(res.Invariants, report.InvariantCount{Name: inv, Variant: variant, N: n})
			}
		}
		K := max(len(l.kinds), 1)
		for ti, t := range l.tools {
			for ki, kind := range l.kinds {
				base := ((v*len(l.tools)+ti)*K + ki) * 3
				f := a.faults[base : base+3]
				if f[0]+f[1]+f[2] > 0 {
					res.Faults = append(res.Faults, report.FaultTally{Variant: variant, Tool: t, Kind: kind, Injected: f[0], Recovered: f[1], Duplicated: f[2]})
				}
			}
		}
	}
	res.Traces = append(res.Traces[:0], a.traces...)
	res.Flipped = append(res.Flipped[:0], a.flips...)
	res.Trials = res.Trials[:0]
	for k, c := range a.trials {
		res.Trials = append(res.Trials, report.Trial{Goal: l.goals[k.goal], Persona: l.personas[k.persona], Variant: l.variants[k.variant],
			Target: k.target, N: c[0], OK: c[1]})
	}
	res.Normalize() // sorts the trials: the map's order never shows
}

// addTrial counts n episodes, ok of them ok, of one task.
func (a *Aggregator) addTrial(k trialKey, n, ok int) {
	if a.trials == nil {
		a.trials = map[trialKey]*[2]int{}
	}
	c := a.trials[k]
	if c == nil {
		c = new([2]int)
		a.trials[k] = c
	}
	c[0] += n
	c[1] += ok
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
