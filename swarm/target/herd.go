package target

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/field"
)

// ProbeHTTP asks the server behind an MCP URL whether it is a herd world:
// GET /control/world on the same host. It returns nil and no error when the
// server answered but has no herd control plane (any other MCP server), and
// an error when it could not be reached at all.
func ProbeHTTP(ctx context.Context, u *url.URL, hc *http.Client) (*control.WorldDoc, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	ctl := control.NewClient(control.URL(u), hc)
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
func CheckWorld(target string, info control.WorldDoc, w *engine.World, variant string) error {
	if info.World != w.Name || info.Hash != w.Hash {
		return field.Errorf("WorldFile", "%s serves world %s (hash %.12s), not %s (hash %.12s): give the run the same world file", target, info.World, info.Hash, w.Name, w.Hash)
	}
	if variant != "" && info.Variant != variant {
		return field.Errorf("Variants", "%s shows the %s descriptions, not %s: a served world has one variant; serve one per variant, or use serve:WORLD to let the swarm start them", target, info.Variant, variant)
	}
	return nil
}

// HerdHTTP is a herd world served over Streamable HTTP at u, its control
// plane at /control on the same host. profile is the fault profile it
// serves (see Control.SetFaults).
func HerdHTTP(u *url.URL, w *engine.World, profile string, hc *http.Client, opts Options) *Served {
	endpoint := u.String()
	ctl := control.NewClient(control.URL(u), hc)
	dial := func(ctx context.Context) (*conn, error) {
		cs, err := connectHTTP(ctx, endpoint, hc)
		if err != nil {
			return nil, err
		}
		if cs.ID() == "" {
			_ = cs.Close()
			return nil, fmt.Errorf("%s: the server gave no Mcp-Session-Id, so its control plane cannot name the session", endpoint)
		}
		return &conn{cs: cs, http: newHTTPCalls(hc, endpoint, cs), id: cs.ID(), ctl: ctl, close: cs.Close}, nil
	}
	return newServed(endpoint, w, profile, dial, opts.CallTimeout)
}

// OnClose has Close run stop after the connections end: for a server the
// caller started for this target (serve:WORLD), which outlives no run.
func (s *Served) OnClose(stop func() error) { s.after = stop }
