package report_test

import (
	"slices"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// OverallLatency is the "all" row of the latency table without its
// intervals: the same point values, and nothing without timing.
func TestOverallLatencyIsTheAllRow(t *testing.T) {
	res := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 300, Timing: true})
	rows := res.LatencyRows()
	if len(rows) == 0 || rows[0].Tool != report.AllTools {
		t.Fatalf("no all row: %+v", rows)
	}
	got := res.OverallLatency()
	if len(got) != len(report.Percentiles) || !slices.Equal(got, rows[0].Values) {
		t.Errorf("OverallLatency %v, the all row %v", got, rows[0].Values)
	}
	if got[0] <= 0 || !slices.IsSorted(got) {
		t.Errorf("percentiles %v: want positive and rising", got)
	}
	if v := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 300}).OverallLatency(); v != nil {
		t.Errorf("without timing: %v", v)
	}
}
