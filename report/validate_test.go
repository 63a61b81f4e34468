package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// A document's counts must add up and stay within bounds: each change
// below was rendered before (as "284 episodes" for a file of 300, "-442
// calls", or a panic) and is refused now, naming the field.
func TestValidateBoundsAndSums(t *testing.T) {
	cases := []struct {
		name string
		edit func(r *report.Results)
		want string
	}{
		{"episodes more than the counts", func(r *report.Results) { r.Episodes += len(r.Run.Variants) }, "add up to"},
		{"a count more than the episodes", func(r *report.Results) { r.Counts[0].N += 600 }, "add up to more than"},
		{"episodes not a multiple of variants", func(r *report.Results) { r.Episodes++ }, "not a multiple"},
		{"a count past MaxCount", func(r *report.Results) { r.Counts[0].N = report.MaxCount + 1 }, "counts[0].n"},
		{"a count of an unknown variant", func(r *report.Results) { r.Counts[0].Variant = "other" }, "not one of run.variants"},
		{"calls negative", func(r *report.Results) { r.Timing.Calls[0].N = -442 }, "timing.calls[0].n"},
		{"calls summing past MaxCount", func(r *report.Results) {
			for i := range r.Timing.Calls {
				r.Timing.Calls[i].N = report.MaxCount
			}
		}, "timing.calls add up"},
		{"latency bars summing past MaxCount", func(r *report.Results) {
			for i := range r.Timing.Latency[0].Bars {
				r.Timing.Latency[0].Bars[i].Count = report.MaxCount
			}
		}, "the bars count"},
		{"latency of a year", func(r *report.Results) { r.Timing.Latency[0].Bars[0].ValueUS = 365 * 24 * 3600 * 1e6 }, "value_us"},
		{"in flight past MaxCount", func(r *report.Results) {
			r.Timing.InFlight = append(r.Timing.InFlight, report.Sample{T: 1, InFlight: report.MaxCount + 1})
		}, "timing.in_flight"},
		{"paired more than the agents", func(r *report.Results) { r.Paired[0].Neither += r.Episodes }, "more than the"},
	}
	for _, c := range cases {
		r := reporttest.CRM(reporttest.Config{Seed: 7, Agents: 300, Timing: true})
		r.Timing.Calls = []report.CallClass{{Tool: "get_contact", Class: "ok", N: 900}, {Tool: "get_contact", Class: "timeout", N: 3}}
		if err := r.Validate(); err != nil {
			t.Fatalf("the simulated run itself does not validate: %v", err)
		}
		if len(r.Timing.Calls) < 2 || len(r.Timing.Latency[0].Bars) < 2 || len(r.Paired) == 0 {
			t.Fatalf("the simulated run lacks calls, bars or paired rows")
		}
		c.edit(r)
		err := r.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Validate = %v, want an error with %q", c.name, err, c.want)
		}
	}
}

// The renderers do not panic or print wrapped counts even on a document
// that skipped Validate: sums saturate.
func TestRenderersSurviveUnvalidatedOverflow(t *testing.T) {
	data, err := os.ReadFile("testdata/hostile/latency_overflow.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := report.Decode(data); err == nil || !strings.Contains(err.Error(), "timing.latency[0].bars[0].count") {
		t.Fatalf("Decode = %v, want the overflowing bar named", err)
	}
	var r report.Results
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	rows := r.LatencyRows()
	if len(rows) != 1 || rows[0].Calls != math.MaxInt64 {
		t.Fatalf("latency rows %+v, want one row with saturated calls", rows)
	}
	var buf bytes.Buffer
	for name, render := range map[string]func() error{
		"terminal": func() error { return report.Terminal(&buf, &r, report.TerminalOptions{}) },
		"markdown": func() error { return report.Markdown(&buf, &r) },
		"html":     func() error { return report.HTML(&buf, &r) },
	} {
		if err := render(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if strings.Contains(buf.String(), "-9223372036854775") {
		t.Error("a renderer printed a wrapped, negative count")
	}
}
