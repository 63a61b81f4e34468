package swarm

import (
	"testing"
	"time"

	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// A churn arrival opens a session beside every agent start its share
// picks, reads on it and drops it: the agents' outcomes are those of the
// in-process run (a churned session is a session of its own), and the
// churned sessions' calls are metered with the rest.
func TestChurnLeavesOutcomesAlone(t *testing.T) {
	const agents = 24
	cfg := testConfig(t, "mock:crm", agents)
	cfg.Profile = cfg.World.Profile("none")
	want := run(t, cfg)

	opts := target.Options{MaxConns: 4}
	srv, err := ServeLocal(serve.StartLocalWorld, cfg.World, cfg.Seed, "", "none", target.NewHTTPClient(opts), opts)
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg.Load = &Load{Pacer: ConstantPacer(40, 0), MaxInFlight: 4, Churn: 1}
	p, got := runPlan(t, cfg, NewServed("serve:mock:crm", srv))
	if g, w := outcomeSections(t, got), outcomeSections(t, want); g != w {
		t.Fatalf("with churn:\n%s\nin-process:\n%s", g, w)
	}
	st := p.LoadStats()
	if st.Churned != agents {
		t.Fatalf("churned %d sessions, want one per agent start (%d) at share 1", st.Churned, agents)
	}
	if share, err := ChurnShare("churn:0.25"); err != nil || share != 0.25 {
		t.Errorf("churn:0.25 → %v %v", share, err)
	}
	for _, bad := range []string{"churn:0", "churn:2", "churn:x"} {
		if _, err := ChurnShare(bad); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if pc, err := ParseArrival("churn", 10, time.Second); err != nil || pc.Rate(0) != 10 {
		t.Errorf("churn arrival: %v %v", pc, err)
	}
}
