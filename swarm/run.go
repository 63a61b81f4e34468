// Package swarm runs a population of scripted-persona agents against a
// world and aggregates what they did into a results document. Agent i's
// seed, persona and goal are pure functions of (run seed, i), and an
// in-process episode is a pure function of its inputs, so the
// deterministic part of the results is byte-identical whatever the worker
// count or sharding.
package swarm

import (
	"context"
	"fmt"
	"maps"
	"os"
	"runtime"
	"slices"
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

// MaxAgents caps Config.Agents: a run that big takes minutes,
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
	// Replay is what a trace's replay needs besides the agent and its
	// variant (the run's world, seed, agents, mix, …), and ReplayCommand
	// renders it as the command that replays (nil: traces carry none).
	Replay        ReplaySpec
	ReplayCommand func(ReplaySpec) string
	// Progress, when set, is called from a single goroutine about every
	// ProgressEvery with how far the run is.
	Progress      func(Progress)
	ProgressEvery time.Duration
	// Observer, when set, is told of every episode as it finishes. Episodes
	// are then run with tracing on, so that it sees every call; tracing
	// costs time, so it is off without an observer.
	Observer Observer

	// Players, when set, makes the player of each variant's episodes in
	// place of the reader model's personas (a language model, say): it is
	// given the variant as read, the user's descriptions for it (nil when
	// none) and the tool each goal needs. Its episodes run in-process.
	Players func(variant string, descriptions map[string]string, meant func(*engine.Goal) string) (Player, error)

	// Load paces a run over a transport (nil: every agent runs, Workers at
	// a time, as fast as the target answers). An in-process run has none:
	// it keeps virtual time.
	Load *Load
}

// Observer sees each finished episode (an OpenTelemetry exporter, say).
// EpisodeDone is called concurrently from the worker goroutines, in no
// particular order, with outcome.Trace set.
type Observer interface {
	EpisodeDone(agent int, variant string, outcome personas.Outcome)
}

// Player plays one episode in place of a persona of the reader model:
// the same Episode (base, goal, agent seed), the same judged Outcome. A
// language model behind an API is one (package brain). Play may be slow
// and may fail; ctx is the run's.
type Player interface {
	Play(ctx context.Context, ep personas.Episode) (personas.Outcome, error)
}

// Plan is a validated configuration with its models built.
type Plan struct {
	cfg     Config
	base    *engine.Base
	models  []*personas.Model // per variant
	players []Player          // per variant, when Config.Players is set
	assign  *Assignment
	layout  *layout
	total   int // episodes this shard will run
	// ext, for a run against an MCP server that is not a herd world, is
	// what its agents play instead of the world's personas.
	ext *externalPlay
	// target and meter are the last Run's.
	target Target
	meter  target.Meter
	stats  LoadStats
	// churned counts the sessions the last Run opened and dropped.
	churned atomic.Int64
}

// NewPlan checks the configuration and prepares the run: seeds the world,
// builds one reader model per variant and the agent assignment. Nothing is
// contacted: a run over a transport gets its target in Run.
func NewPlan(cfg Config) (*Plan, error) {
	w := cfg.World
	if w == nil {
		return nil, fmt.Errorf("no world")
	}
	if err := checkAgents(cfg.Agents); err != nil {
		return nil, err
	}
	if cfg.Shard.Count == 0 {
		cfg.Shard = Shard{0, 1}
	}
	if cfg.Shard.Count < 1 || cfg.Shard.Index < 0 || cfg.Shard.Index >= cfg.Shard.Count {
		return nil, fieldErr("Shard", "%d/%d: want k/n with 0 ≤ k < n", cfg.Shard.Index, cfg.Shard.Count)
	}
	if cfg.Workers == 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.Workers < 1 || cfg.Workers > MaxWorkers {
		return nil, fieldErr("Workers", "must be between 1 and %d, got %d", MaxWorkers, cfg.Workers)
	}
	if len(cfg.Goals) == 0 {
		cfg.Goals = w.Goals
	}
	if len(cfg.Goals) == 0 {
		return nil, fmt.Errorf("world %s has no goals", w.Name)
	}
	if len(cfg.Variants) == 0 {
		cfg.Variants = []string{w.DefaultVariant()}
	}
	for _, v := range cfg.Variants {
		if !w.HasVariant(v) && cfg.Descriptions[v] == nil {
			return nil, fieldErr("Variants", "world %s has no variant %q (it has %v)", w.Name, v, w.Variants)
		}
	}
	if len(cfg.Mix) == 0 {
		return nil, fieldErr("Mix", "no personas")
	}
	if cfg.Profile == nil {
		cfg.Profile = w.Profile(engine.NoFaults)
	}
	if err := checkLoad(&cfg); err != nil {
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
			readAs = w.DefaultVariant()
		}
		m, err := personas.NewModelWith(w, readAs, cfg.Descriptions[v])
		if err != nil {
			return nil, err
		}
		p.models = append(p.models, m)
		if cfg.Players != nil {
			pl, err := cfg.Players(readAs, cfg.Descriptions[v], m.Meant)
			if err != nil {
				return nil, err
			}
			p.players = append(p.players, pl)
		}
	}
	weights := make([]float64, len(cfg.Mix))
	ps := make([]*personas.Persona, len(cfg.Mix))
	for i, m := range cfg.Mix {
		weights[i], ps[i] = m.Weight, m.Persona
	}
	if p.assign, err = NewAssignment(cfg.Seed, cfg.Agents, weights, len(cfg.Goals)); err != nil {
		return nil, &FieldError{Field: "Mix", Err: err}
	}
	meant := make([]string, len(cfg.Goals))
	for i, g := range cfg.Goals {
		meant[i] = p.models[0].Meant(g)
	}
	p.layout = newWorldLayout(w, cfg.Goals, ps, cfg.Variants, meant)
	p.layout.trace = p.reportTrace
	p.layout.flipReplay = func(i int, _, b string) string { return p.ReplayCommand(i, b) }
	p.total = agentsInShard(cfg.Agents, cfg.Shard) * len(cfg.Variants)
	return p, nil
}

// checkAgents is the one range check of a run's agents, whatever its
// target (a command may cap them lower).
func checkAgents(n int) error {
	if n < 1 || n > MaxAgents {
		return fieldErr("Agents", "must be between 1 and %d, got %d", MaxAgents, n)
	}
	return nil
}

// MaxWorkers caps Config.Workers.
const MaxWorkers = 4096

// agentsInShard counts i in [0, n) with i mod count == index.
func agentsInShard(n int, s Shard) int {
	if s.Index >= n {
		return 0
	}
	return (n-1-s.Index)/s.Count + 1
}

// SetProgress sets the progress callback (see Config.Progress).
func (p *Plan) SetProgress(fn func(Progress), every time.Duration) {
	p.cfg.Progress, p.cfg.ProgressEvery = fn, every
}

// Episodes is the number of episodes the plan will run (agents in the
// shard × variants).
func (p *Plan) Episodes() int { return p.total }

// AgentSeed is agent i's seed in a run with the given seed.
func AgentSeed(runSeed uint64, i int) uint64 { return entropy.Mix(runSeed, uint64(i)) }

// Run runs the plan's agents on t — the one run loop, whatever the target.
// Agents start as fast as workers take them (in-process: Workers
// goroutines, each taking agents in chunks) or, over a transport, when the
// pacer says and an in-flight slot is free; every agent's episodes go to
// one aggregator per worker (Aggregator.Add), merged at the end.
//
// When ctx is cancelled no agent starts any more and those running finish
// (a context made by WithAbandon cuts them short on a second stop): the
// results so far are returned, marked partial, and nothing finished is
// lost. A target that breaks stops the run at once: Run then returns the
// results of the agents that finished, marked partial, and the error. An
// in-process run that fails returns no results.
func (p *Plan) Run(ctx context.Context, t Target) (*report.Results, error) {
	cfg := &p.cfg
	if t == nil {
		t = InProcess{}
	}
	realTime := t.RealTime()
	if cfg.Load != nil && !realTime {
		return nil, fieldErr("Load", "pacing needs a real transport (serve:WORLD, an http:// URL or mcp+stdio:); in-process runs keep virtual time")
	}
	if c, ok := t.(interface{ check(*Plan) error }); ok {
		if err := c.check(p); err != nil {
			return nil, err
		}
	}
	p.target, p.meter = t, target.NoMeter{}
	p.churned.Store(0)
	shardAgents := agentsInShard(cfg.Agents, cfg.Shard)
	ms := startMeasure(realTime)
	if ms.meter != nil {
		p.meter = ms.meter
	}
	// Agents already started are not cut by Ctrl-C (they end by
	// themselves, within the per-call timeout); they are cut when the
	// target broke, so the run stops at once.
	agentCtx, stopAgents := inflightContext(ctx)
	defer stopAgents(nil)
	var (
		done     tally
		errMu    sync.Mutex
		firstErr error
	)
	fail := func(err error) {
		errMu.Lock()
		defer errMu.Unlock()
		if firstErr == nil {
			firstErr = err
			stopAgents(err)
		}
	}
	pool := &workerPool{p: p}
	stopProgress := startProgress(cfg.Progress, cfg.ProgressEvery, p.total, &done)
	var started, inFlight int
	var lastStart time.Duration
	if realTime {
		inFlight = cfg.Workers
		if cfg.Load != nil && cfg.Load.MaxInFlight > 0 {
			inFlight = cfg.Load.MaxInFlight
		}
		started, lastStart = p.startPaced(ctx, agentCtx, inFlight, shardAgents, pool, &done, fail)
	} else {
		inFlight = cfg.Workers
		started = p.startUnpaced(ctx, agentCtx, shardAgents, pool, &done, fail)
	}
	stopProgress()
	ms.stop()
	total := p.newAggregator()
	for _, w := range pool.all {
		total.Merge(w.agg)
	}
	if firstErr != nil && !realTime && p.players == nil {
		// A persona episode in-process fails only on a bug; a player's
		// (a model behind an API) fails when its endpoint does, and what
		// finished before is kept, as over a transport.
		return nil, firstErr
	}
	res := p.results(total)
	// Agents cut short (the target broke, a second interrupt) were started
	// but never judged: the document counts the finished ones only.
	finished := total.Episodes() / max(len(cfg.Variants), 1)
	res.Partial = (ctx.Err() != nil && finished < shardAgents) || firstErr != nil
	if finished < shardAgents && !res.Partial {
		// A load run whose duration passed before every agent it could
		// start did: it is a run of the agents that finished. A partial
		// run (stopped, or its target broke) keeps the agents it was
		// planned with: personas and goals are assigned over that number
		// (herd replay needs it), every shard of the run says the same, and
		// episodes says how many finished.
		res.Run.Agents = finished
		for k, n := range total.Agents() {
			res.Run.Mix[k].Agents = n
		}
	}
	p.stats = ms.stats(shardAgents, started, lastStart)
	p.stats.Churned = p.churned.Load()
	res.Timing = ms.timing(p.stats, total.Episodes(), inFlight)
	return res, firstErr
}

// startUnpaced runs every agent of the shard on cfg.Workers goroutines,
// each taking agents in chunks, until they are all done or ctx is
// cancelled. It returns how many agents it started.
func (p *Plan) startUnpaced(ctx, agentCtx context.Context, shardAgents int, pool *workerPool, done *tally, fail func(error)) int {
	cfg := &p.cfg
	chunkSize := int64(256) // agents a worker takes at once: one atomic add each
	if p.players != nil {
		// A player's episode takes seconds: one at a time per worker, or a
		// small run would sit on one worker.
		chunkSize = 1
	}
	var next, started atomic.Int64
	var wg sync.WaitGroup
	for range cfg.Workers {
		w := pool.take()
		w.ctx = agentCtx // a player's requests are cut by a second interrupt, not the first
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				from := int(next.Add(chunkSize) - chunkSize)
				if from >= shardAgents {
					return
				}
				to := min(from+int(chunkSize), shardAgents)
				for k := from; k < to; k++ {
					if ctx.Err() != nil {
						return
					}
					started.Add(1)
					done.started.Add(1)
					if err := w.runAgent(cfg.Shard.Index + k*cfg.Shard.Count); err != nil {
						if agentCtx.Err() != nil && p.players != nil {
							return // abandoned by an interrupt, not broken
						}
						fail(err)
						return
					}

					done.finished(&w.res, len(cfg.Variants))
				}
			}
		}()
	}
	wg.Wait()
	return int(started.Load())
}

// startPaced starts the shard's agents when the pacer says (Config.Load),
// at most inFlight making calls at once, each on its own goroutine; it
// returns once every agent it started is done, with how many it started
// and when the last one started. On Ctrl-C (ctx done) no agent starts any
// more and those running finish; fail stops the run at once.
func (p *Plan) startPaced(ctx, agentCtx context.Context, inFlight, shardAgents int, pool *workerPool, done *tally, fail func(error)) (int, time.Duration) {
	cfg := &p.cfg
	load := Load{} // schedule starts an unpaced run without a pacer
	if cfg.Load != nil {
		load = *cfg.Load
	}
	// A token is one agent making calls. An agent's last episode gives its
	// token back as soon as its calls are over (Target.Sessions' idle),
	// while it may wait for its end state to come with its connection's
	// next reset; so an agent holds a worker (its aggregator and buffers)
	// a little longer than a token, and workers are made as needed.
	tokens := make(chan struct{}, inFlight)
	for range inFlight {
		tokens <- struct{}{}
	}
	var wg sync.WaitGroup
	n, last := schedule(ctx, agentCtx, load, tokens, shardAgents, func(k int, _ struct{}) {
		i := cfg.Shard.Index + k*cfg.Shard.Count
		w := pool.take()
		var once sync.Once
		idle := func() { once.Do(func() { tokens <- struct{}{} }) }
		w.bind(agentCtx, idle)
		done.started.Add(1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer pool.giveBack(w)
			defer idle()
			if err := w.runAgent(i); err != nil {
				if agentCtx.Err() == nil {
					fail(err)
				}
				return
			}
			done.finished(&w.res, len(cfg.Variants))
		}()
		p.churn(agentCtx, &wg, load, i)
	})
	// No agent starts any more. Once every token is back, every agent has
	// made its last call (it is done, or awaits its end state), so no
	// later session will bring those back: read them. Reading them sooner
	// would take their connections from agents started but not yet
	// connected, which would dial new ones.
	for range inFlight {
		<-tokens
	}
	p.target.Drain(agentCtx)
	wg.Wait()
	return n, last
}

// churnDie separates the churn share's dice from every other use of the
// agent's index.
var churnDie = entropy.Name("session-churn")

// churn opens and drops a session beside agent i's, when the agent's own
// die falls within the load's churn share: one to three reads, then the
// session is left unended. A failure to churn is not the agents' failure:
// it shows in the call classes.
func (p *Plan) churn(ctx context.Context, wg *sync.WaitGroup, load Load, i int) {
	ch, ok := p.target.(churner)
	if !ok || load.Churn <= 0 {
		return
	}
	u := entropy.Key{Seed: p.cfg.Seed, Session: uint64(i), Purpose: churnDie}.Uint64()
	if entropy.Float64(u) >= load.Churn {
		return
	}
	calls := 1 + int(u%3)
	wg.Add(1)
	go func() {
		defer wg.Done()
		if ch.Churn(ctx, p.meter, calls) == nil {
			p.churned.Add(1)
		}
	}()
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
func (p *Plan) Skeleton() *report.Results { return p.results(p.newAggregator()) }

func (p *Plan) newAggregator() *Aggregator { return newAggregator(p.layout) }

// results builds the document from the merged aggregator.
func (p *Plan) results(a *Aggregator) *report.Results {
	cfg := p.cfg
	if p.ext != nil {
		res := &report.Results{Schema: report.Schema, Version: report.Version,
			Run: p.ext.header(cfg.Seed, cfg.Agents, cfg.Command)}
		res.Run.Goals = slices.Clone(p.layout.goals)
		counts := p.assign.PersonaCounts()
		for i, name := range p.layout.personas {
			res.Run.Mix = append(res.Run.Mix, report.MixEntry{Persona: name, Weight: 1, Agents: counts[i]})
		}
		a.fill(res)
		return res
	}
	w := cfg.World
	target := InProcess{}.Name()
	if p.target != nil {
		target = p.target.Name()
	}
	res := &report.Results{
		Schema:  report.Schema,
		Version: report.Version,
		Run: report.Run{
			HerdVersion: version.String(),
			World:       report.WorldRef{Name: w.Name, Version: w.Version, Hash: w.Hash, Source: cfg.WorldRef},
			Target:      target,
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

// workerPool holds a run's workers: each runs one agent at a time and
// feeds its own aggregator. A paced run makes them as agents need them.
type workerPool struct {
	p    *Plan
	mu   sync.Mutex
	all  []*worker // every worker made
	free []*worker // those not running an agent
}

func (wp *workerPool) take() *worker {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	if n := len(wp.free); n > 0 {
		w := wp.free[n-1]
		wp.free = wp.free[:n-1]
		return w
	}
	w := wp.p.newWorker()
	wp.all = append(wp.all, w)
	return w
}

func (wp *workerPool) giveBack(w *worker) {
	wp.mu.Lock()
	defer wp.mu.Unlock()
	wp.free = append(wp.free, w)
}

// worker runs agents and feeds one aggregator; it reuses its buffers.
type worker struct {
	p   *Plan
	agg *Aggregator
	res AgentResult
	ctx context.Context // the context agents run under (bind)
	// sessions, over a transport: per variant, where the agent's episodes
	// open their sessions (Target.Sessions). nil in-process.
	sessions []personas.Remote
}

func (p *Plan) newWorker() *worker {
	return &worker{p: p, agg: p.newAggregator(), res: AgentResult{
		Outcomes: make([]personas.Outcome, len(p.cfg.Variants)),
		classes:  make([]int, 0, len(p.cfg.Variants)),
	}}
}

// bind binds the worker's next agent to the run's target: its episodes
// under every variant but the last read their end states at once (the
// agent goes on to its next variant); the last one's idle says its calls
// are over.
func (w *worker) bind(ctx context.Context, idle func()) {
	t, n := w.p.target, len(w.p.cfg.Variants)
	w.ctx = ctx
	if w.p.ext != nil {
		return // its agents open their own sessions
	}
	w.sessions = w.sessions[:0]
	for v := range n {
		var last func()
		if v == n-1 {
			last = idle
		}
		w.sessions = append(w.sessions, t.Sessions(ctx, v, w.p.meter, last))
	}
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

// runAgent runs agent i's episodes, one per variant, and adds them to the
// worker's aggregator.
func (w *worker) runAgent(i int) error {
	p := w.p
	if p.ext != nil {
		return w.runExternal(i)
	}
	ep, pi, gi := p.episode(i)
	// A served episode is not a pure function of its inputs (it takes real
	// time), so its trace is recorded as it happens rather than re-run.
	ep.Trace = p.cfg.Observer != nil || w.sessions != nil
	r := &w.res
	r.Index, r.Seed, r.Persona, r.Goal = i, ep.Seed, pi, gi
	for v, m := range p.models {
		if w.sessions != nil {
			ep.Remote = w.sessions[v]
		}
		var o personas.Outcome
		var err error
		if p.players != nil {
			o, err = p.players[v].Play(w.ctx, ep)
		} else {
			o, err = m.Run(ep)
		}
		if err != nil {
			return fmt.Errorf("agent %d (%s, %s, %s): %w", i, ep.Persona.Name, ep.Goal.Name, p.cfg.Variants[v], err)
		}
		r.Outcomes[v] = o
		if p.cfg.Observer != nil {
			p.cfg.Observer.EpisodeDone(i, p.cfg.Variants[v], o)
		}
	}
	return w.agg.Add(r)
}

// reportTrace is the results' trace of r's episode under variant v. An
// in-process episode is a pure function of its inputs, so one run without
// a trace is run again with it: the trace is the one the run produced.
func (p *Plan) reportTrace(r *AgentResult, v int) (report.Trace, error) {
	o := r.Outcomes[v]
	if o.Trace == nil {
		ep, _, _ := p.episode(r.Index)
		ep.Trace = true
		var err error
		if o, err = p.models[v].Run(ep); err != nil {
			return report.Trace{}, err
		}
	}
	variant := p.cfg.Variants[v]
	return ToReportTrace(r.Index, r.Seed, variant, o, p.ReplayCommand(r.Index, variant)), nil
}

// ReplaySpec is what replaying one agent of a run needs: the run's own
// settings (as the user gave them, so that the command reads like theirs),
// the agent and the one variant. A replay runs in-process: it names the
// world, never the target, and takes nothing of a transport.
type ReplaySpec struct {
	World        string // the world reference (mock:crm or a path)
	Agents       int
	Seed         uint64
	Goals        []string
	Mix          string // persona weights as given ("" for the whole pack)
	Personas     string // persona pack file ("" for the built-in pack)
	Faults       string // fault profile name
	Descriptions string // descriptions file ("" for none)
	Agent        int
	Variant      string
}

// ReplayCommand is the command that replays agent i under variant
// (Config.ReplayCommand over Config.Replay), "" without a renderer.
func (p *Plan) ReplayCommand(i int, variant string) string {
	if p.cfg.ReplayCommand == nil {
		return ""
	}
	spec := p.cfg.Replay
	spec.Agent, spec.Variant = i, variant
	return p.cfg.ReplayCommand(spec)
}

// Replay runs agent i under every variant of the plan with tracing on.
func (p *Plan) Replay(i int) ([]personas.Outcome, error) {
	if i < 0 || i >= p.cfg.Agents {
		return nil, fieldErr("Agent", "%d is not an agent of this run (0 to %d)", i, p.cfg.Agents-1)
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

// Explain is the reader model's explanation of agent i's first choice
// under every variant of the plan: its persona reading its goal's tools.
// The first choice depends only on persona, goal and variant, so it is
// the same explanation the agent's trace scores come from.
func (p *Plan) Explain(i int) ([]personas.Explanation, error) {
	if i < 0 || i >= p.cfg.Agents {
		return nil, fieldErr("Agent", "%d is not an agent of this run (0 to %d)", i, p.cfg.Agents-1)
	}
	ep, _, _ := p.episode(i)
	out := make([]personas.Explanation, len(p.models))
	for v, m := range p.models {
		out[v] = m.ExplainChoice(ep.Persona, ep.Goal)
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
		for _, d := range o.Trace.WorldDiff {
			t.WorldDiff = append(t.WorldDiff, report.DiffEntry{Type: d.Type, ID: d.ID, Change: d.Change, Fields: slices.Clone(d.Fields)})
		}
	}
	return t
}
