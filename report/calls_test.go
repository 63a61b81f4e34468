package report_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
)

// Merge sums calls by class per tool × class × code, whatever order the
// shards list them in, and keeps the class order (ok first, then tool
// errors by code, then the calls that got no answer).
func TestMergeSumsCallsByClass(t *testing.T) {
	parts := shards(t, 42, 2)
	parts[0].Timing = &report.Timing{Calls: []report.CallClass{
		{Tool: "get_contact", Class: "timeout", N: 1},
		{Tool: "get_contact", Class: "ok", N: 10},
		{Tool: "archive_contact", Class: "tool_error", Code: "locked", N: 2},
	}}
	parts[1].Timing = &report.Timing{Calls: []report.CallClass{
		{Tool: "archive_contact", Class: "tool_error", Code: "locked", N: 3},
		{Tool: "archive_contact", Class: "tool_error", Code: "not_found", N: 1},
		{Tool: "get_contact", Class: "ok", N: 5},
	}}
	merged, err := report.Merge(parts...)
	if err != nil {
		t.Fatal(err)
	}
	want := []report.CallClass{
		{Tool: "archive_contact", Class: "tool_error", Code: "locked", N: 5},
		{Tool: "archive_contact", Class: "tool_error", Code: "not_found", N: 1},
		{Tool: "get_contact", Class: "ok", N: 15},
		{Tool: "get_contact", Class: "timeout", N: 1},
	}
	if got := merged.Timing.Calls; !reflect.DeepEqual(got, want) {
		t.Fatalf("merged calls:\n%+v\nwant\n%+v", got, want)
	}
	rows := merged.CallRows()
	if len(rows) != 3 || rows[0].Tool != report.AllTools || rows[0].Calls != 22 || rows[0].OK != 15 ||
		rows[0].Errors != "locked 5, not_found 1" || rows[0].Failed != "timeout 1" {
		t.Fatalf("call rows: %+v", rows)
	}
}

// The terminal, Markdown and HTML reports show calls by class where they
// show latency, and nothing when the run measured none (in-process).
func TestReportsShowCallsByClass(t *testing.T) {
	res := shards(t, 7, 1)[0]
	render := func(res *report.Results) (string, string, string) {
		var term, md, html bytes.Buffer
		if err := report.Terminal(&term, res, report.TerminalOptions{Plain: true, Full: true}); err != nil {
			t.Fatal(err)
		}
		if err := report.Markdown(&md, res); err != nil {
			t.Fatal(err)
		}
		if err := report.HTML(&html, res); err != nil {
			t.Fatal(err)
		}
		return term.String(), md.String(), html.String()
	}
	term, md, html := render(res)
	for name, out := range map[string]string{"terminal": term, "markdown": md, "html": html} {
		// The latency section is there (the run has timing); only the calls are not.
		if !strings.Contains(out, "atency") || strings.Contains(out, "alls by class") {
			t.Fatalf("%s report of a run with latency but no calls by class:\n%s", name, out)
		}
	}
	res.Timing = &report.Timing{
		Seconds: 1, Workers: 2,
		Latency: []report.LatencyHistogram{{Tool: report.AllTools, Bars: []report.Bar{{ValueUS: 900, Count: 4}}},
			{Tool: "get_contact", Bars: []report.Bar{{ValueUS: 900, Count: 4}}}},
		Calls: []report.CallClass{{Tool: "get_contact", Class: "ok", N: 2}, {Tool: "get_contact", Class: "tool_error", Code: "not_found", N: 1},
			{Tool: "get_contact", Class: "transport_error", N: 1}},
	}
	term, md, html = render(res)
	for name, out := range map[string]string{"terminal": term, "markdown": md, "html": html} {
		if !strings.Contains(out, "alls by class") || !strings.Contains(out, "not_found 1") || !strings.Contains(out, "transport_error 1") {
			t.Errorf("%s report: no calls by class:\n%s", name, out)
		}
	}
}
