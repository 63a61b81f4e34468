package serve

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// Local is a Server listening on a free loopback port of this process:
// what `herd swarm serve:WORLD` drives over Streamable HTTP, exactly as an
// outside client would.
type Local struct {
	// URL is the MCP endpoint (http://127.0.0.1:PORT/mcp); the control
	// plane is at control.URL(URL).
	URL  *url.URL
	srv  *Server
	stop context.CancelFunc
	done chan error
}

// StartLocal starts a server with opts on 127.0.0.1 (a free port).
// Close stops it.
func StartLocal(opts Options) (*Local, error) {
	srv, err := New(opts)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("serve: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l := &Local{URL: &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: control.MCPPath},
		srv: srv, stop: cancel, done: make(chan error, 1)}
	go func() { l.done <- srv.ServeListener(ctx, ln, srv.Handler()) }()
	return l, nil
}

// Close stops the server and waits for it.
func (l *Local) Close() error {
	l.stop()
	return <-l.done
}

// StartLocalWorld is StartLocal for a run that drives a world it serves
// itself (herd swarm serve:WORLD): w served under variant and the fault
// profile faults, with room for at least maxSessions sessions. It returns
// the MCP endpoint and the server's Close, in the shape of
// swarm.LocalServer (the swarm, a client, does not import this package;
// the command hands it this function).
func StartLocalWorld(w *engine.World, seed uint64, variant, faults string, maxSessions int) (*url.URL, func() error, error) {
	l, err := StartLocal(Options{World: w, Seed: seed, Variant: variant, Faults: faults,
		MaxSessions: max(maxSessions, DefaultMaxSessions)})
	if err != nil {
		return nil, nil, err
	}
	return l.URL, l.Close, nil
}
