package report_test

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// loadFixture is the crm fixture as a load run over Streamable HTTP: calls
// by class as a transport records them.
func loadFixture() *report.Results {
	res := fixture()
	res.Run.Target = "http://127.0.0.1:8931/mcp"
	res.Run.Command = "herd swarm http://127.0.0.1:8931/mcp --agents 2000 --seed 42 --variant clear,ambiguous --rate 400 --duration 10s"
	res.Timing.Seconds = 10
	res.Timing.EpisodesPerSec = 400
	res.Timing.Calls = []report.CallClass{
		{Tool: "archive_contact", Class: "ok", N: 1150}, {Tool: "archive_contact", Class: "tool_error", Code: "locked", N: 41},
		{Tool: "get_contact", Class: "ok", N: 5300}, {Tool: "get_contact", Class: "timeout", N: 27},
		{Tool: "list_contacts", Class: "ok", N: 4000},
		{Tool: "update_contact", Class: "ok", N: 1263},
	}
	return res
}

// summaryCases are the summaries held to the size limits.
func summaryCases() map[string]*report.Results {
	one := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Variants: []string{"clear"}, Thresholds: []string{"harmful<5%"}})
	partial := reporttest.CRM(reporttest.Config{Seed: 42, Agents: 2000, Partial: true, Timing: true, Thresholds: fixtureThresholds})
	return map[string]*report.Results{
		"summary-one-variant.golden":  one,
		"summary-two-variants.golden": fixture(),
		"summary-load.golden":         loadFixture(),
		"summary-partial.golden":      partial,
	}
}

// checkSummaryLimits fails when a summary is longer or wider than the
// limits, naming the widest line.
func checkSummaryLimits(t *testing.T, name string, out []byte) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) > report.SummaryMaxLines {
		t.Errorf("%s: %d lines; want at most %d", name, len(lines), report.SummaryMaxLines)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > report.SummaryMaxColumns {
			t.Errorf("%s: line %d is %d columns; want at most %d: %q", name, i+1, n, report.SummaryMaxColumns, l)
		}
	}
}

func TestGoldenSummary(t *testing.T) {
	for name, res := range summaryCases() {
		t.Run(name, func(t *testing.T) {
			got := render(t, func(b *bytes.Buffer) error {
				return report.Terminal(b, res, report.TerminalOptions{Plain: true, Footer: []string{"every table: add --full"}})
			})
			checkSummaryLimits(t, name, got)
			golden(t, name, got)
		})
	}
}

// The limits can fail: the full report of the same run breaks both.
func TestSummaryLimitsCanFail(t *testing.T) {
	full := render(t, func(b *bytes.Buffer) error {
		return report.Terminal(b, fixture(), report.TerminalOptions{Plain: true, Full: true})
	})
	lines := strings.Count(string(full), "\n")
	if lines <= report.SummaryMaxLines {
		t.Fatalf("the full report is %d lines: the limit test would not notice a full report", lines)
	}
}

// The summary says what matters: the verdict, the headline of each variant,
// the worst class, the delta with its p-value, a trace and the command.
func TestSummaryLeadsWithTheFinding(t *testing.T) {
	out := string(render(t, func(b *bytes.Buffer) error {
		return report.Terminal(b, fixture(), report.TerminalOptions{Plain: true, Footer: []string{"written: full report r.html"}})
	}))
	for _, want := range []string{
		"VERDICT: NOT READY — 2 of 4 thresholds fail",
		"harmful under clear", "harmful under ambiguous", "11.3% [10.0–12.8]",
		"destroyed_data", "3.7% → 20.1%", "+16.4 pp [+13.7, +19.4]", "p <0.001",
		"latency 12,000 calls", "p99 28.9 ms [27.2–30.2]",
		"lint: 1 error, 2 warnings, 1 info — herd lint mock:crm",
		"trace: agent", "replay: herd replay",
		"reproduce: herd swarm mock:crm --agents 2000 --seed 42 --variant clear,ambiguous --faults realistic",
		"written: full report r.html",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if strings.Contains(out, "Description lint") || strings.Contains(out, "Fault handling") {
		t.Error("the summary draws tables of the full report")
	}
	// The hardest rows come first: destroyed_data under ambiguous (20.1%)
	// is the first row of the worst outcomes.
	i := strings.Index(out, "Worst outcomes")
	if i < 0 || !strings.Contains(strings.SplitN(out[i:], "\n", 4)[2], "destroyed_data") {
		t.Errorf("the first worst row is not destroyed_data:\n%s", out[i:])
	}
}

// A command longer than the width folds at spaces with a backslash, so it
// pastes as one command.
func TestSummaryFoldsLongCommands(t *testing.T) {
	res := fixture()
	res.Run.Command = "herd swarm mock:crm " + strings.Repeat("--threshold 'harmful<5%' ", 10)
	out := render(t, func(b *bytes.Buffer) error { return report.Terminal(b, res, report.TerminalOptions{Plain: true}) })
	checkSummaryLimits(t, "long command", out)
	s := string(out)
	i := strings.Index(s, "reproduce: ")
	joined := strings.ReplaceAll(s[i+len("reproduce: "):], " \\\n    ", " ")
	if !strings.HasPrefix(joined, strings.TrimSpace(res.Run.Command)+"\n") {
		t.Errorf("the folded command does not join back to the command:\n%s", s[i:])
	}
}

// --full keeps the tables; all-zero outcome rows are hidden unless Zeros.
func TestFullHidesZeroRowsUnlessAsked(t *testing.T) {
	res := fixture()
	// A class no episode ended in under either variant.
	res.Classes = append(res.Classes, report.ClassInfo{Goal: "hide_contact", Class: "never_seen", Severity: report.SeverityHarmful})
	full := string(render(t, func(b *bytes.Buffer) error {
		return report.Terminal(b, res, report.TerminalOptions{Plain: true, Full: true})
	}))
	if strings.Contains(full, "never_seen") || !strings.Contains(full, "1 outcome row no episode ended in under any variant is not shown") {
		t.Error("the full report shows an all-zero row, or does not say it hid one")
	}
	zeros := string(render(t, func(b *bytes.Buffer) error {
		return report.Terminal(b, res, report.TerminalOptions{Plain: true, Full: true, Zeros: true})
	}))
	if !strings.Contains(zeros, "never_seen") {
		t.Error("Zeros does not show the all-zero row")
	}
	// Confusions most frequent first; lint as one line.
	i := strings.Index(full, "Tool confusions")
	rows := strings.Split(full[i:], "\n")[4:6]
	if !strings.Contains(rows[0], "136") || !strings.Contains(rows[1], "35") {
		t.Errorf("confusions not sorted by count:\n%s", strings.Join(rows, "\n"))
	}
	if strings.Contains(full, "Description lint") || !strings.Contains(full, "lint: 1 error, 2 warnings, 1 info") {
		t.Error("the full terminal report draws the lint table instead of a one-line summary")
	}
}
