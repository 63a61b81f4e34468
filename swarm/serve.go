package swarm

import (
	"errors"
	"net/http"
	"net/url"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/swarm/target"
)

// LocalServer starts a herd server for world w in this process on a free
// loopback port, serving variant under the fault profile faults with room
// for at least maxSessions sessions, and returns its MCP endpoint and how
// to stop it. The swarm never imports the server: a client depends on the
// protocol, never on the server, so the command wires serve.StartLocal in
// (and tests their own).
type LocalServer func(w *engine.World, seed uint64, variant, faults string, maxSessions int) (mcpURL *url.URL, stop func() error, err error)

// ServeLocal starts a server with start and returns it as a target driven
// over Streamable HTTP, exactly as an outside client would drive it
// (serve:WORLD). Closing the target stops the server.
func ServeLocal(start LocalServer, w *engine.World, seed uint64, variant, faults string, hc *http.Client, opts target.Options) (*target.Served, error) {
	if start == nil {
		return nil, errors.New("swarm: serve: no local server to start (Reach was given no LocalServer)")
	}
	if faults == "" {
		faults = engine.NoFaults
	}
	// A session per connection the run may open, and some to spare.
	u, stop, err := start(w, seed, variant, faults, opts.MaxConns+16)
	if err != nil {
		return nil, err
	}
	t := target.HerdHTTP(u, w, faults, hc, opts)
	t.OnClose(stop)
	return t, nil
}
