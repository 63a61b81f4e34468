package swarm

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/worlds"
)

func testConfig(t testing.TB, world string, agents int, variants ...string) Config {
	t.Helper()
	w, err := worlds.Resolve(world)
	if err != nil {
		t.Fatal(err)
	}
	var mix []MixEntry
	for _, p := range personas.Builtin().Personas {
		mix = append(mix, MixEntry{Persona: p, Weight: 1})
	}
	return Config{World: w, WorldRef: world, Seed: 42, Agents: agents, Mix: mix, Variants: variants,
		Profile: w.Profile("realistic"), Command: "herd swarm " + world}
}

func run(t testing.TB, cfg Config) *report.Results {
	t.Helper()
	_, res := runPlan(t, cfg, InProcess{})
	return res
}

// runPlan runs cfg on tgt to the end and returns the plan too, for what it
// measured (LoadStats).
func runPlan(t testing.TB, cfg Config, tgt Target) (*Plan, *report.Results) {
	t.Helper()
	p, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), tgt)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// The deterministic section must not depend on the worker count, on
// repetition, or on sharding followed by a merge.
func TestDeterministicAcrossWorkersRunsAndShards(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 700, "clear", "ambiguous")
	cfg.Workers = 1
	want := run(t, cfg).DeterministicJSON()

	cfg.Workers = 16
	if got := run(t, cfg).DeterministicJSON(); !bytes.Equal(got, want) {
		t.Fatalf("workers 16 differs from workers 1:\n%s", firstDiff(got, want))
	}
	cfg.Workers = 3
	if got := run(t, cfg).DeterministicJSON(); !bytes.Equal(got, want) {
		t.Fatalf("a repeated run differs:\n%s", firstDiff(got, want))
	}

	var shards []*report.Results
	for k := 0; k < 4; k++ {
		c := cfg
		c.Shard = Shard{k, 4}
		c.Workers = 2
		shards = append(shards, run(t, c))
	}
	merged, err := report.Merge(shards...)
	if err != nil {
		t.Fatal(err)
	}
	if got := merged.DeterministicJSON(); !bytes.Equal(got, want) {
		t.Fatalf("4 merged shards differ from the unsharded run:\n%s", firstDiff(got, want))
	}
}

func TestDifferentSeedsDiffer(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 300)
	a := run(t, cfg).DeterministicJSON()
	cfg.Seed = 43
	if b := run(t, cfg).DeterministicJSON(); bytes.Equal(a, b) {
		t.Fatal("seeds 42 and 43 gave identical results")
	}
}

// Every agent of a paired run appears under every variant, and the paired
// table of each goal covers exactly that goal's agents.
func TestPairedCoversEveryAgent(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 400, "clear", "ambiguous")
	res := run(t, cfg)
	if res.Episodes != 800 {
		t.Fatalf("episodes = %d, want 800", res.Episodes)
	}
	perGoal := map[string]int{}
	for _, c := range res.Counts {
		if c.Variant == "clear" {
			perGoal[c.Goal] += c.N
		}
	}
	for _, p := range res.Paired {
		if p.N() != perGoal[p.Goal] {
			t.Errorf("paired %s/%s covers %d agents, the goal has %d", p.Goal, p.Class, p.N(), perGoal[p.Goal])
		}
	}
}

// A cancelled run keeps what it finished: the counts add up to the
// episodes it reports, and it is marked partial.
func TestCancelledRunIsPartialAndConsistent(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 200000)
	cfg.Workers = 2
	p, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.SetProgress(func(pr Progress) {
		if pr.Done > 2000 {
			cancel()
		}
	}, 5e6)
	res, err := p.Run(ctx, InProcess{})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial {
		t.Fatal("a cancelled run is not marked partial")
	}
	sum := 0
	for _, c := range res.Counts {
		sum += c.N
	}
	if sum != res.Episodes || sum == 0 || sum >= 200000 {
		t.Fatalf("counts sum to %d, episodes %d", sum, res.Episodes)
	}
}

// A bad configuration is refused with an error naming the flag to fix.
func TestPlanRefusesBadConfig(t *testing.T) {
	base := testConfig(t, "mock:crm", 10)
	for _, c := range []struct {
		name, field string
		mut         func(*Config)
	}{
		{"zero agents", "Agents", func(c *Config) { c.Agents = 0 }},
		{"too many", "Agents", func(c *Config) { c.Agents = MaxAgents + 1 }},
		{"bad shard", "Shard", func(c *Config) { c.Shard = Shard{5, 4} }},
		{"bad variant", "Variants", func(c *Config) { c.Variants = []string{"nope"} }},
		{"no personas", "Mix", func(c *Config) { c.Mix = nil }},
		{"bad workers", "Workers", func(c *Config) { c.Workers = -1 }},
		{"zero weights", "Mix", func(c *Config) { c.Mix = []MixEntry{{Persona: c.Mix[0].Persona, Weight: 0}} }},
		{"sharded load", "Shard", func(c *Config) { c.Load, c.Shard = &Load{}, Shard{0, 2} }},
		{"long load", "Load.Duration", func(c *Config) { c.Load = &Load{Duration: MaxDuration + 1} }},
	} {
		cfg := base
		c.mut(&cfg)
		_, err := NewPlan(cfg)
		if fe, ok := AsFieldError(err); !ok || fe.Field != c.field {
			t.Errorf("%s: err %v, want one on field %s", c.name, err, c.field)
		}
	}
}

// A paced run needs a target over a transport: in-process runs keep
// virtual time. The run is refused before any agent runs.
func TestRunRefusesLoadInProcess(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 10)
	cfg.Load = &Load{}
	p, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), InProcess{})
	if fe, ok := AsFieldError(err); !ok || fe.Field != "Load" || res != nil {
		t.Fatalf("res %v, err %v: want no results and an error on field Load", res, err)
	}
}

func firstDiff(a, b []byte) string {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	lo := max(0, i-200)
	return "got:  ..." + string(a[lo:min(len(a), i+200)]) + "\nwant: ..." + string(b[lo:min(len(b), i+200)])
}

// The last progress report of a finished run counts every episode, every
// agent started and exactly the harmful episodes the results hold.
func TestProgressCountsHarmful(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 3000)
	cfg.Workers = 2
	p, err := NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var last Progress
	p.SetProgress(func(pr Progress) { last = pr }, time.Hour)
	res, err := p.Run(context.Background(), InProcess{})
	if err != nil {
		t.Fatal(err)
	}
	harmful := 0
	for _, c := range res.Counts {
		if c.Severity == report.SeverityHarmful {
			harmful += c.N
		}
	}
	if last.Done != res.Episodes || last.Total != res.Episodes || last.Started != 3000 || last.Harmful != harmful || harmful == 0 {
		t.Errorf("last progress %+v; want %d episodes, 3000 started, %d harmful", last, res.Episodes, harmful)
	}
}
