package swarm

import (
	"net/http"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// ServeLocal starts herd serve for w in this process, on a free loopback
// port, and returns it as a target driven over Streamable HTTP, exactly as
// an outside client would drive it (serve:WORLD). Closing the target stops
// the server. The target package only speaks the protocol; starting a
// server is the run's business.
func ServeLocal(w *engine.World, seed uint64, variant, faults string, hc *http.Client, opts target.Options) (*target.Served, error) {
	if faults == "" {
		faults = engine.NoFaults
	}
	srv, err := serve.StartLocal(serve.Options{World: w, Seed: seed, Variant: variant, Faults: faults,
		MaxSessions: max(opts.MaxConns+16, serve.DefaultMaxSessions)})
	if err != nil {
		return nil, err
	}
	t := target.HerdHTTP(srv.URL, w, faults, hc, opts)
	t.OnClose(srv.Close)
	return t, nil
}
