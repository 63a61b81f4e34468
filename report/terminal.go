package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/herd-sh/herd/internal/safetext"
	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// TerminalOptions say how the terminal report is drawn.
type TerminalOptions struct {
	// Plain draws ASCII borders (+-|) instead of box-drawing lines; the
	// caller sets it when the output is not a terminal (a CI log, a file).
	Plain bool
	// Traces is how many sampled traces the full report shows, harmful
	// first (default 5; negative for none: the summary then shows none
	// either).
	Traces int
	// Full draws every table of the report instead of the one-screen
	// summary.
	Full bool
	// Zeros keeps, in the full report, the outcome rows no episode ended in
	// under any variant; they are hidden by default.
	Zeros bool
	// Footer lines end the summary: where the full report was written and
	// how to see every table, in the words of the caller (a command line
	// knows its flags; this package does not).
	Footer []string
}

// Terminal writes the readiness report: by default the one-screen summary
// (verdict, headline rates, worst rows, the variant delta, latency, one
// trace, the reproducing command), with Full every table.
func Terminal(w io.Writer, res *Results, opts TerminalOptions) error {
	if opts.Traces == 0 {
		opts.Traces = 5
	}
	t := &termWriter{w: w, plain: opts.Plain}
	if !opts.Full {
		t.summary(res, opts)
		return t.err
	}
	t.header(res)
	t.verdicts(res)
	t.section("Misuse map — how episodes ended, per goal and wording (95% Wilson intervals)", misuseTable(res, opts.Zeros))
	t.section("World invariants broken — every episode that left one broken, whatever class it is counted under", invariantTable(res))
	t.section("Harmful outcomes by persona", personaTable(res))
	t.section("Variant comparison — the same agents under each wording (McNemar exact test)", comparisonTable(shownComparisons(res)))
	t.section("Fault handling — injected faults and what agents made of them", faultTable(res))
	t.section("Tool confusions — the write tool called instead of the one the goal needs", confusionTable(res))
	t.section("Repeated trials — pass^k (all k right) and pass@k (one of k right) over tasks: agents sharing a persona, a goal and its target", passKTable(res))
	if s := LintSummary(res); s != "" {
		t.printf("\n%s\n", s)
	}
	t.latency(res)
	if c := res.Timing; c != nil && c.Ceiling != nil {
		t.section(fmt.Sprintf("Ceiling search — %s: the last rate within the bound is %.1f agents a second", c.Ceiling.Bound, c.Ceiling.Rate), ceilingTable(res))
	}
	t.traces(res, opts.Traces)
	return t.err
}

// termWriter keeps the first write error, so the sections read straight.
type termWriter struct {
	w     io.Writer
	plain bool
	err   error
}

// printf writes a line or two. Every string argument is made safe for a
// terminal first (control characters shown as \uXXXX, at most
// termMaxRunes runes): names, paths and results come from files a pull
// request may have written. The format itself is herd's.
func (t *termWriter) printf(format string, args ...any) {
	if t.err != nil {
		return
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = safetext.Terminal(s, termMaxRunes)
		}
	}
	_, t.err = fmt.Fprintf(t.w, format, args...)
}

// termMaxRunes bounds one string of a terminal report: a headline, a
// trace's summary, a replay command.
const termMaxRunes = 400

// termCellRunes bounds one table cell of a terminal report.
const termCellRunes = 120

// section writes a titled table, or nothing when the table has no rows.
func (t *termWriter) section(title string, tbl textTable) {
	if len(tbl.Rows) == 0 {
		return
	}
	t.printf("\n%s\n", title)
	t.table(tbl)
	if tbl.Note != "" {
		t.printf("%s\n", tbl.Note)
	}
}

// table draws one table, its header in capitals.
func (t *termWriter) table(tbl textTable) {
	if t.err != nil || len(tbl.Rows) == 0 {
		return
	}
	style := tw.StyleLight
	if t.plain {
		style = tw.StyleASCII
	}
	aligns := make([]tw.Align, len(tbl.Header))
	header := make([]any, len(tbl.Header))
	for i, h := range tbl.Header {
		aligns[i] = tw.AlignLeft
		if tbl.Right[i] {
			aligns[i] = tw.AlignRight
		}
		header[i] = safetext.Terminal(strings.ToUpper(h), termCellRunes)
	}
	tbw := tablewriter.NewTable(t.w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(style)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
	)
	tbw.Header(header...)
	for _, r := range tbl.Rows {
		if err := tbw.Append(toAny(r)...); err != nil {
			t.err = err
			return
		}
	}
	if err := tbw.Render(); err != nil {
		t.err = err
	}
}

// toAny is a table row as tablewriter takes it, each cell made safe for a
// terminal.
func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = safetext.Terminal(s, termCellRunes)
	}
	return out
}

func (t *termWriter) header(res *Results) {
	t.printf("herd readiness report — %s\n", headline(res))
	t.printf("fingerprint %s · herd %s · target %s\n", shortHash(res.Fingerprint()), orDash(res.Run.HerdVersion), orDash(res.Run.Target))
	if m := ModelLine(res); m != "" {
		t.printf("%s\n", safetext.Terminal(m, termMaxRunes))
	}
	if res.Run.Command != "" {
		t.printf("reproduce: %s\n", res.Run.Command)
	}
}

func (t *termWriter) verdicts(res *Results) {
	overall := Overall(res.Thresholds)
	if overall == "" {
		t.printf("\nVERDICT: no thresholds set (set one, e.g. 'harmful<5%%')\n")
	} else {
		t.printf("\nVERDICT: %s\n", overall)
	}
	harmful := res.HarmfulOverall()
	for _, g := range harmful {
		t.printf("  harmful %-12s %s of %s episodes\n", g.Variant, RateText(g.Rate), Thousands(int64(g.N)))
	}
	if s := tooFewText(harmful); s != "" {
		t.printf("  %s\n", s)
	}
	t.table(verdictTable(res))
}

func (t *termWriter) latency(res *Results) {
	rows := res.LatencyRows()
	if len(rows) == 0 {
		return
	}
	tm := res.Timing
	t.section(fmt.Sprintf("Latency — %s calls in %.1fs (%.0f episodes/s, %d workers on %s)",
		Thousands(rows[0].Calls), tm.Seconds, tm.EpisodesPerSec, tm.Workers, orDash(tm.Host)), latencyTable(rows))
	t.section("Calls by class", callsTable(res))
}

func (t *termWriter) traces(res *Results, limit int) {
	picked := pickTraces(res.Traces, limit)
	if len(picked) == 0 {
		return
	}
	t.printf("\nSampled traces (%d of %d; harmful first)\n", len(picked), len(res.Traces))
	for _, tr := range picked {
		t.printf("  %s\n", traceSummary(tr))
		for _, s := range tr.Steps {
			t.printf("    %-8s %-7s %-16s %s\n", s.At, s.Kind, s.Tool, truncate(s.Result, 80))
		}
		if d := tr.DiffText(); d != "" {
			t.printf("    world diff outside the target: %s\n", d)
		}
		t.printf("    replay: %s\n", tr.Replay)
	}
}
