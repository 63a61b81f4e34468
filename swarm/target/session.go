package target

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
)

// Session is one episode's session of a served herd world: the agent's
// calls go over MCP, its waits really wait, and Settle reads the end state
// back through the control plane. It implements personas.RemoteSession.
type Session struct {
	w     *Served
	c     *conn
	ctx   context.Context
	m     Meter
	start time.Time
	calls int
	err   error // the first failure of the transport; the episode is void
	// idle, when set, defers reading the journal to the connection's next
	// reset (Served.RemoteDeferred); Settle calls it once the agent's calls
	// are over.
	idle func()
	// reset, until the first call carries it, is the reset that starts the
	// episode on the served session; target is the id of the goal's target
	// record it must answer (the local attempt's).
	reset  *control.Reset
	target string
	// parked, until the reset answers, is where the previous episode on
	// this connection awaits its journal.
	parked chan journalResult
}

var _ personas.RemoteSession = (*Session)(nil)

// Call makes one tool call over MCP and returns what an in-process call
// would have returned, as far as the answer shows it. After a transport
// failure every call fails at once with code "unavailable" (the episode
// is void: Settle reports the failure).
func (s *Session) Call(tool string, args map[string]any) engine.Result {
	s.calls++
	t := s.w.world.Tool(tool)
	if s.err != nil || t == nil {
		if t == nil && s.err == nil {
			s.err = fmt.Errorf("the agent called %q, which world %s does not have", tool, s.w.world.Name)
		}
		return engine.Result{Tool: tool, Err: &engine.ToolError{Code: engine.CodeUnavailable, Message: s.err.Error()}}
	}
	var meta mcp.Meta
	if s.reset != nil {
		meta = mcp.Meta{control.ResetMeta: s.reset.Meta()}
	}
	res, rmeta, class, err := s.w.call(s.ctx, s.c, s.m, t, args, meta)
	if meta != nil {
		if rerr := s.resetAnswered(rmeta, err); rerr != nil && err == nil {
			s.err = fmt.Errorf("%s: call %d (%s): %w", s.w.name, s.calls, tool, rerr)
			return engine.Result{Tool: tool, Err: &engine.ToolError{Code: engine.CodeUnavailable, Message: rerr.Error()}}
		}
	}
	if err != nil {
		s.err = fmt.Errorf("%s: call %d (%s): %s: %w", s.w.name, s.calls, tool, class, err)
		return engine.Result{Tool: tool, Err: &engine.ToolError{Code: engine.CodeUnavailable, Message: err.Error()}}
	}
	return res
}

// resetAnswered reads the reset the episode's first call carried from the
// call's result _meta (rmeta; callErr: the call failed) and hands the
// journal it dropped to the previous episode, if one awaits it. A result
// that came back but is not a herd answer still carries the reset's: the
// previous episode gets its journal, only this one is void.
func (s *Session) resetAnswered(rmeta mcp.Meta, callErr error) error {
	asked, parked := s.reset, s.parked
	s.reset, s.parked = nil, nil
	if rmeta == nil && callErr != nil {
		// No answer: the call's own error voids this episode, and the
		// previous one cannot know whether its journal was dropped.
		if parked != nil {
			parked <- journalResult{err: fmt.Errorf("the call that was to return it failed: %w", callErr)}
		}
		return nil
	}
	ans, err := readMetaReset(rmeta, asked)
	if parked != nil {
		parked <- journalResult{ans.Journal, err}
	}
	if err != nil {
		return err
	}
	return s.checkTarget(ans.Goal, ans.Target)
}

// resetByControl resets the session through the control plane: for an
// episode that made no call to carry its reset, or ends before one did.
func (s *Session) resetByControl() error {
	asked, parked := s.reset, s.parked
	s.reset, s.parked = nil, nil
	ctx, cancel := context.WithTimeout(s.ctx, s.w.callTimeout)
	defer cancel()
	ans, err := s.c.ctl.Reset(ctx, s.c.id, *asked)
	if parked != nil {
		var calls []servedCall
		if err == nil {
			calls, err = decodeLines(ans.Journal)
		}
		parked <- journalResult{calls, err}
	}
	if err != nil {
		return err
	}
	return s.checkTarget(ans.Goal, ans.Target)
}

func (s *Session) checkTarget(goal, target string) error {
	if target != s.target {
		return fmt.Errorf("%s: goal %s: the served attempt targets %s, the local one %s (is the server running the same world file?)", s.w.name, goal, target, s.target)
	}
	return nil
}

// Sleep really waits (an agent honouring a retry-after): the served world's
// clock moves with real time. A wait is never longer than the per-call
// timeout — a world's retry-after is the world's to set, and an hour of it
// would hold the agent (and an interrupted run) for that hour — and it
// ends when the agent's context does (the run was abandoned).
func (s *Session) Sleep(d time.Duration) {
	d = min(d, s.w.callTimeout)
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-s.ctx.Done():
	}
}

// Elapsed is the real time since the episode began.
func (s *Session) Elapsed() time.Duration { return time.Since(s.start) }

// Calls is how many calls the agent made.
func (s *Session) Calls() int { return s.calls }

// Settle replays the served session's journal into local — which must be
// the episode's fresh local session, with the goal's attempt begun — and
// checks that the replay ends in the very state the server holds. Replaying
// gives local everything the judge reads (records, clock, calls, error
// tallies, the journal with its faults and commits); comparing with the
// served state makes sure the end state judged is the one the agent left.
func (s *Session) Settle(local *engine.Session) error {
	if s.err != nil {
		return s.err
	}
	if s.reset != nil {
		// No call carried the reset: the served session still holds the
		// previous episode, which this one must not be judged on.
		if err := s.resetByControl(); err != nil {
			return s.fail(fmt.Errorf("%s: session %s: %w", s.w.name, s.c.id, err))
		}
	}
	// The replay already checks every call's answer against the served
	// one. The served end state itself is compared on a sample of episodes
	// (the first of each run, then one in stateEvery): it costs a request
	// per episode and has never disagreed where the answers agreed.
	checkState := s.w.checks.Add(1)%stateEvery == 1
	if s.idle != nil && !checkState {
		if calls, ok, err := s.awaitJournal(); ok {
			if err != nil {
				return s.fail(err)
			}
			return s.replayed(local, calls)
		}
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.w.callTimeout)
	defer cancel()
	journal, err := s.c.ctl.Journal(ctx, s.c.id)
	if err != nil {
		return s.fail(err)
	}
	calls, err := parseNDJSON(journal)
	if err != nil {
		return s.fail(fmt.Errorf("%s: session %s: journal: %w", s.w.name, s.c.id, err))
	}
	if err := s.replayed(local, calls); err != nil || !checkState {
		return err
	}
	// Both sessions are of the same base (the world's hash and the seed
	// were checked), so equal changes are equal states.
	changes, err := s.c.ctl.Changes(ctx, s.c.id)
	if err != nil {
		return s.fail(err)
	}
	if !bytes.Equal(bytes.TrimSpace(changes), local.ChangesJSON()) {
		return s.fail(fmt.Errorf("%s: session %s: the served end state differs from its journal replayed in-process (is the server running the same world file?)", s.w.name, s.c.id))
	}
	return nil
}

// awaitJournal parks the connection and waits for the journal its next
// reset returns. ok is false when the target is draining: the caller reads
// the journal itself.
func (s *Session) awaitJournal() (calls []servedCall, ok bool, err error) {
	ch := make(chan journalResult, 1)
	id := s.c.id
	if !s.w.park(s.c, ch) {
		return nil, false, nil
	}
	s.c = nil // the pool has it; Close has nothing to give back
	s.idle()
	select {
	case r := <-ch:
		if r.err != nil {
			return nil, true, fmt.Errorf("%s: session %s: reading the journal: %w", s.w.name, id, r.err)
		}
		return r.calls, true, nil
	case <-s.ctx.Done():
		return nil, true, fmt.Errorf("%s: session %s: stopped while awaiting the journal: %w", s.w.name, id, context.Cause(s.ctx))
	}
}

// replayed replays the served journal into local and checks it holds the
// agent's calls, no more and no fewer.
func (s *Session) replayed(local *engine.Session, calls []servedCall) error {
	n, err := replayCalls(local, calls)
	if err != nil {
		return s.fail(fmt.Errorf("%s: journal: %w", s.w.name, err))
	}
	if n != s.calls {
		hint := ""
		if n < s.calls {
			hint = " (a server whose journal limit is below the episode's calls keeps only the latest: serve with a larger one)"
		}
		return s.fail(fmt.Errorf("%s: the journal has %d calls, the agent made %d%s", s.w.name, n, s.calls, hint))
	}
	return nil
}

// stateEvery: one episode in stateEvery has its served end state compared
// byte for byte with the replayed one.
const stateEvery = 16

func (s *Session) fail(err error) error {
	s.err = err
	return err
}

// Close hands the connection back for the next episode, or closes it if the
// transport failed.
func (s *Session) Close() {
	if s.c == nil {
		return
	}
	if s.parked != nil {
		// Ended before any call went out (a failure, a stop): the previous
		// episode on the connection still awaits the journal its reset
		// returns.
		_ = s.resetByControl()
	}
	s.w.release(s.c, s.err == nil)
	s.c = nil
}

// classify names what an error from CallTool means.
func classify(ctx context.Context, err error) Class {
	var rpcErr *jsonrpc.Error
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case errors.As(err, &rpcErr):
		return ClassProtocol
	case errors.As(err, &typeErr) || errors.As(err, &syntaxErr) || strings.Contains(err.Error(), "unmarshal"):
		return ClassMalformed
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil:
		return ClassTimeout
	}
	return ClassTransport
}

// callTool makes one call with the per-call timeout, meta its _meta. The
// caller meters it (m.Started before, m.Ended after it has judged the
// answer).
func callTool(ctx context.Context, cs *mcp.ClientSession, timeout time.Duration, tool string, args map[string]any, meta mcp.Meta) (*mcp.CallToolResult, Class, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := cs.CallTool(cctx, &mcp.CallToolParams{Meta: meta, Name: tool, Arguments: args})
	switch {
	case err != nil:
		class := classify(cctx, err)
		if ctx.Err() != nil {
			class = ClassCancelled // the run was stopped, not the server
		}
		if class == ClassTimeout {
			err = fmt.Errorf("no answer within %s", timeout)
		}
		return nil, class, err
	case r.IsError:
		return r, ClassToolError, nil
	}
	return r, ClassOK, nil
}
