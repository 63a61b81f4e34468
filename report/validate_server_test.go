package report_test

import (
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// The fields of a run against an external server are bounded like the
// rest: a stop reason herd never writes, a negative pool, a sample longer
// than its count, a skip reason nobody knows are refused, naming the field.
func TestValidateBoundsTheServerSection(t *testing.T) {
	fresh := func() *report.Results {
		r := reporttest.CRM(reporttest.Config{Seed: 7, Agents: 300, Timing: true})
		r.Timing.Stopped = report.StopDuration
		r.Timing.WarmupCalls = 12
		r.Timing.LatencyOK = &report.LatencyHistogram{Tool: "ok", Bars: []report.Bar{{ValueUS: 900, Count: 10}}}
		r.Timing.Server = &report.ServerStats{Processes: 4, NonJSONLines: 2, NonJSONSample: []string{"started"},
			ProcessStats: []report.ProcessStat{{PID: 10, RSSKB: 50_000, PeakRSSKB: 60_000, CPUSeconds: 1.5}},
			Skipped:      []report.SkippedTool{{Tool: "fetch", Reason: report.SkipOpenWorld}}}
		return r
	}
	if err := fresh().Validate(); err != nil {
		t.Fatalf("a valid server section is refused: %v", err)
	}
	for _, c := range []struct {
		name string
		edit func(*report.Timing)
		want string
	}{
		{"an unknown stop reason", func(t *report.Timing) { t.Stopped = "tired" }, "timing.stopped"},
		{"negative warm-up calls", func(t *report.Timing) { t.WarmupCalls = -1 }, "timing.warmup_calls"},
		{"ok latency of a year", func(t *report.Timing) { t.LatencyOK.Bars[0].ValueUS = 365 * 24 * 3600 * 1e6 }, "value_us"},
		{"a negative pool", func(t *report.Timing) { t.Server.Processes = -4 }, "timing.server.processes"},
		{"more samples than lines", func(t *report.Timing) { t.Server.NonJSONLines = 0 }, "non_json_sample"},
		{"negative RSS", func(t *report.Timing) { t.Server.ProcessStats[0].RSSKB = -1 }, "process_stats[0]"},
		{"an unknown skip reason", func(t *report.Timing) { t.Server.Skipped[0].Reason = "boring" }, "timing.server.skipped[0]"},
	} {
		r := fresh()
		c.edit(r.Timing)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error with %q", c.name, err, c.want)
		}
	}
}
