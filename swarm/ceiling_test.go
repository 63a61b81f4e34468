package swarm

import (
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
)

func TestParseCeilingBound(t *testing.T) {
	b, err := ParseCeilingBound("p99<200ms, errors<1%")
	if err != nil || b.P99 != 200*time.Millisecond || b.Errors != 0.01 {
		t.Fatalf("%+v %v", b, err)
	}
	for _, bad := range []string{"", "p99>200ms", "p99<fast", "errors<1", "errors<0%", "p50<10ms"} {
		if _, err := ParseCeilingBound(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A step passes only within both bounds and when it kept up with its rate.
func TestJudgeStep(t *testing.T) {
	b := CeilingBound{P99: 200 * time.Millisecond, Errors: 0.01}
	res := func(p99us int64, ok, failed int64) *report.Results {
		return &report.Results{Timing: &report.Timing{
			Latency: []report.LatencyHistogram{{Tool: report.AllTools, Bars: []report.Bar{{ValueUS: p99us, Count: 100}}}},
			Calls:   []report.CallClass{{Tool: "t", Class: "ok", N: ok}, {Tool: "t", Class: "tool_error", N: 5}, {Tool: "t", Class: "timeout", N: failed}},
		}}
	}
	keeps := LoadStats{Started: 101, StartWindow: time.Second, Calls: 100}
	lags := LoadStats{Started: 51, StartWindow: time.Second, Calls: 100}
	for _, c := range []struct {
		name string
		st   LoadStats
		res  *report.Results
		pass bool
	}{
		{"fast and clean", keeps, res(50_000, 1000, 0), true},
		{"slow", keeps, res(250_000, 1000, 0), false},
		{"failing calls", keeps, res(50_000, 1000, 20), false},
		{"could not keep up", lags, res(50_000, 1000, 0), false},
	} {
		if got := judgeStep(100, c.st, c.res, b); got.Pass != c.pass {
			t.Errorf("%s: %+v, want pass %v", c.name, got, c.pass)
		}
	}
}

func TestFindCeilingRefusesInProcess(t *testing.T) {
	cfg := testConfig(t, "mock:crm", 10)
	_, err := FindCeiling(t.Context(), cfg, InProcess{}, CeilingBound{P99: time.Second}, CeilingSearch{}, nil)
	if err == nil || !strings.Contains(err.Error(), "real transport") {
		t.Fatalf("in-process: %v", err)
	}
}
