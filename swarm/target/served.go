package target

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
)

// DefaultCallTimeout is how long one call may take before it counts as a
// timeout: longer than any served fault waits by default (5s).
const DefaultCallTimeout = 30 * time.Second

// conn is one MCP session to a herd world, with the control plane that
// reads it, kept for episode after episode.
type conn struct {
	cs *mcp.ClientSession
	// http, over Streamable HTTP, makes the session's tool calls without
	// the SDK's client (see httpCalls); nil over stdio.
	http  *httpCalls
	id    string // the session's id on the control plane
	ctl   *control.Client
	close func() error // ends the session (and its process, over stdio)
	// stderr is a subprocess's stderr, for messages (nil over HTTP).
	stderr *stderrWatch
	// pending, on a parked connection, awaits the journal of the episode
	// that ran on it: the next reset returns it (see pool.park).
	pending chan journalResult
}

// dialer opens a new connection.
type dialer func(ctx context.Context) (*conn, error)

// Served is a herd world served over MCP, with a control plane: the swarm
// runs the same personas, goals and outcome classes as in-process, each
// episode in a served session reset to the episode's seed, key and goal.
// Connections are pooled: an episode takes one, resets it, and gives it
// back. Served is safe for concurrent use.
type Served struct {
	name        string // what the results call the target
	world       *engine.World
	profile     string
	callTimeout time.Duration
	after       func() error // run by Close after the connections end (stops an in-process server)
	checks      atomic.Int64 // episodes settled (see stateEvery)
	answers     answerCache  // results of the latest distinct answers, over HTTP
	pool
}

func newServed(name string, w *engine.World, profile string, d dialer, callTimeout time.Duration) *Served {
	if callTimeout <= 0 {
		callTimeout = DefaultCallTimeout
	}
	return &Served{name: name, world: w, profile: profile, callTimeout: callTimeout, pool: newPool(name, d)}
}

// Name is the target as the results name it.
func (s *Served) Name() string { return s.name }

// World is the served world.
func (s *Served) World() *engine.World { return s.world }

// Remote binds the target to a run's context and a meter: what an episode
// needs to open its session (personas.Episode.Remote).
func (s *Served) Remote(ctx context.Context, m Meter) personas.Remote {
	return s.RemoteDeferred(ctx, m, nil)
}

// RemoteDeferred is Remote for an agent's last episode in a load run: its
// Settle hands the connection back at once and calls idle (the agent makes
// no more calls, so its in-flight slot can start the next agent), then
// waits for its journal, which the next reset of that connection returns
// (the next episode's first call, _meta control.ResetMeta with
// return_journal) — no control plane request of its own. Drain reads the
// journals no reset will. A nil idle is Remote.
func (s *Served) RemoteDeferred(ctx context.Context, m Meter, idle func()) personas.Remote {
	if m == nil {
		m = NoMeter{}
	}
	return remote{s: s, ctx: ctx, m: m, idle: idle}
}

// Drain reads the journal of every parked episode and parks no more: call
// it once no episode will open a session any more (every agent of the run
// has made its last call).
func (s *Served) Drain(ctx context.Context) {
	s.pool.drain(func(c *conn) ([]servedCall, error) {
		rctx, cancel := context.WithTimeout(ctx, s.callTimeout)
		defer cancel()
		b, err := c.ctl.Journal(rctx, c.id)
		if err != nil {
			return nil, err
		}
		return parseNDJSON(b)
	})
}

type remote struct {
	s    *Served
	ctx  context.Context
	m    Meter
	idle func() // non-nil: the episode's journal comes with the next reset
}

func (r remote) Open(ep personas.Episode, attempt *engine.Attempt, rnd uint64) (personas.RemoteSession, error) {
	sess, err := r.s.open(r.ctx, ep, attempt, rnd, r.m)
	if err != nil {
		return nil, err
	}
	sess.idle = r.idle
	return sess, nil
}

// open takes a connection for the episode. The reset that starts the
// episode on it rides on the first call (Session.Call, _meta
// control.ResetMeta), not on a request of its own: an episode of a few calls
// would otherwise spend a round trip in four on the control plane.
func (s *Served) open(ctx context.Context, ep personas.Episode, attempt *engine.Attempt, rnd uint64, m Meter) (*Session, error) {
	if ep.Base.World() != s.world {
		return nil, fmt.Errorf("%s: the episode's world is %s, the target serves %s", s.name, ep.Base.World().Name, s.world.Name)
	}
	if p := engine.ProfileName(ep.Profile); p != s.profile {
		return nil, fmt.Errorf("%s: the episode's fault profile is %s, the target serves %s", s.name, p, s.profile)
	}
	c, err := s.take(ctx)
	if err != nil {
		return nil, err
	}
	sess := &Session{w: s, c: c, ctx: ctx, m: m, start: time.Now(), target: attempt.Target.ID(),
		reset: &control.Reset{Seed: ep.Base.Seed(), Key: ep.Seed, Goal: ep.Goal.Name, Rnd: rnd}}
	// The previous episode on this connection awaits its journal: the reset
	// returns it.
	sess.parked, c.pending = c.pending, nil
	sess.reset.ReturnJournal = sess.parked != nil
	return sess, nil
}

// call makes one metered tool call and reads its answer. meta, if not nil,
// is the call's _meta; the result's comes back with the answer.
func (s *Served) call(ctx context.Context, c *conn, m Meter, t *engine.Tool, args map[string]any, meta mcp.Meta) (engine.Result, mcp.Meta, Class, error) {
	m.Started()
	start := time.Now()
	var res engine.Result
	var rmeta mcp.Meta
	var class Class
	var err error
	if c.http != nil {
		var a *toolAnswer
		if a, class, err = c.http.call(ctx, s.callTimeout, t.Name, args, meta); err == nil {
			rmeta = a.Meta
			if res, err = answerResult(s.world, t, a, &s.answers); err != nil {
				class = ClassProtocol
			}
		}
	} else {
		var r *mcp.CallToolResult
		if r, class, err = callTool(ctx, c.cs, s.callTimeout, t.Name, args, meta); err == nil {
			rmeta = r.Meta
			if res, err = toResult(s.world, t, r); err != nil {
				class = ClassProtocol
			}
		}
	}
	code := ""
	if class == ClassToolError && res.Err != nil {
		code = res.Err.Code
	}
	m.Ended(t.Name, time.Since(start), class, code)
	return res, rmeta, class, err
}

// Close ends every connection (and every subprocess), then whatever the
// target started (an in-process server).
func (s *Served) Close() error {
	first := s.pool.closeAll()
	if s.after != nil {
		if err := s.after(); err != nil && first == nil {
			first = err
		}
		s.after = nil
	}
	return first
}
