package swarm

import (
	"context"
	"testing"

	"github.com/herd-sh/herd/report"
)

// A partial document describes the run as planned (docs/results.md):
// run.agents and the mix are what personas and goals were assigned over,
// the same in every shard, so that the replay command holds and the
// shards of a stopped run still merge; episodes says how many finished.
func TestPartialShardKeepsThePlannedAgents(t *testing.T) {
	const agents = 600
	var shards []*report.Results
	for k := range 2 {
		cfg := testConfig(t, "mock:crm", agents)
		cfg.Workers = 1
		cfg.Shard = Shard{Index: k, Count: 2}
		p, err := NewPlan(cfg)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		if k == 1 {
			cancel() // shard 1 is stopped before any agent starts
		} else {
			defer cancel()
		}
		res, err := p.Run(ctx, InProcess{})
		if err != nil {
			t.Fatal(err)
		}
		if (k == 1) != res.Partial {
			t.Fatalf("shard %d: partial %v", k, res.Partial)
		}
		if res.Run.Agents != agents {
			t.Errorf("shard %d (partial %v): run.agents %d, want the run's %d", k, res.Partial, res.Run.Agents, agents)
		}
		sum := 0
		for _, m := range res.Run.Mix {
			sum += m.Agents
		}
		if sum != agents {
			t.Errorf("shard %d: the mix counts %d agents, want %d", k, sum, agents)
		}
		if err := res.Validate(); err != nil {
			t.Errorf("shard %d: %v", k, err)
		}
		shards = append(shards, res)
	}
	merged, err := report.Merge(shards...)
	if err != nil {
		t.Fatalf("the shards of a stopped run do not merge: %v", err)
	}
	if !merged.Partial || merged.Run.Agents != agents || merged.Episodes != shards[0].Episodes {
		t.Errorf("merged: partial %v, %d agents, %d episodes (shard 0 finished %d)", merged.Partial, merged.Run.Agents, merged.Episodes, shards[0].Episodes)
	}
}
