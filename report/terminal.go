package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/herd-sh/herd/report/stats"
)

// TerminalOptions say how the terminal report is drawn.
type TerminalOptions struct {
	// Plain draws ASCII borders (+-|) instead of box-drawing lines; the
	// caller sets it when the output is not a terminal (a CI log, a file).
	Plain bool
	// Traces is how many sampled traces to show, harmful first (default 5;
	// negative for none).
	Traces int
}

// Terminal writes the readiness report as text tables.
func Terminal(w io.Writer, res *Results, opts TerminalOptions) error {
	if opts.Traces == 0 {
		opts.Traces = 5
	}
	t := &termWriter{w: w, plain: opts.Plain}
	t.header(res)
	t.verdicts(res)
	t.misuseMap(res)
	t.byPersona(res)
	t.comparisons(res)
	t.faults(res)
	t.confusions(res)
	t.lint(res)
	t.latency(res)
	t.traces(res, opts.Traces)
	return t.err
}

// termWriter keeps the first write error, so the sections read straight.
type termWriter struct {
	w     io.Writer
	plain bool
	err   error
}

func (t *termWriter) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.w, format, args...)
	}
}

func (t *termWriter) title(s string) { t.printf("\n%s\n", s) }

// table renders one table; right names the columns aligned right (numbers).
func (t *termWriter) table(header []string, rows [][]string, right ...int) {
	if t.err != nil || len(rows) == 0 {
		return
	}
	style := tw.StyleLight
	if t.plain {
		style = tw.StyleASCII
	}
	aligns := make([]tw.Align, len(header))
	for i := range aligns {
		aligns[i] = tw.AlignLeft
	}
	for _, i := range right {
		aligns[i] = tw.AlignRight
	}
	tbl := tablewriter.NewTable(t.w,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(style)})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
	)
	tbl.Header(toAny(header)...)
	for _, r := range rows {
		if err := tbl.Append(toAny(r)...); err != nil {
			t.err = err
			return
		}
	}
	if err := tbl.Render(); err != nil {
		t.err = err
	}
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func (t *termWriter) header(res *Results) {
	t.printf("herd readiness report — %s\n", headline(res))
	t.printf("fingerprint %s · herd %s · target %s\n", shortHash(res.Fingerprint()), orDash(res.Run.HerdVersion), orDash(res.Run.Target))
	if res.Run.Command != "" {
		t.printf("reproduce: %s\n", res.Run.Command)
	}
}

func (t *termWriter) verdicts(res *Results) {
	overall := Overall(res.Thresholds)
	if overall == "" {
		t.printf("\nVERDICT: no thresholds set (add --threshold 'harmful<5%%')\n")
	} else {
		t.printf("\nVERDICT: %s\n", overall)
	}
	for _, g := range res.HarmfulOverall() {
		t.printf("  harmful %-12s %s of %s episodes\n", g.Variant, RateText(g.Rate), Thousands(int64(g.N)))
	}
	if len(res.Thresholds) == 0 {
		return
	}
	rows := make([][]string, 0, len(res.Thresholds))
	for _, v := range res.Thresholds {
		rows = append(rows, []string{v.Result, v.Threshold, VerdictValue(v), LimitText(v), orDash(v.Variant), v.Note})
	}
	t.table([]string{"RESULT", "THRESHOLD", "VALUE [95% CI]", "LIMIT", "VARIANT", "NOTE"}, rows)
}

func (t *termWriter) misuseMap(res *Results) {
	variants := res.Variants()
	if len(variants) == 0 {
		return
	}
	t.title("Misuse map — how episodes ended, per goal and wording (95% Wilson intervals)")
	header := []string{"GOAL", "OUTCOME", "SEVERITY"}
	for _, v := range variants {
		header = append(header, strings.ToUpper(v))
	}
	var rows [][]string
	var row []string
	right := make([]int, 0, len(variants))
	for i := range variants {
		right = append(right, 3+i)
	}
	for _, cr := range res.ClassRates() {
		if cr.Variant == variants[0] {
			row = []string{cr.Goal, cr.Class, cr.Severity}
		}
		row = append(row, RateText(cr.Rate))
		if len(row) == len(header) {
			rows = append(rows, row)
		}
	}
	t.table(header, rows, right...)
}

func (t *termWriter) byPersona(res *Results) {
	t.title("Harmful outcomes by persona")
	variants := res.Variants()
	header := []string{"PERSONA"}
	for _, v := range variants {
		header = append(header, strings.ToUpper(v))
	}
	rows := groupRows(res.HarmfulByPersona(), len(variants))
	right := make([]int, len(variants))
	for i := range right {
		right[i] = i + 1
	}
	t.table(header, rows, right...)
}

// groupRows lays group rates out one row per group, one column per variant.
func groupRows(rates []GroupRate, variants int) [][]string {
	var rows [][]string
	if variants == 0 {
		return nil
	}
	for i := 0; i+variants <= len(rates); i += variants {
		row := []string{rates[i].Group}
		for _, g := range rates[i : i+variants] {
			row = append(row, RateText(g.Rate))
		}
		rows = append(rows, row)
	}
	return rows
}

// shownComparisons are the comparisons worth a row: every class some agent
// ended in under either variant, plus the harmful aggregate of goals with
// more than one harmful class.
func shownComparisons(res *Results) []Comparison {
	harmfulClasses := map[string]int{}
	for _, c := range res.Classes {
		if c.Severity == SeverityHarmful {
			harmfulClasses[c.Goal]++
		}
	}
	var out []Comparison
	for _, c := range res.Comparisons() {
		if c.Aggregate && (c.Class != SeverityHarmful || harmfulClasses[c.Goal] < 2) {
			continue
		}
		if c.Table.Both+c.Table.OnlyA+c.Table.OnlyB == 0 {
			continue // no agent ended there under either wording: nothing to compare
		}
		out = append(out, c)
	}
	return out
}

func (t *termWriter) comparisons(res *Results) {
	cs := shownComparisons(res)
	if len(cs) == 0 {
		return
	}
	t.title("Variant comparison — the same agents under each wording (McNemar exact test)")
	rows := make([][]string, 0, len(cs))
	for _, c := range cs {
		class := c.Class
		if c.Aggregate {
			class = "any " + c.Class
		}
		rows = append(rows, []string{c.Goal, class, c.A + " → " + c.B, RateText(c.RateA), RateText(c.RateB),
			DiffText(c.Diff, c.CI), PText(c.P)})
	}
	t.table([]string{"GOAL", "OUTCOME", "WORDING", "A", "B", "B − A [95% CI]", "P"}, rows, 3, 4, 5, 6)
}

func (t *termWriter) faults(res *Results) {
	if len(res.Faults) == 0 {
		return
	}
	t.title("Fault handling — injected faults and what agents made of them")
	rows := make([][]string, 0, len(res.Faults))
	for _, f := range res.Faults {
		rows = append(rows, []string{f.Variant, f.Tool, f.Kind, strconv.Itoa(f.Injected),
			recoveredText(f), strconv.Itoa(f.Duplicated)})
	}
	t.table([]string{"VARIANT", "TOOL", "FAULT", "INJECTED", "RECOVERED", "DUPLICATED"}, rows, 3, 4, 5)
}

// recoveredText is "41 · 82.0% [69.0–90.2]": how many episodes recovered,
// and the recovery rate with its interval, like every other rate.
func recoveredText(f FaultTally) string {
	if f.Injected == 0 {
		return strconv.Itoa(f.Recovered)
	}
	return strconv.Itoa(f.Recovered) + " · " + RateText(stats.NewRate(f.Recovered, f.Injected))
}

func (t *termWriter) confusions(res *Results) {
	if len(res.Confusions) == 0 {
		return
	}
	t.title("Tool confusions — the write tool called instead of the one the goal needs")
	rows := make([][]string, 0, len(res.Confusions))
	for _, c := range res.Confusions {
		rows = append(rows, []string{c.Goal, c.Variant, c.Meant, c.Called, strconv.Itoa(c.N)})
	}
	t.table([]string{"GOAL", "VARIANT", "MEANT", "CALLED", "EPISODES"}, rows, 4)
}

func (t *termWriter) lint(res *Results) {
	if len(res.Lint) == 0 {
		return
	}
	t.title("Description lint")
	rows := make([][]string, 0, len(res.Lint))
	for _, l := range res.Lint {
		rows = append(rows, []string{l.Level, l.Tool, l.Variant, l.Dimension, l.Message})
	}
	t.table([]string{"LEVEL", "TOOL", "VARIANT", "DIMENSION", "FINDING"}, rows)
}

func (t *termWriter) latency(res *Results) {
	rows := res.LatencyRows()
	if len(rows) == 0 {
		return
	}
	tm := res.Timing
	t.title(fmt.Sprintf("Latency — %s calls in %.1fs (%.0f episodes/s, %d workers on %s)",
		Thousands(rows[0].Calls), tm.Seconds, tm.EpisodesPerSec, tm.Workers, orDash(tm.Host)))
	header := []string{"TOOL", "CALLS"}
	for _, p := range Percentiles {
		header = append(header, strings.ToUpper(p.Name))
	}
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		row := []string{r.Tool, Thousands(r.Calls)}
		for i, v := range r.Values {
			row = append(row, latencyCell(v, r.CIs, i))
		}
		table = append(table, row)
	}
	t.table(header, table, 1, 2, 3, 4, 5)
	t.calls(res)
}

// calls is the calls by how they ended, under the latency they go with.
func (t *termWriter) calls(res *Results) {
	rows := res.CallRows()
	if len(rows) == 0 {
		return
	}
	t.title("Calls by class")
	table := make([][]string, 0, len(rows))
	for _, r := range rows {
		table = append(table, []string{r.Tool, Thousands(r.Calls), Thousands(r.OK), orDash(r.Errors), orDash(r.Failed)})
	}
	t.table([]string{"TOOL", "CALLS", "OK", "TOOL ERRORS", "NO ANSWER"}, table, 1, 2)
}

func (t *termWriter) traces(res *Results, limit int) {
	picked := pickTraces(res.Traces, limit)
	if len(picked) == 0 {
		return
	}
	t.title(fmt.Sprintf("Sampled traces (%d of %d; harmful first)", len(picked), len(res.Traces)))
	for _, tr := range picked {
		t.printf("  agent %d · %s · %s · %s → %s (%s)\n", tr.Agent, tr.Goal, tr.Persona, tr.Variant, tr.Class, tr.Severity)
		for _, s := range tr.Steps {
			t.printf("    %-8s %-7s %-16s %s\n", s.At, s.Kind, s.Tool, truncate(s.Result, 80))
		}
		t.printf("    replay: %s\n", tr.Replay)
	}
}

// pickTraces chooses up to limit traces to show: harmful ones first, then
// failed, then ok, spreading over goals and classes before repeating one.
func pickTraces(ts []Trace, limit int) []Trace {
	if limit <= 0 {
		return nil
	}
	var out []Trace
	for _, sev := range []string{SeverityHarmful, SeverityFailed, SeverityOK} {
		for round := 0; round < TracesPerClass && len(out) < limit; round++ {
			seen := map[[3]string]int{}
			for _, tr := range ts {
				if tr.Severity != sev {
					continue
				}
				k := [3]string{tr.Goal, tr.Variant, tr.Class}
				seen[k]++
				if seen[k]-1 == round && len(out) < limit {
					out = append(out, tr)
				}
			}
		}
	}
	return out
}
