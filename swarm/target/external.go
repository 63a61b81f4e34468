package target

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// External is any MCP server: no control plane, so the swarm sees only its
// answers.
//
// Over stdio it is a fixed pool of server processes, started (Warm) before
// a run's clock starts and shared by every agent: each process answers
// calls from several agents at once, as one server would answer several
// clients, so the latency measured is the server's, not that of starting
// processes mid-burst. Over HTTP each agent takes a session of its own
// (sessions are cheap; the server is one).
type External struct {
	name        string
	callTimeout time.Duration
	stdio       bool
	skipped     *SkippedLines // stdio: stdout lines that were not JSON
	// live is the whole server's liveness over HTTP (one server behind
	// every session); over stdio each process has its own.
	live *liveness
	pool extPool
}

// WarmupCalls is how many calls on each process of a stdio server count
// as its warm-up: they are judged like any other, but their latency is not
// recorded (a cold process compiles and loads as it answers its first
// calls).
const WarmupCalls = 3

// DefaultProcesses is the size of a stdio server's process pool when the
// run does not say.
const DefaultProcesses = 4

// MaxProcesses caps a stdio server's process pool.
const MaxProcesses = 64

// ExternalHTTP is an MCP server over Streamable HTTP at u.
func ExternalHTTP(u *url.URL, hc *http.Client, opts Options) *External {
	endpoint := u.String()
	e := newExternal(endpoint, opts)
	e.live = &liveness{}
	e.pool.dial = func(ctx context.Context) (*extConn, error) {
		cs, err := connectHTTP(ctx, endpoint, hc)
		if err != nil {
			return nil, err
		}
		return &extConn{cs: cs, close: cs.Close, live: e.live}, nil
	}
	return e
}

// External turns the stdio server into a target judged on its answers: a
// pool of subprocesses, the first one already started.
func (s *Stdio) External(name string) *External {
	command, skipped := s.command, s.skipped
	e := newExternal(name, s.opts)
	e.stdio, e.skipped = true, skipped
	e.pool.fixed = DefaultProcesses
	e.pool.dial = func(ctx context.Context) (*extConn, error) {
		p, err := startProcess(ctx, command, skipped)
		if err != nil {
			return nil, err
		}
		return processConn(p), nil
	}
	if s.first != nil {
		e.pool.add(processConn(s.first))
		s.first = nil
	}
	return e
}

func processConn(p *process) *extConn {
	return &extConn{cs: p.cs, close: p.close, proc: p, live: &liveness{}}
}

func newExternal(name string, opts Options) *External {
	t := opts.CallTimeout
	if t <= 0 {
		t = DefaultCallTimeout
	}
	return &External{name: name, callTimeout: t, pool: extPool{name: name}}
}

// Name is the target as given.
func (e *External) Name() string { return e.name }

// Stdio reports whether the server runs as subprocesses of the swarm.
func (e *External) Stdio() bool { return e.stdio }

// Warm starts and initializes the stdio server's processes until there
// are n (in parallel), so that a run's clock starts with them ready. Over
// HTTP it does nothing. It returns the pool's size.
func (e *External) Warm(ctx context.Context, n int) (int, error) {
	if !e.stdio {
		return 0, nil
	}
	if n < 1 || n > MaxProcesses {
		return 0, fmt.Errorf("%s: processes must be between 1 and %d, got %d", e.name, MaxProcesses, n)
	}
	e.pool.mu.Lock()
	e.pool.fixed = n
	missing := n - len(e.pool.conns)
	e.pool.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, max(missing, 0))
	for k := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := e.pool.dial(ctx)
			if err != nil {
				errs[k] = err
				return
			}
			e.pool.add(c)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return 0, fmt.Errorf("%s: starting its processes: %w", e.name, err)
	}
	return e.Processes(), nil
}

// Processes is the number of live processes in a stdio server's pool (0
// over HTTP).
func (e *External) Processes() int {
	if !e.stdio {
		return 0
	}
	e.pool.mu.Lock()
	defer e.pool.mu.Unlock()
	return len(e.pool.conns)
}

// SkippedLines is the count of stdout lines skipped because they were not
// JSON, and the first few of them (0 and nil over HTTP).
func (e *External) SkippedLines() (int64, []string) { return e.skipped.Count() }

// ProcessStats are the resident memory and CPU time of each live process
// of a stdio server (and of the processes it started), read from /proc:
// nil over HTTP and where there is no /proc.
func (e *External) ProcessStats() []ProcessStat {
	if !e.stdio {
		return nil
	}
	e.pool.mu.Lock()
	var pids []int
	for _, c := range e.pool.conns {
		if c.proc != nil && !c.proc.dead() {
			pids = append(pids, c.proc.cmd.Process.Pid)
		}
	}
	e.pool.mu.Unlock()
	return readProcessStats(pids)
}

// Server describes the server and lists its tools (every page).
func (e *External) Server(ctx context.Context) (*mcp.Implementation, []*mcp.Tool, error) {
	c, err := e.pool.take(ctx)
	if err != nil {
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, e.callTimeout)
	defer cancel()
	var tools []*mcp.Tool
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			e.pool.release(c, false)
			return nil, nil, fmt.Errorf("%s: listing tools: %w%s", e.name, err, c.note())
		}
		tools = append(tools, t)
	}
	info := &mcp.Implementation{Name: "unknown"}
	if r := c.cs.InitializeResult(); r != nil && r.ServerInfo != nil {
		info = r.ServerInfo
	}
	e.pool.release(c, true)
	return info, tools, nil
}

// ExternalCall is one call's answer and what became of it.
type ExternalCall struct {
	Result *mcp.CallToolResult // nil unless the server answered with a result
	Class  Class
	Err    error // the protocol, transport or timeout error
	Took   time.Duration
	// Hung, on a timed-out call, says the server has stopped answering:
	// nothing came back on its connection (its process, over stdio) since
	// an earlier call timed out, this call was sent after that one's
	// deadline, and the server does not answer a ping either. A call that
	// merely took too long is a timeout, not Hung.
	Hung bool
	// Died, on a transport error over stdio, says the process exited.
	Died bool
	// Warmup says the call was one of its connection's first
	// (WarmupCalls): its latency was not recorded.
	Warmup bool
}

// ExternalSession is a connection held for one agent's calls.
type ExternalSession struct {
	e   *External
	c   *extConn
	bad bool
}

// Open takes a connection for one agent.
func (e *External) Open(ctx context.Context) (*ExternalSession, error) {
	c, err := e.pool.take(ctx)
	if err != nil {
		return nil, err
	}
	return &ExternalSession{e: e, c: c}, nil
}

// WarmupMeter is a Meter that can also be told of a call whose latency is
// not to be recorded (a warm-up call): it still counts how it ended.
type WarmupMeter interface {
	Meter
	EndedWarmup(tool string, c Class, code string)
}

// Call makes one metered call.
func (s *ExternalSession) Call(ctx context.Context, tool string, args map[string]any, m Meter) ExternalCall {
	c := s.c
	// Over HTTP the server is one process, warm after its first calls
	// whatever the session: only a stdio process has a warm-up of its own.
	warm := c.calls.Add(1) <= WarmupCalls && c.proc != nil
	wm, canWarm := m.(WarmupMeter)
	warm = warm && canWarm
	m.Started()
	start := time.Now()
	r, class, err := callTool(ctx, c.cs, s.e.callTimeout, tool, args, nil)
	took := time.Since(start)
	if warm {
		wm.EndedWarmup(tool, class, toolErrorCode(r, class))
	} else {
		m.Ended(tool, took, class, toolErrorCode(r, class))
	}
	out := ExternalCall{Result: r, Class: class, Err: err, Took: took, Warmup: warm}
	switch class {
	case ClassCancelled:
	case ClassTimeout:
		silent, slowTool := c.live.timedOut(tool, start, s.e.callTimeout)
		// A silence on a tool known to be slow may be the end of a run
		// where only its calls are left: the server is hung only if it
		// does not answer a ping either.
		out.Hung = silent && (!slowTool || !c.pings(ctx, s.e.callTimeout))
		if out.Hung {
			err = fmt.Errorf("%w; nothing has come back since an earlier call timed out: the server stopped answering%s", err, c.note())
		}
	case ClassTransport:
		s.bad = true
		out.Died = c.proc != nil && c.proc.exitedWithin(time.Second)
		if out.Died {
			err = fmt.Errorf("%w (the process exited: %v)%s", err, c.proc.waitErr, c.note())
		} else {
			err = fmt.Errorf("%w%s", err, c.note())
		}
	default:
		c.live.answered()
	}
	out.Err = err
	return out
}

// Close gives the connection back, or drops it after a transport failure.
func (s *ExternalSession) Close() {
	if s.c != nil {
		s.e.pool.release(s.c, !s.bad)
		s.c = nil
	}
}

// Close ends every connection and subprocess.
func (e *External) Close() error { return e.pool.closeAll() }

// extConn is one connection to an external server: an MCP session (and,
// over stdio, its process).
type extConn struct {
	cs    *mcp.ClientSession
	close func() error
	proc  *process // nil over HTTP
	live  *liveness
	calls atomic.Int64 // calls made on it
	busy  int          // sessions holding it (extPool.mu)
}

// pingWait bounds the ping that checks a silent server is still there.
const pingWait = 5 * time.Second

// pings reports whether the server answers an MCP ping: a server whose
// tools are slow still does (then it is marked alive again); one that has
// stopped answering does not.
func (c *extConn) pings(ctx context.Context, callTimeout time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, min(callTimeout, pingWait))
	defer cancel()
	if c.cs.Ping(ctx, nil) != nil {
		return false
	}
	c.live.answered()
	return true
}

// note is the end of a subprocess's stderr, for an error message.
func (c *extConn) note() string {
	if c.proc == nil {
		return ""
	}
	return strings.TrimSpace(c.proc.stderr.tailNote())
}

// exitedWithin reports whether the process exits within d (a broken pipe
// is seen a moment before the exit is).
func (p *process) exitedWithin(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// liveness tells a server that stopped answering from one that is slow.
type liveness struct {
	mu         sync.Mutex
	lastAnswer time.Time       // when something last came back
	silentFrom time.Time       // start of the earliest call that timed out since the last answer (zero: none)
	slow       map[string]bool // tools with a call that timed out while the server answered others
}

// answered records an answer: the server is alive.
func (l *liveness) answered() {
	l.mu.Lock()
	l.silentFrom, l.lastAnswer = time.Time{}, time.Now()
	l.mu.Unlock()
}

// timedOut records that a call of tool sent at start got no answer within
// timeout. silent says the server may have stopped answering: an earlier
// call timed out with nothing answered since, and this one was sent after
// that one's deadline had passed — so every call in flight then timed
// out, and the next ones too. slowTool says the tool is known to be slow:
// one of its calls timed out while the server answered others.
func (l *liveness) timedOut(tool string, start time.Time, timeout time.Duration) (silent, slowTool bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lastAnswer.After(start) {
		if l.slow == nil {
			l.slow = map[string]bool{}
		}
		l.slow[tool] = true
	}
	slowTool = l.slow[tool]
	if l.silentFrom.IsZero() || start.Before(l.silentFrom) {
		if l.silentFrom.IsZero() {
			l.silentFrom = start
		}
		return false, slowTool
	}
	return start.Sub(l.silentFrom) >= timeout, slowTool
}

// extPool holds an external server's connections. With fixed > 0 (a
// stdio server) it is a fixed set of connections shared by every agent,
// each agent taking the least busy one; otherwise each agent takes an
// idle connection of its own, or a new one.
type extPool struct {
	name  string
	dial  func(context.Context) (*extConn, error)
	fixed int

	mu     sync.Mutex
	conns  []*extConn
	next   int // where the search for the least busy connection starts (spreads ties)
	lost   int // connections dropped after their transport failed
	closed bool
}

// add adds a connection opened elsewhere.
func (p *extPool) add(c *extConn) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		_ = c.close()
		return
	}
	p.conns = append(p.conns, c)
	p.mu.Unlock()
}

// take returns a connection for one agent.
func (p *extPool) take(ctx context.Context) (*extConn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New(p.name + ": closed")
	}
	var best *extConn
	if n := len(p.conns); n > 0 {
		for k := range n {
			c := p.conns[(p.next+k)%n]
			if best == nil || c.busy < best.busy {
				best = c
			}
		}
		p.next = (p.next + 1) % n
	}
	// A shared pool grows only to its size (a process that died is not
	// replaced: the run stops for it); a private one whenever every
	// connection is taken.
	if best != nil && (p.fixed > 0 || best.busy == 0) {
		best.busy++
		p.mu.Unlock()
		return best, nil
	}
	if p.fixed > 0 && len(p.conns) == 0 && p.lost > 0 {
		p.mu.Unlock()
		return nil, errors.New(p.name + ": every process of the pool has exited")
	}
	p.mu.Unlock()
	c, err := p.dial(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.close()
		return nil, errors.New(p.name + ": closed")
	}
	c.busy = 1
	p.conns = append(p.conns, c)
	return c, nil
}

// release gives a connection back (ok) or drops and closes it (its
// transport failed).
func (p *extPool) release(c *extConn, ok bool) {
	p.mu.Lock()
	c.busy--
	if p.closed || ok {
		p.mu.Unlock()
		return // closeAll closes it, or it goes on serving
	}
	found := false
	for i, x := range p.conns {
		if x == c {
			p.conns = append(p.conns[:i], p.conns[i+1:]...)
			p.lost, found = p.lost+1, true
			break
		}
	}
	p.mu.Unlock()
	if found { // another agent sharing it may have dropped it already
		_ = c.close()
	}
}

// closeAll ends every connection (in parallel: each process may take a
// moment to exit); the pool takes no more.
func (p *extPool) closeAll() error {
	p.mu.Lock()
	p.closed = true
	conns := p.conns
	p.conns = nil
	p.mu.Unlock()
	errs := make([]error, len(conns))
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = c.close()
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// toolErrorCode is the code of a tool error that names one the way herd
// worlds do ({"error": {"code": …}}); most servers' errors are free text,
// and their code is "".
func toolErrorCode(r *mcp.CallToolResult, class Class) string {
	if class != ClassToolError || r == nil {
		return ""
	}
	text, err := resultText(r)
	if err != nil || len(text) == 0 || text[0] != '{' {
		return ""
	}
	var we struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(text, &we) != nil || we.Error == nil {
		return ""
	}
	return we.Error.Code
}
