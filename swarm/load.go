package swarm

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herd-sh/herd/report"
)

// Hard caps on a load run: a typo (an extra zero) must be an error, not a
// day of traffic.
const (
	MaxRate       = 100_000        // agents started a second
	MaxDuration   = 24 * time.Hour // --duration
	MaxInFlight   = 10_000         // agents at once
	MaxLoadAgents = 1_000_000      // agents a duration-bound run without --agents may start
)

// Load is how a run over a real transport starts its agents.
type Load struct {
	// Pacer decides when each agent starts (nil: Unpaced, as fast as the
	// in-flight cap allows).
	Pacer Pacer
	// Duration stops starting agents after this long (0: run them all).
	// Agents already started finish.
	Duration time.Duration
	// MaxInFlight is the most agents running at once (0: Workers).
	MaxInFlight int
}

// LoadStats is what a run over a transport measured besides the results
// document: how agents were started and how calls ended.
type LoadStats struct {
	Planned     int           // agents the run could start
	Started     int           // agents started
	StartWindow time.Duration // from the run's start to the last agent's start
	Seconds     float64       // the whole run, wall time
	Calls       int64
	Classes     []ClassCount // calls per tool × how they ended
}

// StartRate is agents started a second, over the window they were started in.
func (s LoadStats) StartRate() float64 {
	if s.Started < 2 || s.StartWindow <= 0 {
		return 0
	}
	// n starts span n-1 intervals; the first is at (about) zero.
	return float64(s.Started-1) / s.StartWindow.Seconds()
}

// CallRate is calls a second over the whole run.
func (s LoadStats) CallRate() float64 {
	if s.Seconds <= 0 {
		return 0
	}
	return float64(s.Calls) / s.Seconds
}

// checkRemote validates the transport part of a configuration.
func checkRemote(cfg *Config) error {
	if len(cfg.Targets) == 0 {
		if cfg.Load != nil {
			return errors.New("--rate, --duration, --arrival and --max-in-flight need a real transport (serve:WORLD, an http:// URL or mcp+stdio:); in-process runs keep virtual time")
		}
		return nil
	}
	if len(cfg.Targets) != len(cfg.Variants) {
		return fmt.Errorf("%d targets for %d variants: a served world shows one variant", len(cfg.Targets), len(cfg.Variants))
	}
	for _, t := range cfg.Targets {
		if t.World() != cfg.World {
			return fmt.Errorf("target %s serves world %s, the run is of %s", t.Name(), t.World().Name, cfg.World.Name)
		}
	}
	if len(cfg.Descriptions) > 0 {
		return errors.New("--descriptions: a served world shows its own descriptions; try your wording in-process (mock:WORLD) or serve a world file that has it")
	}
	if l := cfg.Load; l != nil {
		if l.Duration < 0 || l.Duration > MaxDuration {
			return fmt.Errorf("--duration: must be between 0 and %s, got %s", MaxDuration, l.Duration)
		}
		if l.MaxInFlight < 0 || l.MaxInFlight > MaxInFlight {
			return fmt.Errorf("--max-in-flight: must be between 1 and %d, got %d", MaxInFlight, l.MaxInFlight)
		}
		if cfg.Shard.Count > 1 {
			return errors.New("--shard: a load run is not sharded; run one load generator per machine instead")
		}
	}
	return nil
}

// LoadStats returns what the last Run over a transport measured.
func (p *Plan) LoadStats() LoadStats { return p.stats }

// runRemote runs the plan over served targets: a pacer starts agents, at
// most MaxInFlight at once, each agent's episodes going over the wire. On
// Ctrl-C (ctx done) no agent starts any more and those running finish; a
// target that breaks stops the run at once, and runRemote returns both the
// results of the episodes finished before it broke (marked partial) and the
// error: a crash after an hour of load must not lose the hour.
func (p *Plan) runRemote(ctx context.Context) (*report.Results, error) {
	cfg := p.cfg
	load := Load{} // schedule starts an unpaced run without a pacer
	if cfg.Load != nil {
		load = *cfg.Load
	}
	inFlight := load.MaxInFlight
	if inFlight == 0 {
		inFlight = cfg.Workers
	}
	ms := startMeasure()
	meter := ms.meter

	// Calls of agents already started are not cut by Ctrl-C (they end by
	// themselves, within the per-call timeout); they are cut when the
	// target broke, so the run stops at once.
	agentCtx, stopAgents := inflightContext(ctx)
	defer stopAgents(nil)
	// A token is one agent making calls. An agent's last episode gives its
	// token back as soon as its calls are over (Served.RemoteDeferred), while
	// it waits for its journal to come with its connection's next reset; so
	// an agent holds a worker (its aggregator and buffers) a little longer
	// than a token, and workers are made as needed.
	tokens := make(chan struct{}, inFlight)
	for range inFlight {
		tokens <- struct{}{}
	}
	var (
		workersMu sync.Mutex
		workers   []*worker // every worker made
		free      []*worker // those not running an agent
	)
	takeWorker := func() *worker {
		workersMu.Lock()
		defer workersMu.Unlock()
		if n := len(free); n > 0 {
			w := free[n-1]
			free = free[:n-1]
			return w
		}
		w := p.newWorker(newAggregator(p.layout))
		w.started = make([]int, len(cfg.Mix))
		workers = append(workers, w)
		return w
	}
	giveBack := func(w *worker) {
		workersMu.Lock()
		defer workersMu.Unlock()
		free = append(free, w)
	}

	var (
		wg       sync.WaitGroup
		done     atomic.Int64
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
	stopProgress := startProgress(cfg.Progress, cfg.ProgressEvery, p.total, &done)
	shardAgents := agentsInShard(cfg.Agents, cfg.Shard)
	n, lastStart := schedule(ctx, agentCtx, load, tokens, shardAgents, func(k int, _ struct{}) {
		i := cfg.Shard.Index + k*cfg.Shard.Count
		w := takeWorker()
		var once sync.Once
		idle := func() { once.Do(func() { tokens <- struct{}{} }) }
		w.remotes = w.remotes[:0]
		for v, t := range cfg.Targets {
			if v == len(cfg.Targets)-1 {
				w.remotes = append(w.remotes, t.RemoteDeferred(agentCtx, meter, idle))
			} else {
				// An earlier variant's episode reads its journal at once:
				// the agent keeps its token for the next one.
				w.remotes = append(w.remotes, t.Remote(agentCtx, meter))
			}
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer giveBack(w)
			defer idle()
			if err := w.runAgent(i); err != nil {
				if agentCtx.Err() == nil {
					fail(err)
				}
				return
			}
			done.Add(int64(len(cfg.Variants)))
		}()
	})
	// No agent starts any more. Once every token is back, every agent has
	// made its last call (it is done, or awaits its journal), so no reset
	// will bring the journals of those waiting for one: read them. Reading
	// them sooner would take their connections from agents started but not
	// yet connected, which would dial new ones.
	for range inFlight {
		<-tokens
	}
	for _, t := range cfg.Targets {
		t.Drain(agentCtx)
	}
	wg.Wait()
	stopProgress()
	p.stats = ms.stop(shardAgents, n, lastStart)
	total := newAggregator(p.layout)
	for _, w := range workers {
		total.Merge(w.agg)
	}
	res := p.results(total)
	res.Partial = (ctx.Err() != nil && n < shardAgents) || firstErr != nil
	if firstErr != nil {
		// Agents cut short when the target broke were started but never
		// judged: the document counts the finished ones only.
		n = total.Episodes() / max(len(cfg.Variants), 1)
	}
	if n < shardAgents {
		// The run ended before every planned agent started (its duration
		// passed, or it was stopped) or finished (the target broke): it is
		// a run of the agents that finished.
		perPersona := make([]int, len(cfg.Mix))
		for _, w := range workers {
			for k, c := range w.started {
				perPersona[k] += c
			}
		}
		res.Run.Agents = n
		for k := range res.Run.Mix {
			res.Run.Mix[k].Agents = perPersona[k]
		}
	}
	res.Timing = ms.timing(p.stats, total.Episodes(), inFlight)
	return res, firstErr
}

// measure is what every run over a transport measures besides outcomes:
// each call (the meter), the calls in flight over time, the wall time.
type measure struct {
	meter   *callMeter
	sampler *inFlightSampler
	started time.Time
	samples []report.Sample // after stop
}

func startMeasure() *measure {
	m, started := newCallMeter(), time.Now()
	return &measure{meter: m, sampler: startSampler(m, started), started: started}
}

// stop ends the sampling and returns the run's figures: planned agents,
// those started, and when the last one started.
func (m *measure) stop(planned, started int, lastStart time.Duration) LoadStats {
	m.samples = m.sampler.finish()
	return LoadStats{Planned: planned, Started: started, StartWindow: lastStart,
		Seconds: time.Since(m.started).Seconds(), Calls: m.meter.Calls(), Classes: m.meter.classCounts()}
}

// timing is the run's timing section (after stop): latency, calls in
// flight and calls by class besides the wall time.
func (m *measure) timing(st LoadStats, episodes, workers int) *report.Timing {
	t := newTiming(m.started, st.Seconds, episodes, workers)
	t.Latency, t.InFlight, t.Calls = m.meter.histograms(), m.samples, callClasses(st.Classes)
	return t
}

// schedule starts agents 0 … n-1: each when the pacer says, once a slot
// is free (a slot is one agent in flight; start must hand it back when the
// agent ends). It stops early when the duration passes, when ctx is done
// (Ctrl-C) or when broken is (the target failed). It returns how many it
// started and when, after the start of the run, the last one started.
func schedule[S any](ctx, broken context.Context, load Load, slots chan S, n int, start func(k int, slot S)) (started int, last time.Duration) {
	pacer := load.Pacer
	if pacer == nil {
		pacer = Unpaced{}
	}
	begin := time.Now()
	// One context for every reason to stop starting agents: Ctrl-C (ctx),
	// a broken target (broken) and the end of the duration.
	halt, end := context.WithCancel(ctx)
	defer end()
	defer context.AfterFunc(broken, end)()
	if load.Duration > 0 {
		var cancel context.CancelFunc
		halt, cancel = context.WithTimeout(halt, load.Duration)
		defer cancel()
	}
	wait := time.NewTimer(time.Hour)
	wait.Stop()
	defer wait.Stop()
	for started < n {
		d, stop := pacer.Pace(time.Since(begin), uint64(started))
		if stop {
			break
		}
		if d > 0 {
			wait.Reset(d)
			select {
			case <-wait.C:
			case <-halt.Done():
				return started, last
			}
		}
		var slot S
		select {
		case slot = <-slots:
		case <-halt.Done():
			return started, last
		}
		// Both may have been ready: a stop wins. broken is checked as well
		// as halt, which learns of it a moment later.
		if halt.Err() != nil || broken.Err() != nil {
			slots <- slot
			break
		}
		last = time.Since(begin)
		start(started, slot)
		started++
	}
	return started, last
}
