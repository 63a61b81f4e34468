package swarm

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// servedTargets starts herd serve in-process, one server per variant of
// cfg, and points cfg at them.
func servedTargets(t testing.TB, cfg *Config, inFlight int) Target {
	t.Helper()
	variants := cfg.Variants
	if len(variants) == 0 {
		variants = []string{cfg.World.Variants[0]}
		cfg.Variants = variants
	}
	opts := target.Options{MaxConns: inFlight}
	hc := target.NewHTTPClient(opts)
	var ts []*target.Served
	for _, v := range variants {
		srv, err := ServeLocal(serve.StartLocalWorld, cfg.World, cfg.Seed, v, cfg.Profile.Name, hc, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := srv.Close(); err != nil {
				t.Errorf("closing %s: %v", srv.Name(), err)
			}
		})
		ts = append(ts, srv)
	}
	return NewServed("serve:"+cfg.WorldRef, ts...)
}

// outcomeSections are the parts of a results document that say what the
// agents did to the world: equal for the same seed whatever the transport.
func outcomeSections(t testing.TB, r *report.Results) string {
	t.Helper()
	b, err := json.MarshalIndent(map[string]any{
		"episodes": r.Episodes, "counts": r.Counts, "classes": r.Classes, "paired": r.Paired,
		"invariants": r.Invariants, "faults": r.Faults, "confusions": r.Confusions, "mix": r.Run.Mix,
	}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The same seed gives the same outcomes in-process and over MCP (Streamable
// HTTP to herd serve), for every built-in world, when no fault waits.
func TestServedOutcomesEqualInProcess(t *testing.T) {
	for _, world := range []string{"mock:crm", "mock:payments", "mock:shop", "mock:email", "mock:files"} {
		t.Run(world, func(t *testing.T) {
			cfg := testConfig(t, world, 60)
			cfg.Profile = cfg.World.Profile("none")
			cfg.Workers = 4
			want := run(t, cfg)

			p, got := runPlan(t, cfg, servedTargets(t, &cfg, 4))
			if g, w := outcomeSections(t, got), outcomeSections(t, want); g != w {
				t.Fatalf("over MCP:\n%s\nin-process:\n%s", g, w)
			}
			t.Logf("%s: %d episodes, %d calls over MCP in %.2fs", world, got.Episodes, p.LoadStats().Calls, p.LoadStats().Seconds)
			if got.Run.Target != "serve:"+world {
				t.Errorf("run.target = %q", got.Run.Target)
			}
			if got.Timing == nil || len(got.Timing.Latency) == 0 || got.Timing.Latency[0].Tool != report.AllTools {
				t.Fatalf("no latency measured: %+v", got.Timing)
			}
		})
	}
}

// A paced load run over MCP: agents start at the rate asked, the run ends
// at its duration, and the timing section has per-tool HDR histograms and
// the calls in flight over time.
func TestPacedLoadOverServe(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 1_000)
	cfg.Profile = cfg.World.Profile("none")
	const rate, d = 40.0, 1500 * time.Millisecond
	cfg.Load = &Load{Pacer: ConstantPacer(rate, d), Duration: d, MaxInFlight: 8}
	cfg.Agents = int(rate * d.Seconds())
	p, res := runPlan(t, cfg, servedTargets(t, &cfg, 8))
	st := p.LoadStats()
	t.Logf("started %d of %d, %.1f/s; %d calls, %.0f/s", st.Started, st.Planned, st.StartRate(), st.Calls, st.CallRate())
	// The pacer must never start agents faster than asked. Whether eight
	// slots can keep up with 40 episodes a second over MCP depends on the
	// machine, and under the race detector on a busy one they cannot; the
	// pacer's own precision is TestPacerAchievesRate's job.
	if st.StartRate() > 1.15*rate || st.Started == 0 {
		t.Errorf("started %d agents at %.1f/s, want at most %g/s", st.Started, st.StartRate(), rate)
	}
	if !raceDetector && (st.Started < cfg.Agents-3 || math.Abs(st.StartRate()-rate) > 0.15*rate) {
		t.Errorf("started %d agents at %.1f/s, want about %d at %g/s", st.Started, st.StartRate(), cfg.Agents, rate)
	}
	if res.Run.Agents != st.Started || res.Episodes != st.Started {
		t.Errorf("run.agents %d, episodes %d, started %d", res.Run.Agents, res.Episodes, st.Started)
	}
	sum := 0
	for _, m := range res.Run.Mix {
		sum += m.Agents
	}
	if sum != res.Run.Agents {
		t.Errorf("mix counts %d agents, the run %d", sum, res.Run.Agents)
	}
	tm := res.Timing
	if tm == nil || len(tm.Latency) < 2 || tm.Latency[0].Tool != report.AllTools || tm.Latency[0].Calls() != st.Calls {
		t.Fatalf("latency section %+v (calls %d)", tm, st.Calls)
	}
	var perTool int64
	for _, h := range tm.Latency[1:] {
		perTool += h.Calls()
	}
	if perTool != st.Calls {
		t.Errorf("per-tool histograms hold %d calls, all %d", perTool, st.Calls)
	}
	if len(tm.InFlight) < 5 || tm.Workers != 8 {
		t.Errorf("in-flight samples %d, workers %d", len(tm.InFlight), tm.Workers)
	}
	if err := res.Validate(); err != nil {
		t.Errorf("results do not validate: %v", err)
	}
}
