package target

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
)

// ProbeHTTP asks the server behind an MCP URL whether it is a herd world:
// GET /control/world on the same host. It returns nil and no error when the
// server answered but has no herd control plane (any other MCP server), and
// an error when it could not be reached at all.
func ProbeHTTP(ctx context.Context, u *url.URL, hc *http.Client) (*WorldInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	ctl := NewControl(ControlURL(u), hc)
	info, err := ctl.World(ctx)
	if err == nil {
		return &info, nil
	}
	var netErr net.Error
	var opErr *net.OpError
	if errors.As(err, &opErr) || (errors.As(err, &netErr) && netErr.Timeout()) || errors.Is(err, context.DeadlineExceeded) {
		return nil, fmt.Errorf("%s: unreachable: %w", u.Redacted(), err)
	}
	return nil, nil
}

// CheckWorld checks that the world a herd server serves is w, in the
// variant the run reads.
func CheckWorld(target string, info WorldInfo, w *engine.World, variant string) error {
	if info.World != w.Name || info.Hash != w.Hash {
		return fmt.Errorf("%s serves world %s (hash %.12s), not %s (hash %.12s): pass the same world file with --world", target, info.World, info.Hash, w.Name, w.Hash)
	}
	if variant != "" && info.Variant != variant {
		return fmt.Errorf("%s shows the %s descriptions, not %s: a served world has one variant; serve one per variant, or use serve:WORLD to let the swarm start them", target, info.Variant, variant)
	}
	return nil
}

// HerdHTTP is a herd world served over Streamable HTTP at u, its control
// plane at /control on the same host. profile is the fault profile it
// serves (see Control.SetFaults).
func HerdHTTP(u *url.URL, w *engine.World, profile string, hc *http.Client, opts Options) *Served {
	endpoint := u.String()
	ctl := NewControl(ControlURL(u), hc)
	dial := func(ctx context.Context) (*conn, error) {
		cs, err := connectHTTP(ctx, endpoint, hc)
		if err != nil {
			return nil, err
		}
		if cs.ID() == "" {
			_ = cs.Close()
			return nil, fmt.Errorf("%s: the server gave no Mcp-Session-Id, so its control plane cannot name the session", endpoint)
		}
		return &conn{cs: cs, id: cs.ID(), ctl: ctl, close: cs.Close}, nil
	}
	return newServed(endpoint, w, profile, dial, opts.CallTimeout)
}

// ServeOptions are the in-process server's settings for a serve: target.
type ServeOptions struct {
	Seed    uint64
	Variant string
	Faults  string
	// MaxFaultWait caps one call's real wait (0: serve's default, 5s).
	MaxFaultWait time.Duration
}

// StartServe starts herd serve in this process on 127.0.0.1 (a free port)
// and returns it as a target driven over Streamable HTTP, exactly as an
// outside client would drive it. Close stops the server.
func StartServe(w *engine.World, so ServeOptions, hc *http.Client, opts Options) (*Served, error) {
	srv, err := serve.New(serve.Options{
		World: w, Seed: so.Seed, Variant: so.Variant, Faults: so.Faults,
		MaxFaultWait: so.MaxFaultWait,
		MaxSessions:  max(opts.MaxConns+16, serve.DefaultMaxSessions),
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln, srv.Handler()) }()
	u := &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: serve.MCPPath}
	t := HerdHTTP(u, w, profileOr(so.Faults), hc, opts)
	t.after = func() error {
		cancel()
		return <-done
	}
	return t, nil
}

func profileOr(p string) string {
	if strings.TrimSpace(p) == "" {
		return "none"
	}
	return p
}
