package calibrate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report/stats"
)

// Config is one calibration: the agent's episodes and the personas to
// explain them with.
type Config struct {
	World *engine.World
	File  *File
	// Descriptions are the run's own tool texts (variant → tool → text),
	// read from Header.Descriptions by the caller; nil when none.
	Descriptions map[string]map[string]string
	Personas     []*personas.Persona
	// Samples is how many episodes each persona plays per goal and
	// variant to estimate its outcome distribution (default 400).
	Samples int
	// Seed seeds the personas' sample episodes and the bootstrap
	// (default: the run's seed). The same inputs and seed give the same
	// report.
	Seed uint64
	// Reps is the bootstrap's replicates (default 200).
	Reps    int
	Workers int // default GOMAXPROCS
}

// Defaults and limits.
const (
	DefaultSamples = 2000
	MaxSamples     = 100_000
	DefaultReps    = 200
	MaxReps        = 10_000
	// FitAlpha is the goodness-of-fit test's level: below it, no mix of
	// the personas explains the agent's outcomes.
	FitAlpha = 0.01
)

// Report is a calibration's result.
type Report struct {
	Header   Header   `json:"run"`
	Personas []string `json:"personas"`
	Samples  int      `json:"samples_per_cell"`
	Seed     uint64   `json:"seed"`
	Cells    []Cell   `json:"cells"`
	Mix      []Share  `json:"mix"`
	Fit      Fit      `json:"fit"`
	// Agreement is first-choice agreement with the agent on its own
	// episodes (same goal target, same agent seed), per persona and for
	// the fitted mix.
	Agreement    []Agreement `json:"agreement"`
	MixAgreement Agreement   `json:"mix_agreement"`
	Effects      []Effect    `json:"effects"`
}

// Cell is one goal × variant: the agent's outcome shares beside each
// persona's and the fitted mix's.
type Cell struct {
	Goal     string      `json:"goal"`
	Variant  string      `json:"variant"`
	N        int         `json:"n"` // the agent's episodes
	Classes  []string    `json:"classes"`
	Severity []string    `json:"severity"`
	Agent    []float64   `json:"agent"`
	Personas [][]float64 `json:"personas"` // per persona, per class
	Fitted   []float64   `json:"fitted"`
}

// Share is one persona's weight in the fitted mix, with its bootstrap
// interval.
type Share struct {
	Persona string  `json:"persona"`
	Weight  float64 `json:"weight"`
	Lo      float64 `json:"lo"`
	Hi      float64 `json:"hi"`
}

// Fit is the goodness-of-fit test of the fitted mix: the likelihood-ratio
// statistic G and its p-value by parametric bootstrap (the agent's
// outcomes and the personas' samples both redrawn from the fitted model,
// so the personas' own sampling noise is allowed for).
type Fit struct {
	G     float64 `json:"g"`
	P     float64 `json:"p"`
	Reps  int     `json:"reps"`
	Fits  bool    `json:"fits"` // P ≥ FitAlpha
	Alpha float64 `json:"alpha"`
}

// Agreement is Cohen's κ of first choices (the first write tool, or none)
// on the agent's episodes, and the raw agreement.
type Agreement struct {
	Persona  string  `json:"persona"`
	Kappa    float64 `json:"kappa"`
	Observed float64 `json:"observed"`
}

// Effect is a variant's effect on a goal's harmful rate, for the agent
// (paired over its agents) and as the fitted mix predicts it.
type Effect struct {
	Goal          string         `json:"goal"`
	From          string         `json:"from"`
	To            string         `json:"to"`
	Agent         float64        `json:"agent"`
	AgentCI       stats.Interval `json:"agent_ci"`
	Mix           float64        `json:"mix"`
	MixCI         stats.Interval `json:"mix_ci"`
	SameDirection bool           `json:"same_direction"`
	Overlap       bool           `json:"overlap"`
}

type cellKey struct{ goal, variant string }

// Run calibrates the personas against the agent's episodes. It plays
// Samples episodes per persona, goal and variant, and each persona once
// more on every one of the agent's episodes (for κ).
func Run(ctx context.Context, cfg Config) (*Report, error) {
	if cfg.World == nil || cfg.File == nil || len(cfg.Personas) == 0 {
		return nil, errors.New("calibrate: needs a world, episodes and personas")
	}
	h := cfg.File.Header
	if cfg.Samples == 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.Reps == 0 {
		cfg.Reps = DefaultReps
	}
	if cfg.Samples < 10 || cfg.Samples > MaxSamples {
		return nil, fmt.Errorf("calibrate: Samples %d, want 10 to %d", cfg.Samples, MaxSamples)
	}
	if cfg.Reps < 20 || cfg.Reps > MaxReps {
		return nil, fmt.Errorf("calibrate: Reps %d, want 20 to %d", cfg.Reps, MaxReps)
	}
	if cfg.Seed == 0 {
		cfg.Seed = h.Seed
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	w := cfg.World
	base, err := w.Seed(h.Seed)
	if err != nil {
		return nil, fmt.Errorf("calibrate: world %s at seed %d: %w", w.Name, h.Seed, err)
	}
	profile, err := w.FindProfile(h.Faults)
	if err != nil {
		return nil, fmt.Errorf("calibrate: %w", err)
	}
	models := map[string]*personas.Model{}
	for _, v := range h.Variants {
		readAs := v
		if !w.HasVariant(v) {
			if cfg.Descriptions[v] == nil {
				return nil, fmt.Errorf("calibrate: world %s has no variant %q and no descriptions for it", w.Name, v)
			}
			readAs = w.DefaultVariant()
		}
		m, err := personas.NewModelWith(w, readAs, cfg.Descriptions[v])
		if err != nil {
			return nil, err
		}
		models[v] = m
	}
	// The cells, in the run's goal and variant order.
	var cells []cellKey
	index := map[cellKey]int{}
	seen := map[cellKey]bool{}
	for _, e := range cfg.File.Episodes {
		if w.Goal(e.Goal) == nil {
			return nil, fmt.Errorf("calibrate: episode of agent %d: world %s has no goal %q", e.Agent, w.Name, e.Goal)
		}
		seen[cellKey{e.Goal, e.Variant}] = true
	}
	for _, g := range w.Goals {
		for _, v := range h.Variants {
			if k := (cellKey{g.Name, v}); seen[k] {
				index[k] = len(cells)
				cells = append(cells, k)
			}
		}
	}

	c := &calibration{cfg: cfg, w: w, base: base, profile: profile, models: models, cells: cells, index: index}
	if err := c.play(ctx); err != nil {
		return nil, err
	}
	return c.report(), nil
}

// calibration is one Run's working state.
type calibration struct {
	cfg     Config
	w       *engine.World
	base    *engine.Base
	profile *engine.FaultProfile
	models  map[string]*personas.Model
	cells   []cellKey
	index   map[cellKey]int

	classes [][]string // per cell: the outcome classes, for display
	// cats are what the mix is fitted on, per cell: outcome class × first
	// choice (the first write tool, or none). Personas that end alike may
	// choose differently, and the choice tells them apart.
	cats     [][]string          // per cell: class + "\x00" + first choice
	catClass [][]int             // per cell, category: its class's index in classes
	severity []map[string]string // per cell: class → severity
	agent    counts              // per cell, class
	samples  []counts            // per persona, cell, class
	paired   [][]string          // per persona, per agent episode: first choice
	// For the bootstrap, the units that were drawn: an agent (its
	// episodes under every variant, which share its goal target) and a
	// sample seed (every persona's and variant's episode on it, which
	// share a target too). Resampling whole units keeps what they share.
	agents    []agentUnit
	sampleCls [][][]int // per persona, cell, sample: class index
	goalCells [][]int   // per goal (in cell order), its cells
	cellGoal  []int     // per cell, its goal's index in goalCells
}

// agentUnit is one agent's episodes: their cells and classes.
type agentUnit struct {
	goal    int
	cells   []int
	classes []int
}

// outcome is one persona episode's result, as calibration needs it.
type outcome struct {
	class, severity, first string
}

func (c *calibration) run(p *personas.Persona, goal, variant string, seed uint64) (outcome, error) {
	o, err := c.models[variant].Run(personas.Episode{Base: c.base, Profile: c.profile, Persona: p, Goal: c.w.Goal(goal), Seed: seed})
	if err != nil {
		return outcome{}, err
	}
	return outcome{o.Class, string(o.Severity), o.Called}, nil
}

// sampleSeed is the seed of persona sample k: the same for every persona
// and variant, so that personas and variants are compared on the same
// goal targets.
func (c *calibration) sampleSeed(k int) uint64 {
	return entropy.Mix(c.cfg.Seed^0x63616c6962726174, uint64(k))
}

// play runs the personas' samples and paired reruns on the workers.
func (c *calibration) play(ctx context.Context) error {
	P, S := len(c.cfg.Personas), c.cfg.Samples
	eps := c.cfg.File.Episodes
	sampled := make([][][]outcome, P) // persona, cell, sample
	for p := range sampled {
		sampled[p] = make([][]outcome, len(c.cells))
		for ci := range c.cells {
			sampled[p][ci] = make([]outcome, S)
		}
	}
	c.paired = make([][]string, P)
	for p := range c.paired {
		c.paired[p] = make([]string, len(eps))
	}
	type job struct{ p, ci, k, e int } // e ≥ 0: a paired rerun of episode e
	jobs := make(chan job, 256)
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	for range c.cfg.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				if ctx.Err() != nil {
					continue
				}
				per := c.cfg.Personas[j.p]
				var (
					o   outcome
					err error
				)
				if j.e >= 0 {
					e := eps[j.e]
					o, err = c.run(per, e.Goal, e.Variant, e.Seed)
					c.paired[j.p][j.e] = o.first
				} else {
					k := c.cells[j.ci]
					o, err = c.run(per, k.goal, k.variant, c.sampleSeed(j.k))
					sampled[j.p][j.ci][j.k] = o
				}
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for p := range P {
		for ci := range c.cells {
			for k := range S {
				jobs <- job{p, ci, k, -1}
			}
		}
		for e := range eps {
			jobs <- job{p, 0, 0, e}
		}
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	if first != nil {
		return fmt.Errorf("calibrate: %w", first)
	}
	// Classes per cell: the goal's declared order, then any other class
	// seen (invariants), sorted.
	c.classes = make([][]string, len(c.cells))
	c.severity = make([]map[string]string, len(c.cells))
	for ci, k := range c.cells {
		sev := map[string]string{}
		for _, oc := range c.w.Goal(k.goal).Outcomes {
			sev[oc.Class] = string(oc.Severity)
		}
		present := map[string]bool{}
		for _, e := range eps {
			if e.Goal == k.goal && e.Variant == k.variant {
				present[e.Class] = true
				sev[e.Class] = e.Severity
			}
		}
		for p := range P {
			for _, o := range sampled[p][ci] {
				present[o.class] = true
				sev[o.class] = o.severity
			}
		}
		var cls []string
		for _, oc := range c.w.Goal(k.goal).Outcomes {
			if present[oc.Class] {
				cls = append(cls, oc.Class)
				delete(present, oc.Class)
			}
		}
		rest := make([]string, 0, len(present))
		for cl := range present {
			rest = append(rest, cl)
		}
		slices.Sort(rest)
		c.classes[ci] = append(cls, rest...)
		c.severity[ci] = sev
	}
	c.cats = make([][]string, len(c.cells))
	c.catClass = make([][]int, len(c.cells))
	for ci, k := range c.cells {
		set := map[string]bool{}
		for _, e := range eps {
			if e.Goal == k.goal && e.Variant == k.variant {
				set[catKey(e.Class, e.First)] = true
			}
		}
		for p := range P {
			for _, o := range sampled[p][ci] {
				set[catKey(o.class, o.first)] = true
			}
		}
		cats := make([]string, 0, len(set))
		for x := range set {
			cats = append(cats, x)
		}
		order := func(x string) int { cl, _, _ := strings.Cut(x, "\x00"); return slices.Index(c.classes[ci], cl) }
		slices.SortFunc(cats, func(a, b string) int { return cmp.Or(cmp.Compare(order(a), order(b)), strings.Compare(a, b)) })
		c.cats[ci] = cats
		for _, x := range cats {
			c.catClass[ci] = append(c.catClass[ci], order(x))
		}
	}
	classIdx := func(ci int, class, first string) int { return slices.Index(c.cats[ci], catKey(class, first)) }
	c.agent = make(counts, len(c.cells))
	for ci := range c.cells {
		c.agent[ci] = make([]float64, len(c.cats[ci]))
	}
	for _, e := range eps {
		ci := c.index[cellKey{e.Goal, e.Variant}]
		c.agent[ci][classIdx(ci, e.Class, e.First)]++
	}
	c.samples = make([]counts, P)
	c.sampleCls = make([][][]int, P)
	for p := range P {
		c.samples[p] = make(counts, len(c.cells))
		c.sampleCls[p] = make([][]int, len(c.cells))
		for ci := range c.cells {
			c.samples[p][ci] = make([]float64, len(c.cats[ci]))
			c.sampleCls[p][ci] = make([]int, S)
			for k, o := range sampled[p][ci] {
				x := classIdx(ci, o.class, o.first)
				c.samples[p][ci][x]++
				c.sampleCls[p][ci][k] = x
			}
		}
	}
	goalIdx := map[string]int{}
	c.cellGoal = make([]int, len(c.cells))
	for ci, k := range c.cells {
		gi, ok := goalIdx[k.goal]
		if !ok {
			gi = len(c.goalCells)
			goalIdx[k.goal] = gi
			c.goalCells = append(c.goalCells, nil)
		}
		c.goalCells[gi] = append(c.goalCells[gi], ci)
		c.cellGoal[ci] = gi
	}
	byAgent := map[int]int{}
	for _, e := range eps {
		ci := c.index[cellKey{e.Goal, e.Variant}]
		ai, ok := byAgent[e.Agent]
		if !ok {
			ai = len(c.agents)
			byAgent[e.Agent] = ai
			c.agents = append(c.agents, agentUnit{goal: c.cellGoal[ci]})
		}
		u := &c.agents[ai]
		u.cells = append(u.cells, ci)
		u.classes = append(u.classes, classIdx(ci, e.Class, e.First))
	}
	return nil
}

// harmfulShare is the share of harmful classes in a cell's row.
func (c *calibration) harmfulShare(ci int, row []float64) float64 {
	n, h := total(row), 0.0
	for k, x := range row {
		if c.severity[ci][c.classes[ci][c.catClass[ci][k]]] == string(engine.SeverityHarmful) {
			h += x
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return h / n
}

func (c *calibration) report() *Report {
	cfg := c.cfg
	P := len(cfg.Personas)
	r := &Report{Header: cfg.File.Header, Samples: cfg.Samples, Seed: cfg.Seed}
	for _, p := range cfg.Personas {
		r.Personas = append(r.Personas, p.Name)
	}
	q := make([]counts, P)
	for p := range P {
		q[p] = probs(c.samples[p])
	}
	w := fitMix(c.agent, q)
	m := mixture(w, q)
	for ci, k := range c.cells {
		cell := Cell{Goal: k.goal, Variant: k.variant, N: int(total(c.agent[ci])), Classes: c.classes[ci]}
		for _, cl := range c.classes[ci] {
			cell.Severity = append(cell.Severity, c.severity[ci][cl])
		}
		cell.Agent = shares(c.byClass(ci, c.agent[ci]))
		for p := range P {
			cell.Personas = append(cell.Personas, shares(c.byClass(ci, c.samples[p][ci])))
		}
		cell.Fitted = roundAll(c.byClass(ci, m[ci]))
		r.Cells = append(r.Cells, cell)
	}

	// Bootstrap: the weights' intervals and the mix's predicted effects
	// (agent episodes and persona samples resampled), and the fit's p
	// (both redrawn from the fitted model).
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x626f6f74))
	g := gStat(c.agent, m)
	ws := make([][]float64, P)
	effects := c.effectPairs()
	mixDeltas := make([][]float64, len(effects))
	exceed := 0
	for range cfg.Reps {
		ra := c.resampleAgents(rng)
		rs := c.resampleSamples(rng)
		rq := make([]counts, P)
		for p := range P {
			rq[p] = probs(rs[p])
		}
		wb := fitMix(ra, rq)
		for p := range P {
			ws[p] = append(ws[p], wb[p])
		}
		for i, ef := range effects {
			mixDeltas[i] = append(mixDeltas[i], c.mixDelta(wb, rs, ef))
		}
		// Goodness of fit: agents drawn from the fitted mix (each a
		// persona, its episodes a persona sample's, whole), samples
		// resampled, the mix fitted again.
		sa := c.simulateAgents(rng, w)
		ss := c.resampleSamples(rng)
		sq := make([]counts, P)
		for p := range P {
			sq[p] = probs(ss[p])
		}
		if gStat(sa, mixture(fitMix(sa, sq), sq)) >= g {
			exceed++
		}
	}
	for p := range P {
		r.Mix = append(r.Mix, Share{Persona: r.Personas[p], Weight: round(w[p]),
			Lo: round(percentile(ws[p], 0.025)), Hi: round(percentile(ws[p], 0.975))})
	}
	pv := float64(exceed+1) / float64(cfg.Reps+1)
	r.Fit = Fit{G: round(g), P: round(pv), Reps: cfg.Reps, Fits: pv >= FitAlpha, Alpha: FitAlpha}

	// First choices on the agent's own episodes.
	firsts := make([]string, len(cfg.File.Episodes))
	for i, e := range cfg.File.Episodes {
		firsts[i] = choiceLabel(e.First)
	}
	po, pe := 0.0, 0.0
	agentMarg := map[string]float64{}
	for _, f := range firsts {
		agentMarg[f]++
	}
	mixMarg := map[string]float64{}
	for p := range P {
		labels := make([]string, len(firsts))
		for i, f := range c.paired[p] {
			labels[i] = choiceLabel(f)
			mixMarg[labels[i]] += w[p]
		}
		k, obs := kappa(firsts, labels)
		r.Agreement = append(r.Agreement, Agreement{Persona: r.Personas[p], Kappa: round(k), Observed: round(obs)})
		po += w[p] * obs
	}
	n := float64(len(firsts))
	for l, x := range agentMarg {
		pe += (x / n) * (mixMarg[l] / n)
	}
	mk := 1.0
	if pe < 1 {
		mk = (po - pe) / (1 - pe)
	}
	r.MixAgreement = Agreement{Persona: "fitted mix", Kappa: round(mk), Observed: round(po)}

	for i, ef := range effects {
		e := c.agentEffect(ef)
		e.Mix = round(c.mixDelta(w, c.samples, ef))
		e.MixCI = stats.Interval{Lo: round(percentile(mixDeltas[i], 0.025)), Hi: round(percentile(mixDeltas[i], 0.975))}
		decided := e.AgentCI.Lo > 0 || e.AgentCI.Hi < 0
		e.SameDirection = !decided || math.Signbit(e.Agent) == math.Signbit(e.Mix) && e.Mix != 0
		e.Overlap = e.AgentCI.Lo <= e.MixCI.Hi && e.MixCI.Lo <= e.AgentCI.Hi
		r.Effects = append(r.Effects, e)
	}
	return r
}

// effectPair is a goal's cells under the run's first variant and another.
type effectPair struct {
	goal     string
	from, to int // cell indices
}

func (c *calibration) effectPairs() []effectPair {
	vs := c.cfg.File.Header.Variants
	var out []effectPair
	if len(vs) < 2 {
		return nil
	}
	for _, g := range c.w.Goals {
		a, ok := c.index[cellKey{g.Name, vs[0]}]
		if !ok {
			continue
		}
		for _, v := range vs[1:] {
			if b, ok := c.index[cellKey{g.Name, v}]; ok {
				out = append(out, effectPair{g.Name, a, b})
			}
		}
	}
	return out
}

// mixDelta is the harmful rate's change from one cell to the other that
// the mix w predicts from the personas' samples s.
func (c *calibration) mixDelta(w []float64, s []counts, ef effectPair) float64 {
	d := 0.0
	for p := range w {
		d += w[p] * (c.harmfulShare(ef.to, s[p][ef.to]) - c.harmfulShare(ef.from, s[p][ef.from]))
	}
	return d
}

// agentEffect is the agent's change in harmful rate between the two
// variants, paired over the agents that played both (Newcombe's interval).
func (c *calibration) agentEffect(ef effectPair) Effect {
	from, to := c.cells[ef.from], c.cells[ef.to]
	type pair struct{ a, b, hasA, hasB bool }
	byAgent := map[int]*pair{}
	for _, e := range c.cfg.File.Episodes {
		if e.Goal != ef.goal {
			continue
		}
		harm := e.Severity == string(engine.SeverityHarmful)
		pr := byAgent[e.Agent]
		if pr == nil {
			pr = &pair{}
			byAgent[e.Agent] = pr
		}
		switch e.Variant {
		case from.variant:
			pr.a, pr.hasA = harm, true
		case to.variant:
			pr.b, pr.hasB = harm, true
		}
	}
	var t stats.PairedTable
	for _, pr := range byAgent {
		if !pr.hasA || !pr.hasB {
			continue
		}
		switch {
		case pr.a && pr.b:
			t.Both++
		case pr.a:
			t.OnlyA++
		case pr.b:
			t.OnlyB++
		default:
			t.Neither++
		}
	}
	d, ci := stats.PairedDiff(t, 0.95)
	return Effect{Goal: ef.goal, From: from.variant, To: to.variant, Agent: round(d),
		AgentCI: stats.Interval{Lo: round(ci.Lo), Hi: round(ci.Hi)}}
}

// choiceLabel is a first choice as κ rates it.
func choiceLabel(first string) string {
	if first == "" {
		return "(no write)"
	}
	return first
}

func shares(row []float64) []float64 {
	n := total(row)
	out := make([]float64, len(row))
	for k, x := range row {
		if n > 0 {
			out[k] = round(x / n)
		}
	}
	return out
}

func roundAll(xs []float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = round(x)
	}
	return out
}

// round keeps six decimals: the report's figures are for reading and
// comparing, and rounding makes them the same bytes on every machine.
func round(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return math.Round(x*1e6) / 1e6
}

// emptyCounts is a zero table shaped like the cells' classes.
func (c *calibration) emptyCounts() counts {
	out := make(counts, len(c.cells))
	for ci := range c.cells {
		out[ci] = make([]float64, len(c.cats[ci]))
	}
	return out
}

// resampleAgents draws the agents with replacement and counts their
// episodes.
func (c *calibration) resampleAgents(r *rand.Rand) counts {
	out := c.emptyCounts()
	for range c.agents {
		u := &c.agents[r.IntN(len(c.agents))]
		for i, ci := range u.cells {
			out[ci][u.classes[i]]++
		}
	}
	return out
}

// resampleSamples draws, per goal, the sample seeds with replacement, the
// same draw for every persona and variant, and counts the personas'
// episodes on them.
func (c *calibration) resampleSamples(r *rand.Rand) []counts {
	P, S := len(c.sampleCls), c.cfg.Samples
	out := make([]counts, P)
	for p := range P {
		out[p] = c.emptyCounts()
	}
	for _, cells := range c.goalCells {
		for range S {
			k := r.IntN(S)
			for p := range P {
				for _, ci := range cells {
					out[p][ci][c.sampleCls[p][ci][k]]++
				}
			}
		}
	}
	return out
}

// simulateAgents is agents like the real ones (same goals and variants)
// drawn from mix w: each a persona by its weight, playing one of that
// persona's sample seeds, whole.
func (c *calibration) simulateAgents(r *rand.Rand, w []float64) counts {
	out := c.emptyCounts()
	cdf := make([]float64, len(w))
	acc := 0.0
	for p, x := range w {
		acc += x
		cdf[p] = acc
	}
	for _, u := range c.agents {
		x, p := r.Float64()*acc, 0
		for p < len(cdf)-1 && x >= cdf[p] {
			p++
		}
		k := r.IntN(c.cfg.Samples)
		for _, ci := range u.cells {
			out[ci][c.sampleCls[p][ci][k]]++
		}
	}
	return out
}

// catKey is a fitting category: an outcome class and a first choice.
func catKey(class, first string) string { return class + "\x00" + first }

// byClass sums a cell's row of categories into its classes.
func (c *calibration) byClass(ci int, row []float64) []float64 {
	out := make([]float64, len(c.classes[ci]))
	for k, x := range row {
		out[c.catClass[ci][k]] += x
	}
	return out
}
