package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

func shardConfig(seed uint64, k, n int) reporttest.Config {
	return reporttest.Config{Seed: seed, Agents: 2000, Timing: true, Thresholds: fixtureThresholds,
		Shard: &report.Shard{Index: k, Count: n}}
}

// shards simulates the run cut into n shards, each written to JSON and read
// back, as herd merge gets them.
func shards(t *testing.T, seed uint64, n int) []*report.Results {
	t.Helper()
	var out []*report.Results
	for k := range n {
		var buf bytes.Buffer
		if err := reporttest.CRM(shardConfig(seed, k, n)).Write(&buf); err != nil {
			t.Fatal(err)
		}
		res, err := report.Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	return out
}

func TestMergeOfShardsIsTheUnshardedRun(t *testing.T) {
	whole := fixture()
	parts := shards(t, 42, 4)
	for _, p := range parts {
		if bytes.Equal(p.DeterministicJSON(), whole.DeterministicJSON()) {
			t.Fatal("a shard equals the whole run: the fixture does not shard")
		}
	}
	// Any order of the files gives the same result.
	for _, order := range [][]int{{0, 1, 2, 3}, {3, 1, 0, 2}} {
		var docs []*report.Results
		for _, i := range order {
			docs = append(docs, parts[i])
		}
		merged, err := report.Merge(docs...)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := merged.DeterministicJSON(), whole.DeterministicJSON(); !bytes.Equal(got, want) {
			t.Errorf("order %v: merged deterministic section differs from the unsharded run\n got %.600s\nwant %.600s", order, got, want)
		}
		if merged.Run.Shard != nil {
			t.Error("the merged document still names a shard")
		}
		if strings.Contains(merged.Run.Command, "--shard") {
			t.Errorf("merged command %q still has --shard", merged.Run.Command)
		}
		// Timing: every call of every shard is in the merged histograms; the
		// wall time is the slowest shard's.
		var calls, want int64
		for _, p := range parts {
			want += allCalls(p)
		}
		calls = allCalls(merged)
		if calls != want || calls != allCalls(whole) {
			t.Errorf("merged histogram holds %d calls; shards hold %d, the whole run %d", calls, want, allCalls(whole))
		}
		if merged.Timing.Seconds != parts[3].Timing.Seconds {
			t.Errorf("merged wall time %v, want the slowest shard's %v", merged.Timing.Seconds, parts[3].Timing.Seconds)
		}
		if merged.Timing.Started != parts[0].Timing.Started {
			t.Errorf("merged start %q, want the earliest %q", merged.Timing.Started, parts[0].Timing.Started)
		}
	}
}

func allCalls(r *report.Results) int64 {
	for _, h := range r.Timing.Latency {
		if h.Tool == report.AllTools {
			return h.Calls()
		}
	}
	return 0
}

func TestMergeKeepsPartial(t *testing.T) {
	parts := shards(t, 42, 2)
	parts[1].Partial = true
	merged, err := report.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	if !merged.Partial {
		t.Error("merging a partial shard gave a complete run")
	}
}

func TestMergeRefusesOtherRuns(t *testing.T) {
	a := shards(t, 42, 2)
	b := shards(t, 7, 2)
	_, err := report.Merge(a[0], b[1])
	if err == nil || !strings.Contains(err.Error(), "different runs: seed differs (42 vs 7)") {
		t.Errorf("merging shards of two seeds: error %v; want it to name the seed", err)
	}
	mutations := map[string]func(r *report.Results){
		"world hash": func(r *report.Results) { r.Run.World.Hash = "0000" },
		"variants":   func(r *report.Results) { r.Run.Variants = []string{"clear"} },
		"faults":     func(r *report.Results) { r.Run.Faults = "hostile" },
		"mix":        func(r *report.Results) { r.Run.Mix[0].Agents++ },
		"agents":     func(r *report.Results) { r.Run.Agents = 999 },
		"goals":      func(r *report.Results) { r.Run.Goals = r.Run.Goals[:1] },
	}
	for field, mutate := range mutations {
		parts := shards(t, 42, 2)
		mutate(parts[1])
		_, err := report.Merge(parts...)
		if err == nil || !strings.Contains(err.Error(), field+" differs") {
			t.Errorf("%s changed: error %v; want it to name %q", field, err, field)
		}
	}
}

func TestMergeRefusesGapsAndOverlaps(t *testing.T) {
	four := shards(t, 42, 4)
	cases := []struct {
		name string
		docs []*report.Results
		want string
	}{
		{"gap", []*report.Results{four[0], four[1], four[3]}, "shards 0,1,3 of 4: shard 2 is missing"},
		{"two gaps", []*report.Results{four[1], four[3]}, "shards 1,3 of 4: shards 0,2 are missing"},
		{"overlap", []*report.Results{four[0], four[1], four[1], four[2], four[3]}, "shard 1 of 4 is given twice (document 2 and document 3)"},
		{"other split", []*report.Results{four[0], shards(t, 42, 2)[1]}, "they split the run differently"},
		{"not a shard", []*report.Results{fixture()}, "is not a shard"},
		{"nothing", nil, "nothing to merge"},
	}
	for _, c := range cases {
		_, err := report.Merge(c.docs...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v; want %q", c.name, err, c.want)
		}
	}
}

// A count whose severity disagrees between shards is refused, naming both
// documents.
func TestMergeNamesBothShardsOfAConflict(t *testing.T) {
	parts := shards(t, 42, 2)
	c := parts[0].Counts[0]
	for i, d := range parts[1].Counts {
		if d.Goal == c.Goal && d.Persona == c.Persona && d.Variant == c.Variant && d.Class == c.Class {
			parts[1].Counts[i].Severity = report.SeverityOK
			if c.Severity == report.SeverityOK {
				parts[1].Counts[i].Severity = report.SeverityFailed
			}
		}
	}
	_, err := report.MergeLabeled([]string{"a.json", "b.json"}, parts)
	want := "cannot merge: b.json says " + c.Goal + "/" + c.Class
	if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "a.json says "+c.Severity) {
		t.Errorf("error %v; want one starting %q and naming a.json", err, want)
	}
}
