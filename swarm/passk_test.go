package swarm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/herd-sh/herd/report"
)

// pass^k rests on each task's trials, which the aggregator counts per goal
// × persona × variant × target: the trials and the estimates derived from
// them are byte-identical whatever the worker count, and when the run is
// sharded and merged.
func TestPassKDeterministicAcrossWorkersAndShards(t *testing.T) {
	cfg := testConfig(t, "mock:payments", 1200, "clear")
	cfg.Workers = 1
	one := run(t, cfg)
	section := func(r *report.Results) []byte {
		b, err := json.Marshal(struct {
			T []report.Trial
			P []report.PassK
		}{r.Trials, r.PassK})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	want := section(one)
	k2 := 0
	for _, row := range one.PassK {
		if row.K >= 2 {
			k2++
		}
	}
	if len(one.Trials) == 0 || k2 == 0 {
		t.Fatalf("%d trials, %d pass^k rows with k ≥ 2: want some of each", len(one.Trials), k2)
	}
	cfg.Workers = 5
	if got := section(run(t, cfg)); !bytes.Equal(got, want) {
		t.Fatalf("workers 5 differs from workers 1:\n%s", firstDiff(got, want))
	}
	var shards []*report.Results
	for k := range 3 {
		c := cfg
		c.Shard = Shard{k, 3}
		shards = append(shards, run(t, c))
	}
	merged, err := report.Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	if got := section(merged); !bytes.Equal(got, want) {
		t.Fatalf("3 merged shards differ from the unsharded run:\n%s", firstDiff(got, want))
	}
}
