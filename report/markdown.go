package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/templates"
)

// MarkdownLimit is the most Markdown will write: GitHub refuses PR comments
// over 65,536 characters and step summaries over 1 MiB, so 60 KB leaves room
// for whatever a workflow puts around it.
const MarkdownLimit = 60 * 1024

// markdownTemplate is parsed once; the parsed template is never modified.
var markdownTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("summary.md.tmpl").Funcs(template.FuncMap{
		"cell": markdownCell,
		"code": func(s string) string { return strings.ReplaceAll(s, "`", "'") },
	}).ParseFS(templates.Report, "report/summary.md.tmpl")
})

// Markdown writes the summary for a PR comment or a GitHub step summary:
// the verdict first, then the misuse map, the variant comparison, personas,
// faults, confusions, lint, latency and a few traces in <details>. However
// big the run, the output stays under MarkdownLimit: tables are cut to their
// most telling rows (and say so) until it fits.
func Markdown(w io.Writer, res *Results) error {
	tmpl, err := markdownTemplate()
	if err != nil {
		return fmt.Errorf("markdown template: %w", err)
	}
	base := newMDView(res)
	caps := mdCaps{misuse: 120, comparisons: 60, personas: 40, faults: 40, confusions: 20, lint: 30, latency: 20, calls: 20, traces: 12, steps: 12}
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := tmpl.Execute(&buf, base.cut(caps)); err != nil {
			return fmt.Errorf("markdown: %w", err)
		}
		if buf.Len() <= MarkdownLimit || caps.zero() {
			break
		}
		caps = caps.half()
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// markdownCell makes a string safe inside a Markdown table cell: pipes
// escaped, line breaks flattened, and "<" escaped where it could open an
// HTML tag (so "harmful<5%" stays readable in the source).
func markdownCell(s string) string {
	r := strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ")
	return htmlTagStart.ReplaceAllString(r.Replace(truncate(s, 160)), "&lt;$1")
}

var htmlTagStart = regexp.MustCompile(`<([A-Za-z/!?])`)

// mdCaps are the row limits of each table.
type mdCaps struct {
	misuse, comparisons, personas, faults, confusions, lint, latency, calls, traces, steps int
}

func (c mdCaps) half() mdCaps {
	return mdCaps{c.misuse / 2, c.comparisons / 2, c.personas / 2, c.faults / 2, c.confusions / 2, c.lint / 2, c.latency / 2, c.calls / 2, c.traces / 2, c.steps / 2}
}

func (c mdCaps) zero() bool { return c == mdCaps{} }

// mdTable is a table with its alignment and a note on what was cut.
type mdTable struct {
	Header []string
	Right  []bool
	Rows   [][]string
	Note   string
	// rank orders rows by how much they matter when the table must be cut
	// (lower first); nil keeps the first rows.
	rank []float64
	what string // "outcome rows", for the cut note
	more string // where the rest is
}

// cut keeps at most n rows, the best-ranked ones, in their original order.
func (t mdTable) cut(n int) mdTable {
	out := t
	if len(t.Rows) <= n {
		return out
	}
	keep := make([]int, len(t.Rows))
	for i := range keep {
		keep[i] = i
	}
	if t.rank != nil {
		slices.SortStableFunc(keep, func(a, b int) int { return cmp.Compare(t.rank[a], t.rank[b]) })
	}
	keep = keep[:n]
	slices.Sort(keep)
	out.Rows = make([][]string, 0, n)
	for _, i := range keep {
		out.Rows = append(out.Rows, t.Rows[i])
	}
	more := t.more
	if more == "" {
		more = "the HTML report and the JSON results have them all"
	}
	if n == 0 {
		out.Note = fmt.Sprintf("%d %s left out to keep this summary short; %s.", len(t.Rows), t.what, more)
	} else {
		out.Note = fmt.Sprintf("Showing %d of %d %s; %s.", n, len(t.Rows), t.what, more)
	}
	return out
}

type mdTrace struct {
	Summary string
	Steps   mdTable
	Replay  string
}

type mdView struct {
	Icon, Verdict, Headline, TooFew, Harmful string
	Partial                                  bool
	Verdicts                                 mdTable
	Misuse, Comparisons, Personas            mdTable
	Faults, Confusions, Lint, Latency, Calls mdTable
	Traces                                   []mdTrace
	TracesNote                               string
	allTraces                                []Trace
	Fingerprint, HerdVersion, Command        string
}

// cut applies the caps to a copy of the view.
func (v mdView) cut(c mdCaps) mdView {
	out := v
	out.Misuse = v.Misuse.cut(c.misuse)
	out.Comparisons = v.Comparisons.cut(c.comparisons)
	out.Personas = v.Personas.cut(c.personas)
	out.Faults = v.Faults.cut(c.faults)
	out.Confusions = v.Confusions.cut(c.confusions)
	out.Lint = v.Lint.cut(c.lint)
	out.Latency = v.Latency.cut(c.latency)
	out.Calls = v.Calls.cut(c.calls)
	picked := pickTraces(v.allTraces, c.traces)
	out.Traces = nil
	for _, tr := range picked {
		out.Traces = append(out.Traces, mdTraceOf(tr, c.steps))
	}
	if len(picked) < len(v.allTraces) {
		out.TracesNote = fmt.Sprintf("Showing %d of %d sampled traces, harmful first; the JSON results have them all.", len(picked), len(v.allTraces))
	}
	return out
}

func newMDView(res *Results) mdView {
	v := mdView{
		Headline:    headline(res),
		Partial:     res.Partial,
		Fingerprint: res.Fingerprint(),
		HerdVersion: orDash(res.Run.HerdVersion),
		Command:     res.Run.Command,
		allTraces:   res.Traces,
	}
	v.Verdict = Overall(res.Thresholds)
	switch v.Verdict {
	case Ready:
		v.Icon = "✅"
	case NotReady:
		v.Icon = "❌"
	case Inconclusive:
		v.Icon = "⚠️"
	default:
		v.Icon, v.Verdict = "ℹ️", "no thresholds set"
	}
	var harmful []string
	for _, g := range res.HarmfulOverall() {
		harmful = append(harmful, fmt.Sprintf("%s %s", g.Variant, RateText(g.Rate)))
		if stats.TooFew(g.N) && v.TooFew == "" {
			v.TooFew = fmt.Sprintf("Too few episodes to decide: %d under %s (at least %d are needed for a verdict).", g.N, g.Variant, stats.MinEpisodes)
		}
	}
	v.Harmful = strings.Join(harmful, " · ")
	v.Verdicts = verdictTable(res)
	v.Misuse = misuseTable(res)
	v.Comparisons = comparisonTable(res)
	v.Personas = personaTable(res)
	v.Faults = faultTable(res)
	v.Confusions = confusionTable(res)
	v.Lint = lintTable(res)
	v.Latency = latencyTable(res)
	v.Calls = callsTable(res)
	return v
}

func verdictTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Result", "Threshold", "Value [95% CI]", "Limit", "Variant", "Note"},
		Right: []bool{false, false, true, true, false, false}, what: "thresholds"}
	for _, v := range res.Thresholds {
		t.Rows = append(t.Rows, []string{v.Result, v.Threshold, VerdictValue(v), LimitText(v), orDash(v.Variant), v.Note})
	}
	return t
}

func misuseTable(res *Results) mdTable {
	variants := res.Variants()
	t := mdTable{Header: []string{"Goal", "Outcome", "Severity"}, Right: []bool{false, false, false},
		what: "outcome rows (the harmful ones with the highest rates are kept)"}
	for _, v := range variants {
		t.Header = append(t.Header, v)
		t.Right = append(t.Right, true)
	}
	if len(variants) == 0 {
		return t
	}
	var row []string
	worst := 0.0
	for _, cr := range res.ClassRates() {
		if cr.Variant == variants[0] {
			row, worst = []string{cr.Goal, cr.Class, cr.Severity}, 0
		}
		row = append(row, RateText(cr.Rate))
		worst = max(worst, cr.P)
		if len(row) == len(t.Header) {
			t.Rows = append(t.Rows, row)
			t.rank = append(t.rank, severityOrder(cr.Severity)-worst)
		}
	}
	return t
}

// severityOrder ranks harmful rows before failed before ok when cutting.
func severityOrder(sev string) float64 {
	switch sev {
	case SeverityHarmful:
		return 0
	case SeverityFailed:
		return 10
	}
	return 20
}

func comparisonTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Goal", "Outcome", "Wording", "A", "B", "B − A [95% CI]", "p"},
		Right: []bool{false, false, false, true, true, true, true},
		what:  "comparisons (the most significant are kept)"}
	for _, c := range shownComparisons(res) {
		class := c.Class
		if c.Aggregate {
			class = "any " + c.Class
		}
		t.Rows = append(t.Rows, []string{c.Goal, class, c.A + " → " + c.B, RateText(c.RateA), RateText(c.RateB), DiffText(c.Diff, c.CI), PText(c.P)})
		t.rank = append(t.rank, c.P-absf(c.Diff)*1e-9)
	}
	return t
}

func absf(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func personaTable(res *Results) mdTable {
	variants := res.Variants()
	t := mdTable{Header: []string{"Persona"}, Right: []bool{false}, what: "personas (the most harmful are kept)"}
	for _, v := range variants {
		t.Header = append(t.Header, v)
		t.Right = append(t.Right, true)
	}
	rates := res.HarmfulByPersona()
	for i, row := range groupRows(rates, len(variants)) {
		t.Rows = append(t.Rows, row)
		worst := 0.0
		for _, g := range rates[i*len(variants) : (i+1)*len(variants)] {
			worst = max(worst, g.P)
		}
		t.rank = append(t.rank, -worst)
	}
	return t
}

func faultTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Variant", "Tool", "Fault", "Injected", "Recovered", "Duplicated"},
		Right: []bool{false, false, false, true, true, true}, what: "fault rows (the most duplicated, then most injected, are kept)"}
	for _, f := range res.Faults {
		t.Rows = append(t.Rows, []string{f.Variant, f.Tool, f.Kind, strconv.Itoa(f.Injected), recoveredText(f), strconv.Itoa(f.Duplicated)})
		t.rank = append(t.rank, -float64(f.Duplicated)*1e9-float64(f.Injected))
	}
	return t
}

func confusionTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Goal", "Variant", "Meant", "Called", "Episodes"},
		Right: []bool{false, false, false, false, true}, what: "confusions (the most frequent are kept)"}
	for _, c := range res.Confusions {
		t.Rows = append(t.Rows, []string{c.Goal, c.Variant, c.Meant, c.Called, strconv.Itoa(c.N)})
		t.rank = append(t.rank, -float64(c.N))
	}
	return t
}

func lintTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Level", "Tool", "Variant", "Dimension", "Finding", "Fix"},
		what: "lint findings (errors first)"}
	t.Right = make([]bool, len(t.Header))
	for _, l := range res.Lint {
		t.Rows = append(t.Rows, []string{l.Level, l.Tool, l.Variant, l.Dimension, l.Message, l.Fix})
		t.rank = append(t.rank, map[string]float64{"error": 0, "warning": 1}[l.Level]+boolf(l.Level == "info")*2)
	}
	return t
}

func boolf(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func latencyTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Tool", "Calls"}, Right: []bool{false, true}, what: "tools (the busiest are kept)"}
	for _, p := range Percentiles {
		t.Header = append(t.Header, p.Name)
		t.Right = append(t.Right, true)
	}
	for _, r := range res.LatencyRows() {
		row := []string{r.Tool, Thousands(r.Calls)}
		for i, v := range r.Values {
			row = append(row, latencyCell(v, r.CIs, i))
		}
		t.Rows = append(t.Rows, row)
		t.rank = append(t.rank, -float64(r.Calls))
	}
	return t
}

func callsTable(res *Results) mdTable {
	t := mdTable{Header: []string{"Tool", "Calls", "ok", "Tool errors", "No answer"}, Right: []bool{false, true, true, false, false},
		what: "tools (the busiest are kept)"}
	for _, r := range res.CallRows() {
		t.Rows = append(t.Rows, []string{r.Tool, Thousands(r.Calls), Thousands(r.OK), orDash(r.Errors), orDash(r.Failed)})
		t.rank = append(t.rank, -float64(r.Calls))
	}
	return t
}

// latencyCell is "28.9 ms [27.2–29.9]" when there is an interval.
func latencyCell(v float64, cis []stats.Interval, i int) string {
	if cis == nil {
		return Millis(v)
	}
	return MillisInterval(v, cis[i])
}

func mdTraceOf(tr Trace, maxSteps int) mdTrace {
	t := mdTable{Header: []string{"At", "Step", "Tool", "Args", "Result"}, Right: make([]bool, 5), what: "steps", more: "the replay command shows them all"}
	for _, s := range tr.Steps {
		t.Rows = append(t.Rows, []string{s.At, s.Kind, s.Tool, argsText(s.Args), s.Result})
	}
	t = t.cut(maxSteps)
	return mdTrace{
		Summary: fmt.Sprintf("agent %d · %s · %s · %s → %s (%s)", tr.Agent, tr.Goal, tr.Persona, tr.Variant, tr.Class, tr.Severity),
		Steps:   t,
		Replay:  tr.Replay,
	}
}

// argsText is a compact, stable rendering of a step's arguments.
func argsText(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, args[k])
	}
	return truncate(strings.Join(parts, " "), 80)
}
