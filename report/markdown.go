package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/herd-sh/herd/internal/safetext"
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
		"md":   markdownInline,
		"code": markdownCode,
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

// Every string the Markdown template interpolates goes through one of
// these: names, paths, messages and trace results come from world files,
// results files and servers a pull request may control.

// markdownCell is a table cell: inert and at most 160 runes.
func markdownCell(s string) string { return safetext.Markdown(s, 160) }

// markdownInline is inline text (the headline, a trace's summary, notes).
func markdownInline(s string) string { return safetext.Markdown(s, 1000) }

// markdownCode is the inside of a code span (a replay command).
func markdownCode(s string) string { return safetext.Code(s, 2000) }

// mdCaps are the row limits of each table.
type mdCaps struct {
	misuse, comparisons, personas, faults, confusions, lint, latency, calls, traces, steps int
}

func (c mdCaps) half() mdCaps {
	return mdCaps{c.misuse / 2, c.comparisons / 2, c.personas / 2, c.faults / 2, c.confusions / 2, c.lint / 2, c.latency / 2, c.calls / 2, c.traces / 2, c.steps / 2}
}

func (c mdCaps) zero() bool { return c == mdCaps{} }

// cut keeps at most n rows, the best-ranked ones, in their original order.
func (t textTable) cut(n int) textTable {
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
	Steps   textTable
	Replay  string
	Diff    string // the world diff outside the target, "" when none
}

type mdView struct {
	Icon, Verdict, Headline, TooFew, Harmful  string
	Partial                                   bool
	Verdicts                                  textTable
	Misuse, Invariants, Comparisons, Personas textTable
	Faults, Confusions, Lint, Latency, Calls  textTable
	Traces                                    []mdTrace
	TracesNote                                string
	allTraces                                 []Trace
	Fingerprint, HerdVersion, Command         string
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
	out.Traces = make([]mdTrace, len(picked))
	for i, tr := range picked {
		out.Traces[i] = mdTraceOf(tr, c.steps)
	}
	out.TracesNote = tracesNote(len(picked), len(v.allTraces))
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
	overall := res.HarmfulOverall()
	harmful := make([]string, len(overall))
	for i, g := range overall {
		harmful[i] = g.Variant + " " + RateText(g.Rate)
	}
	v.Harmful = strings.Join(harmful, " · ")
	v.TooFew = tooFewText(overall)
	v.Verdicts = verdictTable(res)
	v.Misuse = misuseTable(res)
	v.Invariants = invariantTable(res)
	v.Comparisons = comparisonTable(shownComparisons(res))
	v.Personas = personaTable(res)
	v.Faults = faultTable(res)
	v.Confusions = confusionTable(res)
	v.Lint = lintTable(res, true)
	v.Latency = latencyTable(res.LatencyRows())
	v.Calls = callsTable(res)
	return v
}

func mdTraceOf(tr Trace, maxSteps int) mdTrace {
	t := columns([]string{"At", "Step", "Tool", "Args", "Result"})
	t.what, t.more = "steps", "the replay command shows them all"
	for _, s := range tr.Steps {
		t.Rows = append(t.Rows, []string{s.At, s.Kind, s.Tool, argsText(s.Args), s.Result}) // no rank: the first steps are kept
	}
	return mdTrace{Summary: traceSummary(tr), Steps: t.cut(maxSteps), Replay: tr.Replay, Diff: tr.DiffText()}
}
