package swarm

import (
	"context"
	"errors"
	"fmt"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/swarm/target"
)

// Target is what a run's agents act on: the engine in this process, a herd
// world served over MCP, or an MCP server that is not a herd world. Every
// run, whatever its target, goes through Plan.Run: an agent's episode opens
// a session on the target, makes its calls, reads the session's end state
// back — or is told the target cannot show one, and is judged on its
// answers — and closes it.
type Target interface {
	// Name is what the results call the target ("in-process" for the
	// engine).
	Name() string
	// RealTime reports whether calls cross a transport and take real time:
	// the run then paces agent starts (Config.Load), meters every call and
	// reports latency. In-process runs keep virtual time.
	RealTime() bool
	// Sessions is where agents' episodes under variant v (an index into the
	// run's variants) open their sessions, bound to the run's context and
	// call meter: nil for sessions of the engine in this process. idle,
	// when not nil, is called once the agent has made its last call (it
	// may still await its end state): a paced run then starts the next
	// agent in its place.
	Sessions(ctx context.Context, v int, m target.Meter, idle func()) personas.Remote
	// Drain reads the end states no later episode's session will bring
	// back: called once, when every agent has made its last call.
	Drain(ctx context.Context)
	// Close ends every connection and whatever the target started.
	Close() error
}

// InProcess is the engine itself: episodes run on engine sessions of the
// run's seeded base, in virtual time. Its zero value is ready.
type InProcess struct{}

// Name is "in-process".
func (InProcess) Name() string { return "in-process" }

// RealTime is false: nothing sleeps.
func (InProcess) RealTime() bool { return false }

// Sessions is nil: an episode opens its own engine session.
func (InProcess) Sessions(context.Context, int, target.Meter, func()) personas.Remote { return nil }

// Drain has nothing to read.
func (InProcess) Drain(context.Context) {}

// Close has nothing to end.
func (InProcess) Close() error { return nil }

// Served is a herd world served over MCP, one server per variant of the
// run (a served world shows one variant), each episode's end state read
// back through the control plane and judged as in-process.
type Served struct {
	name string
	ts   []*target.Served
}

// NewServed makes the target of a run over ts, one per variant in the
// run's order; name is what the results call it (the TARGET as given).
// Closing it closes them all.
func NewServed(name string, ts ...*target.Served) *Served { return &Served{name: name, ts: ts} }

// Name is the target as the user named it.
func (s *Served) Name() string { return s.name }

// RealTime is true.
func (s *Served) RealTime() bool { return true }

// Sessions binds variant v's server to the run.
func (s *Served) Sessions(ctx context.Context, v int, m target.Meter, idle func()) personas.Remote {
	return s.ts[v].RemoteDeferred(ctx, m, idle)
}

// Churn opens a session on the first variant's server, makes calls reads
// and drops it unended (target.Served.Churn).
func (s *Served) Churn(ctx context.Context, m target.Meter, calls int) error {
	return s.ts[0].Churn(ctx, m, calls)
}

// churner is a Target that can open sessions and drop them (Load.Churn).
type churner interface {
	Churn(ctx context.Context, m target.Meter, calls int) error
}

// Drain reads the journals of the episodes that await them.
func (s *Served) Drain(ctx context.Context) {
	for _, t := range s.ts {
		t.Drain(ctx)
	}
}

// Close closes every server's connections (and stops what it started).
func (s *Served) Close() error {
	var errs []error
	for _, t := range s.ts {
		errs = append(errs, t.Close())
	}
	return errors.Join(errs...)
}

// check refuses a served target that does not fit the plan.
func (s *Served) check(p *Plan) error {
	cfg := &p.cfg
	if len(s.ts) != len(cfg.Variants) {
		return fmt.Errorf("%d targets for %d variants: a served world shows one variant", len(s.ts), len(cfg.Variants))
	}
	for _, t := range s.ts {
		if t.World() != cfg.World {
			return fmt.Errorf("target %s serves world %s, the run is of %s", t.Name(), t.World().Name, cfg.World.Name)
		}
	}
	return nil
}
