package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/url"
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
		"url":  markdownURL,
	}).ParseFS(templates.Report, "report/summary.md.tmpl")
})

// MarkdownBudget is what Markdown aims for by default: a PR comment a
// reviewer reads, not scrolls (GitHub renders 12 KB of tables as a few
// screens). The folded sections are cut to their most telling rows until
// the whole fits.
const MarkdownBudget = 12 * 1024

// MarkdownOptions say what Markdown adds and how long it may be.
type MarkdownOptions struct {
	// HTMLLink is where the full HTML report is (a CI artifact's URL, or a
	// file beside the Markdown); "" for none. It is the first line.
	HTMLLink string
	// Budget is the size to cut to (MarkdownBudget when 0); never more
	// than MarkdownLimit.
	Budget int
}

// Markdown writes the summary for a PR comment or a GitHub step summary
// with the default options.
func Markdown(w io.Writer, res *Results) error {
	return MarkdownWith(w, res, MarkdownOptions{})
}

// MarkdownWith writes the summary: a link to the HTML report when known,
// the verdict, the headline rates, the worst rows and the variant
// comparison open, and everything else folded in <details>. However big the
// run, the output stays under the budget: the folded tables are cut to
// their most telling rows (and say so) until it fits.
func MarkdownWith(w io.Writer, res *Results, opts MarkdownOptions) error {
	tmpl, err := markdownTemplate()
	if err != nil {
		return fmt.Errorf("markdown template: %w", err)
	}
	budget := opts.Budget
	if budget <= 0 {
		budget = MarkdownBudget
	}
	budget = min(budget, MarkdownLimit)
	base := newMDView(res)
	base.HTMLLink = opts.HTMLLink
	caps := mdCaps{misuse: 120, comparisons: 60, personas: 40, faults: 40, confusions: 20, lint: 30, latency: 20, calls: 20, traces: 12, steps: 12}
	var buf bytes.Buffer
	for {
		buf.Reset()
		if err := tmpl.Execute(&buf, base.cut(caps)); err != nil {
			return fmt.Errorf("markdown: %w", err)
		}
		if buf.Len() <= budget || caps.zero() {
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

// markdownURL is a link target: an http(s) URL or a relative path, with
// every character that could end the link or start markup percent-encoded.
// Anything else (javascript:, data:) becomes "#": a link that goes nowhere.
func markdownURL(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || (u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https") || (u.Scheme == "" && u.Host != "") {
		return "#"
	}
	return strings.NewReplacer("(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "`", "%60", "|", "%7C", " ", "%20", "\\", "%5C", "[", "%5B", "]", "%5D", "\"", "%22", "'", "%27").Replace(u.String())
}

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
	note := fmt.Sprintf("Showing %d of %d %s; %s.", n, len(t.Rows), t.what, more)
	if n == 0 {
		note = fmt.Sprintf("%d %s left out to keep this summary short; %s.", len(t.Rows), t.what, more)
	}
	out.Note = strings.TrimSpace(t.Note + " " + note)
	return out
}

type mdTrace struct {
	Summary string
	Steps   textTable
	Replay  string
	Diff    string // the world diff outside the target, "" when none
}

type mdView struct {
	HTMLLink                                  string
	Worst, Top                                textTable // open: the worst rows, the most significant comparisons
	Icon, Verdict, Headline, TooFew, Harmful  string
	Partial                                   bool
	Verdicts                                  textTable
	Misuse, Invariants, Comparisons, Personas textTable
	Faults, Confusions, Lint, Latency, Calls  textTable
	Traces                                    []mdTrace
	TracesNote                                string
	allTraces                                 []Trace
	Fingerprint, HerdVersion, Command         string
	Model                                     string // ModelLine, "" for a persona run
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
		Model:       ModelLine(res),
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
	v.Misuse = misuseTable(res, false)
	v.Worst = worstTable(res, v.Misuse, mdWorstRows)
	v.Top = topComparisons(res, mdTopComparisons)
	v.Invariants = invariantTable(res)
	v.Comparisons = comparisonTable(shownComparisons(res))
	v.Personas = personaTable(res)
	v.Faults = faultTable(res)
	v.Confusions = confusionTable(res)
	v.Lint = lintTable(res, true)
	for _, r := range v.Lint.Rows {
		// The finding and its fix are sentences: cut whole, never mid-word.
		r[4], r[5] = sentenceCut(r[4], mdLintRunes), sentenceCut(r[5], mdLintRunes)
	}
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

// Rows of the open sections of the Markdown summary.
const (
	mdWorstRows      = 5
	mdTopComparisons = 5
	mdLintRunes      = 150 // under markdownCell's 160, so the cell never clips
)

// worstTable is the misuse map's worst rows: harmful and failed classes
// some episode ended in, harmful first, highest rate first.
func worstTable(res *Results, misuse textTable, n int) textTable {
	t := misuse
	t.Rows, t.rank, t.Note = nil, nil, ""
	for i, row := range misuse.Rows {
		if row[2] == SeverityOK {
			continue
		}
		t.Rows = append(t.Rows, row)
		t.rank = append(t.rank, misuse.rank[i])
	}
	order := make([]int, len(t.Rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(t.rank[a], t.rank[b]) })
	out := t
	out.Rows, out.rank = nil, nil
	for _, i := range order[:min(n, len(order))] {
		out.Rows = append(out.Rows, t.Rows[i])
	}
	if len(order) > n {
		out.Note = fmt.Sprintf("The %d worst of %d harmful or failed rows; the misuse map below has every one.", n, len(order))
	}
	return out
}

// topComparisons is the most significant comparisons of harmful and failed
// outcomes, most significant first.
func topComparisons(res *Results, n int) textTable {
	var cs []Comparison
	for _, c := range shownComparisons(res) {
		if c.Severity != SeverityOK {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b Comparison) int {
		if c := cmp.Compare(a.P, b.P); c != 0 {
			return c
		}
		return cmp.Compare(abs(b.Diff), abs(a.Diff))
	})
	total := len(cs)
	t := comparisonTable(cs[:min(n, len(cs))])
	if total > n {
		t.Note = fmt.Sprintf("The %d most significant of %d comparisons of harmful and failed outcomes; every comparison is below.", n, total)
	}
	return t
}

// sentenceCut keeps s whole when it has at most n runes; else the whole
// sentences that fit, or, when the first is longer, the words that fit
// followed by "…". A finding is never cut mid-word.
func sentenceCut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := string(r[:n])
	if i := strings.LastIndex(head, ". "); i > 0 {
		return head[:i+1]
	}
	head = string(r[:n-1])
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	}
	return strings.TrimRight(head, " ,;:—–-") + "…"
}
