package swarm

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// requestCounter counts the control plane requests an HTTP client makes,
// by what they ask for (the last path segment: reset, journal, changes, …).
type requestCounter struct {
	next http.RoundTripper
	mu   sync.Mutex
	n    map[string]int
}

func (c *requestCounter) RoundTrip(r *http.Request) (*http.Response, error) {
	if p := r.URL.Path; strings.HasPrefix(p, "/control/") {
		c.mu.Lock()
		c.n[p[strings.LastIndexByte(p, '/')+1:]]++
		c.mu.Unlock()
	}
	return c.next.RoundTrip(r)
}

// An episode over a served world costs no control plane request of its
// own: its first call carries the reset (_meta sh.herd/reset), whose answer
// also brings back the previous episode's journal; the journal is read on
// its own only for the episodes whose served changes are compared (one in
// 16) and for the last episode on each connection. The outcomes stay those
// of the in-process run.
func TestNoControlRequestPerEpisode(t *testing.T) {
	const agents, inFlight = 200, 4
	cfg := testConfig(t, "mock:crm", agents)
	cfg.Profile = cfg.World.Profile("none")
	cfg.Workers = inFlight
	// An agent that declines a refrain goal makes no call for the reset to
	// ride on: it costs one reset request of its own. The goals that act
	// are what this test counts.
	for _, g := range cfg.World.Goals {
		if !g.Refrain {
			cfg.Goals = append(cfg.Goals, g)
		}
	}
	want := run(t, cfg)

	opts := target.Options{MaxConns: inFlight}
	hc := target.NewHTTPClient(opts)
	counter := &requestCounter{next: hc.Transport, n: map[string]int{}}
	hc.Transport = counter
	srv, err := ServeLocal(serve.StartLocalWorld, cfg.World, cfg.Seed, "", engine.NoFaults, hc, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, got := runPlan(t, cfg, NewServed("serve:mock:crm", srv))
	if g, w := outcomeSections(t, got), outcomeSections(t, want); g != w {
		t.Fatalf("over MCP:\n%s\nin-process:\n%s", g, w)
	}
	n := counter.n
	sampled := (agents + 15) / 16
	if n["reset"] != 0 || n["changes"] != sampled || n["journal"] > sampled+inFlight {
		t.Fatalf("control plane requests for %d episodes: %v; want no reset, %d reads of changes and at most %d journal reads",
			agents, n, sampled, sampled+inFlight)
	}
	t.Logf("%d episodes: %v", agents, n)
}
