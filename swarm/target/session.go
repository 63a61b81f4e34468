package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

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
	res, class, err := s.w.call(s.ctx, s.c, s.m, t, args)
	if err != nil {
		s.err = fmt.Errorf("%s: call %d (%s): %s: %w", s.w.name, s.calls, tool, class, err)
		return engine.Result{Tool: tool, Err: &engine.ToolError{Code: engine.CodeUnavailable, Message: err.Error()}}
	}
	return res
}

// Sleep really waits (an agent honouring a retry-after): the served world's
// clock moves with real time.
func (s *Session) Sleep(d time.Duration) {
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
	// The replay already checks every call's answer against the served
	// one. The served end state itself is compared on a sample of episodes
	// (the first of each run, then one in stateEvery): it costs a request
	// per episode and has never disagreed where the answers agreed.
	checkState := s.w.checks.Add(1)%stateEvery == 1
	if s.idle != nil && !checkState {
		if lines, ok, err := s.awaitJournal(); ok {
			if err != nil {
				return s.fail(err)
			}
			return s.replayed(local, lines)
		}
	}
	ctx, cancel := context.WithTimeout(s.ctx, s.w.callTimeout)
	defer cancel()
	journal, err := s.c.ctl.Journal(ctx, s.c.id)
	if err != nil {
		return s.fail(err)
	}
	lines, err := splitNDJSON(journal)
	if err != nil {
		return s.fail(fmt.Errorf("%s: session %s: journal: %w", s.w.name, s.c.id, err))
	}
	if err := s.replayed(local, lines); err != nil || !checkState {
		return err
	}
	state, err := s.c.ctl.State(ctx, s.c.id)
	if err != nil {
		return s.fail(err)
	}
	if !bytes.Equal(bytes.TrimSpace(state), local.StateJSON()) {
		return s.fail(fmt.Errorf("%s: session %s: the served end state differs from its journal replayed in-process (is the server running the same world file?)", s.w.name, s.c.id))
	}
	return nil
}

// awaitJournal parks the connection and waits for the journal its next
// reset returns. ok is false when the target is draining: the caller reads
// the journal itself.
func (s *Session) awaitJournal() (lines []json.RawMessage, ok bool, err error) {
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
		return r.lines, true, nil
	case <-s.ctx.Done():
		return nil, true, fmt.Errorf("%s: session %s: stopped while awaiting the journal: %w", s.w.name, id, context.Cause(s.ctx))
	}
}

// replayed replays the served journal into local and checks it holds the
// agent's calls, no more and no fewer.
func (s *Session) replayed(local *engine.Session, lines []json.RawMessage) error {
	n, err := replayLines(local, lines)
	if err != nil {
		return s.fail(fmt.Errorf("%s: journal: %w", s.w.name, err))
	}
	if n != s.calls {
		return s.fail(fmt.Errorf("%s: the journal has %d calls, the agent made %d", s.w.name, n, s.calls))
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
	s.w.release(s.c, s.err == nil)
	s.c = nil
}

// journalLine is the part of a journal line a replay needs, and what it
// checks the replayed call against.
type journalLine struct {
	Tool      string          `json:"tool"`
	Args      json.RawMessage `json:"args"`
	AtMS      float64         `json:"at_ms"`
	OK        bool            `json:"ok"`
	Fault     string          `json:"fault"`
	Committed bool            `json:"committed"`
	Replayed  bool            `json:"replayed"`
	Error     *struct {
		Code string `json:"code"`
	} `json:"error"`
}

// splitNDJSON splits a journal (NDJSON) into its lines.
func splitNDJSON(journal []byte) ([]json.RawMessage, error) {
	var lines []json.RawMessage
	sc := bufio.NewScanner(bytes.NewReader(journal))
	sc.Buffer(make([]byte, 0, 64<<10), maxControlAnswer)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			lines = append(lines, bytes.Clone(line))
		}
	}
	return lines, sc.Err()
}

// replayLines runs a served session's journal, a line a value, on s
// (docs/serve.md: wait until the call's at_ms, then call). Arguments are
// decoded the way the server decoded them, so each call sees what the
// served call saw; each replayed answer must be the served one (success,
// error code, fault, commit).
func replayLines(s *engine.Session, lines []json.RawMessage) (int, error) {
	n := 0
	for _, line := range lines {
		var l journalLine
		if err := json.Unmarshal(line, &l); err != nil {
			return n, fmt.Errorf("line %d: %v", n+1, err)
		}
		var args map[string]any
		if len(l.Args) > 0 {
			if err := json.Unmarshal(l.Args, &args); err != nil {
				return n, fmt.Errorf("line %d: args: %v", n+1, err)
			}
		}
		if args == nil {
			args = map[string]any{}
		}
		at := time.Duration(math.Round(l.AtMS*1e3)) * time.Microsecond
		s.Sleep(at - s.Elapsed())
		r := s.Call(l.Tool, args)
		n++
		code := ""
		if l.Error != nil {
			code = l.Error.Code
		}
		rcode := ""
		if r.Err != nil {
			rcode = r.Err.Code
		}
		if r.OK() != l.OK || rcode != code || r.Fault != l.Fault || r.Committed != l.Committed || r.Replayed != l.Replayed {
			return n, fmt.Errorf("call %d (%s): served ok=%v %s fault=%q, replayed in-process ok=%v %s fault=%q (is the server running the same world file?)",
				n, l.Tool, l.OK, code, l.Fault, r.OK(), rcode, r.Fault)
		}
	}
	return n, nil
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

// callTool makes one call with the per-call timeout. The caller meters it
// (m.Started before, m.Ended after it has judged the answer).
func callTool(ctx context.Context, cs *mcp.ClientSession, timeout time.Duration, tool string, args map[string]any) (*mcp.CallToolResult, Class, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	r, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: tool, Arguments: args})
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
