package swarm

import (
	"testing"

	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// Over MCP the quiet faults play as in-process: a served world's hostile
// profile (silent no-ops, stale reads, partial writes, schema drift with a
// renamed field) gives the same outcomes, since the end state is the
// served journal replayed on the same dice, and a drifted record reaches
// the agent with its renamed field missing, as the engine shows it.
func TestQuietFaultsServedAsInProcess(t *testing.T) {
	const agents = 70
	cfg := testConfig(t, "mock:crm", agents)
	cfg.Profile = cfg.World.Profile("hostile")
	cfg.Workers = 4
	want := run(t, cfg)

	opts := target.Options{MaxConns: 4}
	srv, err := ServeLocal(serve.StartLocalWorld, cfg.World, cfg.Seed, "", "hostile", target.NewHTTPClient(opts), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	_, got := runPlan(t, cfg, NewServed("serve:mock:crm", srv))
	if g, w := outcomeSections(t, got), outcomeSections(t, want); g != w {
		t.Fatalf("over MCP:\n%s\nin-process:\n%s", g, w)
	}
	quiet := 0
	for _, f := range want.Faults {
		switch f.Kind {
		case "silent_noop", "stale_read", "partial_write", "schema_drift":
			quiet += f.Injected
		}
	}
	t.Logf("%d quiet faults injected over %d agents", quiet, agents)
	if quiet == 0 {
		t.Fatal("the hostile run met no quiet fault: the test shows nothing")
	}
}
