// Package serve exposes a herd world as a real MCP server, over stdio or
// Streamable HTTP, with a control plane (HTTP, under /control) that lets a
// test in any language reset a session, read its end state and journal,
// snapshot and restore it, and switch fault profiles.
//
// Each MCP session is its own engine session on the seeded base. Tool calls
// go to the engine unchanged — the engine checks arguments against the
// tool's params, so a served call and an in-process call with the same
// arguments give the same result and the same journal. Faults are real here:
// the server sleeps the call's latency and makes a timed-out caller wait.
//
// The engine knows nothing of MCP; this package is the only adapter.
package serve

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/version"
)

// Defaults for Options fields left at zero.
const (
	DefaultMaxFaultWait = 5 * time.Second
	DefaultMaxSessions  = 1000
	DefaultIdleTimeout  = 5 * time.Minute

	// DefaultJournalLimit is how many calls a session's journal keeps (the
	// latest; totals count them all). It is the most calls a built-in
	// persona's episode makes (its patience is at most 1,000), so the
	// journal a reset hands back to herd swarm is always the whole episode.
	DefaultJournalLimit = 1000

	// DefaultEndedJournalLimit is how many journal entries a session keeps
	// once it has ended: enough for what a test's agent did, little enough
	// that a thousand ended sessions stay small.
	DefaultEndedJournalLimit = 100

	// MaxRequestBytes bounds one MCP request (an HTTP body or a stdio line):
	// world records are small, and megabytes of arguments are an attack or
	// a bug.
	MaxRequestBytes = 1 << 20
)

// Options configure a Server.
type Options struct {
	World   *engine.World
	Seed    uint64 // the seed sessions start on
	Variant string // tool description variant; "" is the world's first
	Faults  string // fault profile; "" is engine.NoFaults

	// MaxFaultWait caps the real time one call waits (its latency, or the
	// timeout of a timeout fault), so a served world never stalls a caller
	// for the profile's full 30s timeout unless asked to. Zero means
	// DefaultMaxFaultWait; a negative value means calls never wait (the
	// virtual clock still moves).
	MaxFaultWait time.Duration

	// MaxSessions is the most MCP sessions served at once (zero:
	// DefaultMaxSessions). At the limit, a new HTTP session takes the place
	// of the live one idle the longest (evicted), and is refused only when
	// every live session has a request in flight. As many ended sessions
	// are kept readable through the control plane.
	MaxSessions int

	// IdleTimeout closes an HTTP session that has had no request for this
	// long (zero: DefaultIdleTimeout; negative: never). Its world stays
	// readable. Clients that end without a DELETE (many do) leave sessions
	// only this timeout or an eviction frees.
	IdleTimeout time.Duration

	// JournalLimit is how many calls a session's journal keeps, the latest
	// (zero: DefaultJournalLimit; negative: all — memory then grows with
	// every call of a session that is never reset). An ended session keeps
	// at most EndedJournalLimit of them.
	JournalLimit int

	// EndedJournalLimit is how many journal entries an ended session keeps,
	// the latest (zero: DefaultEndedJournalLimit; never more than
	// JournalLimit): ended sessions are kept by the hundred, each as its
	// end state, its totals and this tail of its journal.
	EndedJournalLimit int

	// Token, when set, must be presented as "Authorization: Bearer TOKEN" on
	// every HTTP request (/mcp and /control).
	Token string

	// AllowRemote accepts Host and Origin headers that are not loopback.
	// Without it, a request whose Host or Origin names another machine is
	// refused: that is how a DNS-rebinding page would reach a local server.
	AllowRemote bool

	// ControlURL is where the control plane is served
	// (http://HOST:PORT/control), announced to every client in the
	// initialize result's experimental capabilities (control.Capability):
	// a client that started the server over stdio finds it there.
	ControlURL string

	Logger *slog.Logger // nil: discard
}

// Server serves one world over MCP. Create it with New; it is safe for
// concurrent use.
type Server struct {
	world    *engine.World
	variant  string
	maxWait  time.Duration
	idle     time.Duration
	token    string
	remote   bool
	log      *slog.Logger
	mcp      *mcp.Server
	sessions *registry
	bases    *baseCache
	seed     uint64
	control  string       // the control plane's URL, announced at initialize
	calls    atomic.Int64 // tool calls served (GET /control/runtime)

	// done is closed by Close: calls sleeping out a latency return at once.
	done      chan struct{}
	closeOnce sync.Once
	watchMu   sync.Mutex
	closing   bool           // Close has begun: no new watchers
	watchers  sync.WaitGroup // one per session, until it closes; and the idle janitor
	janitor   sync.Once      // started with the first HTTP session
	now       func() time.Time
}

// New builds a server for opts.World. It seeds the base once, so a world
// whose seed breaks an invariant fails here, not on the first call.
func New(opts Options) (*Server, error) {
	w := opts.World
	if w == nil {
		return nil, errors.New("serve: no world")
	}
	variant := opts.Variant
	if variant == "" {
		variant = w.DefaultVariant()
	}
	if !w.HasVariant(variant) {
		return nil, fmt.Errorf("world %s: no description variant %q (have: %s)", w.Name, variant, strings.Join(w.Variants, ", "))
	}
	faults := opts.Faults
	if faults == "" {
		faults = engine.NoFaults
	}
	profile, err := w.FindProfile(faults)
	if err != nil {
		return nil, err
	}
	s := &Server{
		world:   w,
		variant: variant,
		maxWait: opts.MaxFaultWait,
		idle:    opts.IdleTimeout,
		token:   opts.Token,
		remote:  opts.AllowRemote,
		log:     opts.Logger,
		seed:    opts.Seed,
		control: opts.ControlURL,
		done:    make(chan struct{}),
		now:     time.Now,
	}
	if s.maxWait == 0 {
		s.maxWait = DefaultMaxFaultWait
	}
	if s.idle == 0 {
		s.idle = DefaultIdleTimeout
	}
	journalLimit := opts.JournalLimit
	switch {
	case journalLimit == 0:
		journalLimit = DefaultJournalLimit
	case journalLimit < 0:
		journalLimit = 0 // the engine's "no limit"
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	maxSessions := opts.MaxSessions
	if maxSessions <= 0 {
		maxSessions = DefaultMaxSessions
	}
	s.bases = newBaseCache(w)
	if _, err := s.bases.get(opts.Seed); err != nil {
		return nil, err
	}
	endedLimit := opts.EndedJournalLimit
	if endedLimit <= 0 {
		endedLimit = DefaultEndedJournalLimit
	}
	if journalLimit > 0 {
		endedLimit = min(endedLimit, journalLimit)
	}
	s.sessions = newRegistry(s.bases, opts.Seed, profile, maxSessions, journalLimit, s.log)
	s.sessions.endedLimit = endedLimit
	s.mcp = s.newMCPServer()
	return s, nil
}

// World returns the served world.
func (s *Server) World() *engine.World { return s.world }

// Variant returns the description variant the tools show.
func (s *Server) Variant() string { return s.variant }

// Sessions lists the world sessions in creation order.
func (s *Server) Sessions() []control.SessionInfo {
	list := s.sessions.list()
	out := make([]control.SessionInfo, len(list))
	for i, ws := range list {
		out[i] = ws.info()
	}
	return out
}

// SetFaults switches the fault profile of every session and of new ones.
func (s *Server) SetFaults(name string) error {
	p, err := s.world.FindProfile(name)
	if err != nil {
		return err
	}
	s.sessions.setProfile(p)
	s.log.Info("fault profile switched", "profile", name)
	return nil
}

// Connect serves one MCP session over t (stdio, an in-memory transport in
// tests). name is the session's id on the control plane ("stdio").
func (s *Server) Connect(ctx context.Context, t mcp.Transport, name string) (*mcp.ServerSession, error) {
	return s.mcp.Connect(withSessionName(ctx, name), t, nil)
}

// Close ends every MCP session, wakes calls sleeping out a latency, and
// waits for the server's goroutines. Sessions' worlds stay readable. Close
// may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.watchMu.Lock()
	s.closing = true
	s.watchMu.Unlock()
	for ss := range s.mcp.Sessions() {
		ss.Close()
	}
	// The watchers end once their sessions have; after Close returns
	// nothing of the server is left running (or logging).
	s.watchers.Wait()
}

// newMCPServer builds the SDK server: one tool per world tool, the world
// resources, and middleware that maps sessions, contains panics and
// encodes each tool result in one pass (encodedToolResult).
func (s *Server) newMCPServer() *mcp.Server {
	w := s.world
	srv := mcp.NewServer(&mcp.Implementation{
		Name:    "herd",
		Title:   "herd world " + w.Name,
		Version: version.String(),
	}, &mcp.ServerOptions{
		Instructions: w.Instructions, // never the description: it says what a run judges
		Logger:       SDKLogger(s.log, "mcp"),
		Capabilities: s.capabilities(),
	})
	srv.AddReceivingMiddleware(ContainPanics(s.log), s.trackSessions, encodeToolResults)
	for _, t := range w.Tools {
		srv.AddTool(s.mcpTool(t), s.toolHandler(t))
	}
	s.addResources(srv)
	return srv
}

// capabilities are what the server declares besides tools and resources
// (which the SDK adds): logging, so a client may ask with logging/setLevel
// for what happens to its session (see sessionLog); and where the control
// plane listens, when it does.
func (s *Server) capabilities() *mcp.ServerCapabilities {
	c := &mcp.ServerCapabilities{Logging: &mcp.LoggingCapabilities{}}
	if s.control != "" {
		c.Experimental = map[string]any{control.Capability: control.Announce{URL: s.control}}
	}
	return c
}

// sessionName carries a transport's session name through the connection's
// context: the SDK keeps the context's values for every request handler.
type sessionNameKey struct{}

func withSessionName(ctx context.Context, name string) context.Context {
	return context.WithValue(ctx, sessionNameKey{}, name)
}

func sessionName(ctx context.Context) string {
	name, _ := ctx.Value(sessionNameKey{}).(string)
	return name
}

// session returns the world session of the request's MCP session.
func (s *Server) session(ctx context.Context, req mcp.Request) (*worldSession, error) {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return nil, errors.New("request has no server session")
	}
	ws, isNew, err := s.sessions.forMCP(ctx, ss, sessionName(ctx), s.now())
	if err != nil {
		return nil, err
	}
	if isNew && !s.watch(ss) {
		s.sessions.closeMCP(ss)
		return nil, errors.New("server is shutting down")
	}
	if isNew {
		// key changes under ws.mu when the control plane resets the session.
		ws.mu.Lock()
		key := ws.key
		ws.mu.Unlock()
		s.log.Info("session opened", "session", ws.id, "key", key)
		if ws.ss != nil && s.idle > 0 {
			s.janitor.Do(s.startJanitor)
		}
	}
	return ws, nil
}

// startJanitor starts the goroutine that ends HTTP sessions idle for the
// idle timeout (unless Close has begun). It checks a few times per timeout,
// so a session ends at most a quarter of the timeout late.
func (s *Server) startJanitor() {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.closing {
		return
	}
	every := min(max(s.idle/4, 10*time.Millisecond), 30*time.Second)
	s.watchers.Add(1)
	go func() {
		defer s.watchers.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-s.done:
				return
			case <-tick.C:
				now := s.now()
				for _, ws := range s.sessions.idleSince(now.Add(-s.idle)) {
					s.log.Info("session timed out", "session", ws.id, "idle", now.Sub(time.Unix(0, ws.lastActive.Load())).Round(time.Millisecond), "timeout", s.idle)
					s.endMCP(ws)
				}
			}
		}
	}()
}

// endMCP closes the MCP session of a world session the server ended (its
// world stays readable). Close waits for the connection, so it is never
// called with a lock held.
func (s *Server) endMCP(ws *worldSession) {
	if ws != nil && ws.ss != nil {
		_ = ws.ss.Close()
	}
}

// watch starts a watcher for a new session, unless Close has begun (then
// the session is refused: Close would not wait for it).
func (s *Server) watch(ss *mcp.ServerSession) bool {
	s.watchMu.Lock()
	defer s.watchMu.Unlock()
	if s.closing {
		return false
	}
	s.watchers.Add(1)
	go s.watchClose(ss)
	return true
}

// watchClose marks a world session closed when its MCP session ends.
func (s *Server) watchClose(ss *mcp.ServerSession) {
	defer s.watchers.Done()
	_ = ss.Wait()
	if ws := s.sessions.closeMCP(ss); ws != nil {
		s.log.Info("session closed", "session", ws.id, "ended", ws.endReason())
	}
}

// SDKLogger is the logger handed to the go-sdk: it reports every session
// connecting and disconnecting at info, which under load drowns herd's own
// log, so its info lines only show at debug level. herd mcp uses it too.
func SDKLogger(l *slog.Logger, component string) *slog.Logger {
	min := slog.LevelWarn
	if l.Enabled(context.Background(), slog.LevelDebug) {
		min = slog.LevelDebug
	}
	return slog.New(atLeast{l.Handler(), min}).With("component", component)
}

// atLeast drops records below min.
type atLeast struct {
	slog.Handler
	min slog.Level
}

func (h atLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

func (h atLeast) WithAttrs(a []slog.Attr) slog.Handler { return atLeast{h.Handler.WithAttrs(a), h.min} }
func (h atLeast) WithGroup(n string) slog.Handler      { return atLeast{h.Handler.WithGroup(n), h.min} }
