package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// Handler serves MCP over Streamable HTTP at /mcp and the control plane
// under /control, behind the Host/Origin/token guard.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(control.MCPPath, refuseBatchBeforeSession(s.limitSessions(s.streamable())))
	s.routeControl(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, fmt.Sprintf("not found: herd serves MCP at %s and its control plane under /control", control.MCPPath), http.StatusNotFound)
	})
	return s.guard(mux)
}

// ControlHandler serves only the control plane (for --control next to a
// stdio server), behind the same guard.
func (s *Server) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	s.routeControl(mux)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: the control plane is under /control", http.StatusNotFound)
	})
	return s.guard(mux)
}

func (s *Server) streamable() http.Handler {
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{
		// One JSON body per answer: simplest for clients that are plain HTTP
		// libraries (a pytest with requests), and nothing here streams.
		JSONResponse: true,
		Logger:       SDKLogger(s.log, "streamable"),
		// No SessionTimeout: the server times sessions out itself
		// (startJanitor), so that it knows, logs and counts which ended why.
		MaxRequestBodyBytes: MaxRequestBytes,
		// The guard checks Host on every path (case-insensitively, and
		// knowing about --allow-remote); the SDK's own check, on /mcp only,
		// refused "LOCALHOST" that /control accepts, and remote hosts even
		// when allowed.
		DisableLocalhostProtection: true,
	})
}

// refuseBatchBeforeSession refuses a JSON-RPC batch posted without a
// session: before initialize there is no protocol version that allows
// batches (MCP 2025-06-18 and later, 2025-11-25 included, have none;
// 2025-03-26 forbids initialize inside one), and the SDK, which reads a
// request without a version header as 2025-03-26, would accept one — a
// batch of initialize requests opening sessions at once. The stdio server
// refuses the same (lineFilter.checkBatch). Batches within a 2025-03-26
// session are the SDK's to judge.
func refuseBatchBeforeSession(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxRequestBytes))
		if err != nil {
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mbe.Limit), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "failed to read body", http.StatusBadRequest)
			return
		}
		if t := bytes.TrimLeft(body, " \t\r\n"); len(t) > 0 && t[0] == '[' {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a JSON-RPC batch before initialize; send initialize alone (MCP 2025-06-18 and later support no batches at all)"}}`+"\n")
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		next.ServeHTTP(w, r)
	})
}

// limitSessions refuses a request that would open a session beyond
// MaxSessions, with 503 and a message saying so.
func (s *Server) limitSessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Header.Get("Mcp-Session-Id") != "" {
			next.ServeHTTP(w, r)
			return
		}
		res, evicted := s.sessions.reserve(s.now())
		s.endMCP(evicted)
		if res == nil {
			s.log.Warn("session refused: too many sessions, each with a request in flight", "max", s.sessions.max, "remote", r.RemoteAddr)
			w.Header().Set("Retry-After", "1")
			http.Error(w, fmt.Sprintf("too many sessions: at most %d at once, and none of them idle (end one with DELETE, or serve with a larger session limit)", s.sessions.max), http.StatusServiceUnavailable)
			return
		}
		defer s.sessions.release(res)
		// The SDK keeps this request's context for the session it opens, so
		// the session can take over the reservation (see registry.forMCP).
		next.ServeHTTP(w, r.WithContext(withReservation(r.Context(), res)))
	})
}

// ServeListener serves h on ln until ctx is done, then shuts down: MCP
// sessions are closed first (so long-lived SSE streams end), then the HTTP
// server drains for up to five seconds.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener, h http.Handler) error {
	fresh := &freshConns{m: map[net.Conn]struct{}{}}
	hs := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		MaxHeaderBytes:    64 << 10,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		ConnState:         fresh.track,
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serving %s: %w", ln.Addr(), err)
	case <-ctx.Done():
	}
	s.Close()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(shutdownCtx) }()
	// Shutdown waits five seconds for a connection that was opened but has
	// not sent a byte (a client's spare pooled connection); such a
	// connection carries no request, so close it now.
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for done := false; !done; {
		fresh.closeAll()
		select {
		case err := <-shut:
			if err != nil {
				_ = hs.Close()
			}
			done = true
		case <-tick.C:
		}
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// freshConns tracks connections that have not started a request yet.
type freshConns struct {
	mu sync.Mutex
	m  map[net.Conn]struct{}
}

func (f *freshConns) track(c net.Conn, st http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if st == http.StateNew {
		f.m[c] = struct{}{}
	} else {
		delete(f.m, c)
	}
}

func (f *freshConns) closeAll() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for c := range f.m {
		_ = c.Close()
		delete(f.m, c)
	}
}
