// Package swarm runs a population of scripted-persona agents against a
// world and aggregates what they did into a results document. Agent i's
// seed, persona and goal are pure functions of (run seed, i), and an
// in-process episode is a pure function of its inputs, so the
// deterministic part of the results is byte-identical whatever the worker
// count or sharding.
package swarm

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/internal/version"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// MaxAgents is the default cap on --agents: a run that big takes minutes,
// and a typo (an extra zero) should be an error, not an hour.
const MaxAgents = 10_000_000

// MixEntry is one persona of the population with its weight.
type MixEntry struct {
	Persona *personas.Persona
	Weight  float64
}

// Shard selects the agents with i mod Count == Index.
type Shard struct {
	Index, Count int
}

// Config is one swarm run.
type Config struct {
	World    *engine.World
	WorldRef string // how the user named the world: "mock:crm" or a path
	Seed     uint64
	Agents   int
	Goals    []*engine.Goal // nil: every goal of the world
	Mix      []MixEntry
	Variants []string // nil: the world's first variant
	Profile  *engine.FaultProfile
	Workers  int   // 0: GOMAXPROCS
	Shard    Shard // zero: unsharded
	// Descriptions are the user's own tool descriptions: variant → tool →
	// text. A variant the world does not have reads the world's first
	// variant for the tools it does not describe.
	Descriptions map[string]map[string]string
	// Command is the reproducing command line, recorded in the results.
	Command string
	// MixFlag is the --mix value as the user gave it ("" for the default
	// mix), repeated in replay commands.
	MixFlag string
	// Progress, when set, is called from a single goroutine about every
	// ProgressEvery with the episodes finished so far and the total.
	Progress      func(done, total int)
	ProgressEvery time.Duration
	// Observer, when set, is told of every episode as it finishes. Episodes
	// are then run with tracing on, so that it sees every call; tracing
	// costs time, so it is off without an observer.
	Observer Observer

	// Targets, when set, are where the agents' calls go instead of
	// in-process sessions: a herd world served over MCP, one target per
	// variant (in Variants order; a served world shows one variant). Each
	// episode's end state is read back through the target's control plane
	// and judged as in-process. Calls then take real time: their latency,
	// the calls in flight and how calls ended are measured.
	Targets []*target.Served
	// TargetName is what the results call the target ("" for in-process).
	TargetName string
	// Load paces a run over Targets (nil: every agent runs, Workers at a
	// time, as fast as the target answers).
	Load *Load
}

// Observer sees each finished episode (an OpenTelemetry exporter, say).
// EpisodeDone is called concurrently from the worker goroutines, in no
// particular order, with outcome.Trace set.
type Observer interface {
	EpisodeDone(agent int, variant string, outcome personas.Outcome)
}

// Plan is a validated configuration with its models built.
type Plan struct {
	cfg    Config
	base   *engine.Base
	models []*personas.Model // per variant
	assign *Assignment
	layout *layout
	total  int // episodes this shard will run
	stats  LoadStats
}

// NewPlan checks the configuration and prepares the run: seeds the world,
// builds one reader model per variant and the agent assignment.
func NewPlan(cfg Config) (*Plan, error) {
	w := cfg.World
	if w == nil {
		return nil, fmt.Errorf("no world")
	}
	if cfg.Agents < 1 || cfg.Agents > MaxAgents {
		return nil, fmt.Errorf("--agents: must be between 1 and %d, got %d", MaxAgents, cfg.Agents)
	}
	if cfg.Shard.Count == 0 {
		cfg.Shard = Shard{0, 1}
	}
	if cfg.Shard.Count < 1 || cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count {
		return nil, fmt.Errorf("--shard: %d/%d: want k/n with 0 ≤ k < n", cfg.Shard.Index, cfg.Shard.Count)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Workers < 1 || cfg.Workers > 4096 {
		return nil, fmt.Errorf("--workers: must be between 1 and 4096, got %d", cfg.Workers)
	}
	if len(cfg.Goals) == 0 {
		cfg.Goals = w.Goals
	}
	if len(cfg.Goals) == 0 {
		return nil, fmt.Errorf("world %s has no goals", w.Name)
	}
	if len(cfg.Variants) == 0 {
		cfg.Variants = []string{w.Variants[0]}
	}
	for _, v := range cfg.Variants {
		if !w.HasVariant(v) && cfg.Descriptions[v] == nil {
			return nil, fmt.Errorf("--variant: world %s has no variant %q (it has %v)", w.Name, v, w.Variants)
		}
	}
	if len(cfg.Mix) == 0 {
		return nil, fmt.Errorf("--mix: no personas")
	}
	if cfg.Profile == nil {
		cfg.Profile = w.Profile("none")
	}
	if err := checkRemote(&cfg); err != nil {
		return nil, err
	}
	base, err := w.Seed(cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("world %s at seed %d: %w", w.Name, cfg.Seed, err)
	}
	p := &Plan{cfg: cfg, base: base}
	for _, v := range cfg.Variants {
		readAs := v
		if !w.HasVariant(v) {
			readAs = w.Variants[0]
		}
		m, err := personas.NewModelWith(w, readAs, cfg.Descriptions[v])
		if err != nil {
			return nil, err
		}
		p.models = append(p.models, m)
	}
	weights := make([]float64, len(cfg.Mix))
	ps := make([]*personas.Persona, len(cfg.Mix))
	for i, m := range cfg.Mix {
		weights[i], ps[i] = m.Weight, m.Persona
	}
	if p.assign, err = NewAssignment(cfg.Seed, cfg.Agents, weights, len(cfg.Goals)); err != nil {
		return nil, fmt.Errorf("--mix: %w", err)
	}
	meant := make([]string, len(cfg.Goals))
	for i, g := range cfg.Goals {
		meant[i] = p.models[0].Meant(g)
	}
	p.layout = newLayout(w, cfg.Goals, ps, cfg.Variants, meant)
	agents := agentsInShard(cfg.Agents, cfg.Shard)
	p.total = agents * len(cfg.Variants)
	return p, nil
}

// agentsInShard counts i in [0, n) with i mod count == index.
func agentsInShard(n int, s Shard) int {
	if s.Index >= n {
		return 0
	}
	return (n-1-s.Index)/s.Count + 1
}

// SetProgress sets the progress callback (see Config.Progress).
func (p *Plan) SetProgress(fn func(done, total int), every time.Duration) {
	p.cfg.Progress, p.cfg.ProgressEvery = fn, every
}

// Episodes is the number of episodes the plan will run (agents in the
// shard × variants).
func (p *Plan) Episodes() int { return p.total }

// AgentSeed is agent i's seed in a run with the given seed.
func AgentSeed(runSeed uint64, i int) uint64 { return entropy.Mix(runSeed, uint64(i)) }

// Run runs the plan. When ctx is cancelled it stops taking agents, lets
// every agent in progress finish and returns the results so far, marked
// partial: nothing finished is lost. Over a transport, a target that breaks
// stops the run: Run then returns the results of the agents that finished,
// marked partial, and the error.
func (p *Plan) Run(ctx context.Context) (*report.Results, error) {
	if len(p.cfg.Targets) > 0 {
		return p.runRemote(ctx)
	}
	cfg := p.cfg
	started := time.Now()
	const chunkSize = 256 // agents a worker takes at once: one atomic add each
	var next atomic.Int64
	var done atomic.Int64
	shardAgents := agentsInShard(cfg.Agents, cfg.Shard)
	aggs := make([]*Aggregator, cfg.Workers)
	errs := make([]error, cfg.Workers)
	var wg sync.WaitGroup
	for wi := range cfg.Workers {
		agg := newAggregator(p.layout)
		aggs[wi] = agg
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := p.newWorker(agg)
			for ctx.Err() == nil {
				from := int(next.Add(chunkSize)) - chunkSize
				if from >= shardAgents {
					return
				}
				to := min(from+chunkSize, shardAgents)
				for k := from; k < to; k++ {
					if ctx.Err() != nil {
						return
					}
					i := cfg.Shard.Index + k*cfg.Shard.Count
					if err := w.runAgent(i); err != nil {
						errs[wi] = err
						return
					}
					done.Add(int64(len(cfg.Variants)))
				}
			}
		}()
	}
	stopProgress := startProgress(cfg.Progress, cfg.ProgressEvery, p.total, &done)
	wg.Wait()
	stopProgress()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	total := aggs[0]
	for _, a := range aggs[1:] {
		total.Merge(a)
	}
	res := p.results(total)
	res.Partial = ctx.Err() != nil && total.Episodes() < p.total
	res.Timing = newTiming(started, time.Since(started).Seconds(), total.Episodes(), cfg.Workers)
	return res, nil
}

// newTiming is the timing section of a run that began at started, took
// secs and counted episodes, workers at a time.
func newTiming(started time.Time, secs float64, episodes, workers int) *report.Timing {
	host, _ := os.Hostname()
	return &report.Timing{
		Started:        started.UTC().Format(time.RFC3339),
		Seconds:        secs,
		EpisodesPerSec: float64(episodes) / max(secs, 1e-9),
		Workers:        workers,
		GOMAXPROCS:     runtime.GOMAXPROCS(0),
		Host:           host,
	}
}

// Skeleton is the results document of the plan before anything ran: the
// run metadata and the outcome classes, with no counts. Thresholds are
// checked against it before a run starts.
func (p *Plan) Skeleton() *report.Results { return p.results(newAggregator(p.layout)) }

// results builds the document from the merged aggregator.
func (p *Plan) results(a *Aggregator) *report.Results {
	cfg := p.cfg
	w := cfg.World
	res := &report.Results{
		Schema:  report.Schema,
		Version: report.Version,
		Run: report.Run{
			HerdVersion: version.String(),
			World:       report.WorldRef{Name: w.Name, Version: w.Version, Hash: w.Hash, Source: cfg.WorldRef},
			Target:      cmp.Or(cfg.TargetName, "in-process"),
			Variants:    slices.Clone(cfg.Variants),
			Faults:      cfg.Profile.Name,
			Seed:        cfg.Seed,
			Agents:      cfg.Agents,
			Command:     cfg.Command,
		},
	}
	for _, g := range cfg.Goals {
		res.Run.Goals = append(res.Run.Goals, g.Name)
	}
	counts := p.assign.PersonaCounts()
	for i, m := range cfg.Mix {
		res.Run.Mix = append(res.Run.Mix, report.MixEntry{Persona: m.Persona.Name, Weight: m.Weight, Agents: counts[i]})
	}
	if cfg.Shard.Count > 1 {
		res.Run.Shard = &report.Shard{Index: cfg.Shard.Index, Count: cfg.Shard.Count}
	}
	a.fill(res)
	return res
}

// worker runs agents and feeds one aggregator; it reuses its buffers.
type worker struct {
	p   *Plan
	agg *Aggregator
	res agentResult
	// remotes, in a run over served targets: per variant, where episodes
	// open their sessions. nil in-process.
	remotes []personas.Remote
	// started counts, in a run over served targets, the agents of each
	// persona this worker ran to the end (a load run may end before all
	// started, and a target that broke cuts those running short).
	started []int
}

func (p *Plan) newWorker(agg *Aggregator) *worker {
	return &worker{p: p, agg: agg, res: agentResult{
		outcomes: make([]personas.Outcome, len(p.cfg.Variants)),
		classes:  make([]int, 0, len(p.cfg.Variants)),
	}}
}

// episode builds agent i's episode.
func (p *Plan) episode(i int) (personas.Episode, int, int) {
	pi, gi := p.assign.Persona(i), p.assign.Goal(i)
	return personas.Episode{
		Base:    p.base,
		Profile: p.cfg.Profile,
		Persona: p.cfg.Mix[pi].Persona,
		Goal:    p.cfg.Goals[gi],
		Seed:    AgentSeed(p.cfg.Seed, i),
	}, pi, gi
}

func (w *worker) runAgent(i int) error {
	p := w.p
	ep, pi, gi := p.episode(i)
	// A served episode is not a pure function of its inputs (it takes real
	// time), so its trace is recorded as it happens rather than re-run.
	ep.Trace = p.cfg.Observer != nil || w.remotes != nil
	r := &w.res
	r.index, r.seed, r.persona, r.goal = i, ep.Seed, pi, gi
	for v, m := range p.models {
		if w.remotes != nil {
			ep.Remote = w.remotes[v]
		}
		o, err := m.Run(ep)
		if err != nil {
			return fmt.Errorf("agent %d (%s, %s, %s): %w", i, ep.Persona.Name, ep.Goal.Name, p.cfg.Variants[v], err)
		}
		r.outcomes[v] = o
		if p.cfg.Observer != nil {
			p.cfg.Observer.EpisodeDone(i, p.cfg.Variants[v], o)
		}
	}
	if err := w.agg.classify(r); err != nil {
		return err
	}
	w.agg.add(r)
	if w.started != nil {
		w.started[pi]++
	}
	for v := range p.models {
		if w.agg.wantsTrace(gi, v, r.classes[v], i) {
			var t report.Trace
			if w.remotes != nil {
				variant := p.cfg.Variants[v]
				t = ToReportTrace(i, ep.Seed, variant, r.outcomes[v], p.ReplayCommand(i, variant))
			} else {
				var err error
				if t, err = p.trace(i, v); err != nil {
					return err
				}
			}
			w.agg.addTrace(gi, v, r.classes[v], t)
		}
	}
	for pairIdx, pr := range p.layout.pairs {
		if r.classes[pr[0]] != r.classes[pr[1]] && w.agg.wantsFlip(gi, pairIdx, i) {
			a, b := p.cfg.Variants[pr[0]], p.cfg.Variants[pr[1]]
			w.agg.addFlip(gi, pairIdx, report.Flip{
				Agent: i, Goal: ep.Goal.Name, Persona: ep.Persona.Name,
				From:   map[string]string{a: r.outcomes[pr[0]].Class},
				To:     map[string]string{b: r.outcomes[pr[1]].Class},
				Replay: p.ReplayCommand(i, b),
			})
		}
	}
	return nil
}

// ReplayCommand is the command line that replays agent i under variant:
// the run's own reproducing command with "replay" for "swarm", its
// --variant replaced by the one variant, and the agent's index.
func (p *Plan) ReplayCommand(i int, variant string) string {
	cmd := p.cfg.Command
	if cmd == "" {
		cmd = fmt.Sprintf("herd swarm %s --agents %d --seed %d", p.cfg.WorldRef, p.cfg.Agents, p.cfg.Seed)
		if p.cfg.Profile != nil && p.cfg.Profile.Name != "none" {
			cmd += " --faults " + p.cfg.Profile.Name
		}
		if p.cfg.MixFlag != "" {
			cmd += " --mix " + p.cfg.MixFlag
		}
	}
	cmd = strings.Replace(cmd, "herd swarm ", "herd replay ", 1)
	// A replay runs in-process: it names the world, not the target, and
	// takes none of the transport's flags.
	if p.cfg.TargetName != "" {
		if f := strings.Fields(cmd); len(f) > 2 && f[2] != p.cfg.WorldRef {
			cmd = strings.Replace(cmd, " "+f[2]+" ", " "+p.cfg.WorldRef+" ", 1)
		}
		cmd = transportFlags.ReplaceAllString(cmd, "")
	}
	cmd = variantFlag.ReplaceAllString(cmd, "")
	return fmt.Sprintf("%s --agent %d --variant %s", cmd, i, variant)
}

var (
	variantFlag    = regexp.MustCompile(`\s+--variant(?:=|\s+)\S+`)
	transportFlags = regexp.MustCompile(`\s+--(?:rate|duration|arrival|max-in-flight|allow-host|call-timeout|world)(?:=|\s+)\S+`)
)

// trace re-runs agent i under variant v with tracing on: an episode is a
// pure function of its inputs, so the trace is the one the run produced.
func (p *Plan) trace(i, v int) (report.Trace, error) {
	ep, _, _ := p.episode(i)
	ep.Trace = true
	o, err := p.models[v].Run(ep)
	if err != nil {
		return report.Trace{}, err
	}
	return ToReportTrace(i, ep.Seed, p.cfg.Variants[v], o, p.ReplayCommand(i, p.cfg.Variants[v])), nil
}

// Replay runs agent i under every variant of the plan with tracing on.
func (p *Plan) Replay(i int) ([]personas.Outcome, error) {
	if i < 0 || i >= p.cfg.Agents {
		return nil, fmt.Errorf("--agent: %d is not an agent of this run (0 to %d)", i, p.cfg.Agents-1)
	}
	ep, _, _ := p.episode(i)
	ep.Trace = true
	out := make([]personas.Outcome, len(p.models))
	for v, m := range p.models {
		o, err := m.Run(ep)
		if err != nil {
			return nil, err
		}
		out[v] = o
	}
	return out, nil
}

// ToReportTrace converts a persona trace into the results document's form.
func ToReportTrace(agent int, seed uint64, variant string, o personas.Outcome, replay string) report.Trace {
	t := report.Trace{Agent: agent, Seed: seed, Variant: variant, Class: o.Class, Severity: string(o.Severity), Replay: replay}
	if o.Trace != nil {
		t.Goal, t.Persona = o.Trace.Goal, o.Trace.Persona
		for _, s := range o.Trace.Steps {
			st := report.Step{Kind: s.Kind, Tool: s.Tool, Result: s.Result, Read: s.Read, At: fmt.Sprintf("+%.3fs", s.At.Seconds())}
			if len(s.Args) > 0 {
				st.Args = maps.Clone(s.Args)
			}
			// The reader model already rounds its scores for the trace.
			for _, sc := range s.Scores {
				st.Scores = append(st.Scores, report.ToolScore(sc))
			}
			t.Steps = append(t.Steps, st)
		}
	}
	return t
}
