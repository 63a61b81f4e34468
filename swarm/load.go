package swarm

import (
	"context"
	"math"
	"time"

	"github.com/herd-sh/herd/report"
)

// Hard caps on a load run: a typo (an extra zero) must be an error, not a
// day of traffic.
const (
	MaxRate       = 100_000        // agents started a second
	MaxDuration   = 24 * time.Hour // --duration
	MaxInFlight   = 10_000         // agents at once
	MaxLoadAgents = 1_000_000      // agents a duration-bound run with no agent count given may start
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
	// Churn is the share of agent starts that also open a session of
	// their own, make one to three reads on it and drop it without ending
	// it (session churn; a served herd world only). 0: none.
	Churn float64
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
	Churned     int64        // sessions opened and dropped (Load.Churn)
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

// checkLoad validates the transport part of a configuration. Whether the
// target is one that takes real time is Run's to check.
func checkLoad(cfg *Config) error {
	l := cfg.Load
	if l == nil {
		return nil
	}
	if len(cfg.Descriptions) > 0 {
		return fieldErr("Descriptions", "a served world shows its own descriptions; try your wording in-process (mock:WORLD) or serve a world file that has it")
	}
	if l.Duration < 0 || l.Duration > MaxDuration {
		return fieldErr("Load.Duration", "must be between 0 and %s, got %s", MaxDuration, l.Duration)
	}
	if math.IsNaN(l.Churn) || l.Churn < 0 || l.Churn > 1 {
		return fieldErr("Load.Churn", "must be a share between 0 and 1, got %v", l.Churn)
	}
	if l.MaxInFlight < 0 || l.MaxInFlight > MaxInFlight {
		return fieldErr("Load.MaxInFlight", "must be between 1 and %d, got %d", MaxInFlight, l.MaxInFlight)
	}
	if cfg.Shard.Count > 1 {
		return fieldErr("Shard", "a load run is not sharded; run one load generator per machine instead")
	}
	return nil
}

// LoadStats returns what the last Run measured: how agents were started
// and, over a transport, how calls ended.
func (p *Plan) LoadStats() LoadStats { return p.stats }

// measure is what every run measures besides outcomes: the wall time and,
// over a transport, each call (the meter) and the calls in flight over
// time.
type measure struct {
	meter   *callMeter // nil in-process
	sampler *inFlightSampler
	started time.Time
	seconds float64
	samples []report.Sample // after stop
}

func startMeasure(realTime bool) *measure {
	m := &measure{started: time.Now()}
	if realTime {
		m.meter = newCallMeter()
		m.sampler = startSampler(m.meter, m.started)
	}
	return m
}

// stop ends the measuring.
func (m *measure) stop() {
	if m.sampler != nil {
		m.samples = m.sampler.finish()
	}
	m.seconds = time.Since(m.started).Seconds()
}

// stats are the run's figures (after stop): planned agents, those started,
// and when the last one started.
func (m *measure) stats(planned, started int, lastStart time.Duration) LoadStats {
	st := LoadStats{Planned: planned, Started: started, StartWindow: lastStart, Seconds: m.seconds}
	if m.meter != nil {
		st.Calls, st.Classes = m.meter.Calls(), m.meter.classCounts()
	}
	return st
}

// timing is the run's timing section (after stop): over a transport,
// latency, calls in flight and calls by class besides the wall time.
func (m *measure) timing(st LoadStats, episodes, workers int) *report.Timing {
	t := newTiming(m.started, st.Seconds, episodes, workers)
	if m.meter != nil {
		t.Latency, t.InFlight, t.Calls = m.meter.histograms(), m.samples, callClasses(st.Classes)
		t.LatencyOK, t.LatencyError, t.WarmupCalls = m.meter.split()
	}
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
