package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/herd-sh/herd/internal/safetext"
)

// Document is what herd lint prints: one report per variant linted.
type Document struct {
	// World is the world's name, or the server's for a tool list read
	// from an MCP server or a saved tools/list file.
	World string `json:"world"`
	// Target is the server or file the tools were read from, as given;
	// "" for a world.
	Target string `json:"target,omitempty"`
	// Descriptions is the descriptions file whose texts replaced the
	// world's, "" when none.
	Descriptions string `json:"descriptions,omitempty"`
	// Encoding names the token encoding of the reports' token counts.
	Encoding string   `json:"encoding,omitempty"`
	Reports  []Report `json:"reports"`
	// Thresholds are the token budgets judged on each report.
	Thresholds []TokenVerdict `json:"thresholds,omitempty"`
}

// Failed counts the budgets that failed.
func (d *Document) Failed() int {
	n := 0
	for _, v := range d.Thresholds {
		if !v.Pass {
			n++
		}
	}
	return n
}

// Counts adds up the findings of every report.
func (d *Document) Counts() Counts {
	var c Counts
	for _, r := range d.Reports {
		c.Errors += r.Counts.Errors
		c.Warnings += r.Counts.Warnings
		c.Infos += r.Counts.Infos
	}
	return c
}

// WriteJSON writes the document as indented JSON. The output is a pure
// function of the document: linting twice gives the same bytes.
func WriteJSON(w io.Writer, d *Document) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(d)
}

// WriteTable writes the document as text tables: scores per dimension and
// variant, per tool, then the findings, errors first. plain draws ASCII
// borders, for logs and files.
func WriteTable(w io.Writer, d *Document, plain bool) error {
	tw := &textWriter{w: w, plain: plain}
	tw.printf("herd lint · %s · %s%s\n", subject(d), variantList(d), descriptionsNote(d))
	for _, n := range notes(d) {
		tw.printf("note: %s\n", n)
	}
	for _, line := range tokenLines(d) {
		tw.printf("%s\n", line)
	}
	for _, line := range verdictLines(d) {
		tw.printf("%s\n", line)
	}
	tw.printf("\nScores (0–100)\n")
	tw.table(variantHeader("DIMENSION", d), scoreRows(d), numericColumns(len(d.Reports)))
	tw.printf("\nTools (overall score)\n")
	tw.table(toolHeader(d), toolRows(d), toolNumericColumns(d))
	fs := sortedFindings(d)
	c := d.Counts()
	tw.printf("\nFindings: %s\n", c)
	rows := make([][]string, len(fs))
	for i, f := range fs {
		rows[i] = []string{f.Level, f.Variant, f.Tool, f.Dimension, f.Message, f.Fix}
	}
	tw.wrapped([]string{"LEVEL", "VARIANT", "TOOL", "DIMENSION", "FINDING", "FIX"}, rows, map[int]int{4: 44, 5: 56})
	return tw.err
}

// WriteMarkdown writes the document as Markdown, for a pull request or a
// CI step summary.
func WriteMarkdown(w io.Writer, d *Document) error {
	mw := &textWriter{w: w, markdown: true}
	heading := d.World
	if d.Target != "" {
		heading = subject(d)
	}
	mw.printf("## herd lint · %s\n\n", heading)
	c := d.Counts()
	mw.printf("%s across %s%s.\n\n", c, variantList(d), descriptionsNote(d))
	for _, n := range notes(d) {
		mw.printf("> note: %s\n\n", n)
	}
	for _, line := range tokenLines(d) {
		mw.printf("%s\n\n", line)
	}
	for _, line := range verdictLines(d) {
		mw.printf("- %s\n", line)
	}
	if len(d.Thresholds) > 0 {
		mw.printf("\n")
	}
	mw.printf("### Scores (0–100)\n\n")
	mw.table(variantHeader("DIMENSION", d), scoreRows(d), numericColumns(len(d.Reports)))
	mw.printf("\n### Tools (overall score)\n\n")
	mw.table(toolHeader(d), toolRows(d), toolNumericColumns(d))
	fs := sortedFindings(d)
	if len(fs) > 0 {
		mw.printf("\n### Findings\n\n")
		rows := make([][]string, len(fs))
		for i, f := range fs {
			rows[i] = []string{f.Level, f.Variant, "`" + f.Tool + "`", f.Dimension, f.Message, f.Fix}
		}
		mw.table([]string{"Level", "Variant", "Tool", "Dimension", "Finding", "Fix"}, rows, nil)
	}
	return mw.err
}

func descriptionsNote(d *Document) string {
	if d.Descriptions == "" {
		return ""
	}
	return " · descriptions from " + d.Descriptions
}

// notes lists each report's notes once, prefixed with its variant when
// there are several.
func notes(d *Document) []string {
	var out []string
	for _, r := range d.Reports {
		for _, n := range r.Notes {
			if len(d.Reports) > 1 {
				n = r.Variant + ": " + n
			}
			out = append(out, n)
		}
	}
	return out
}

func variantList(d *Document) string {
	names := make([]string, len(d.Reports))
	for i, r := range d.Reports {
		names[i] = r.Variant
	}
	word := "variant"
	if len(names) != 1 {
		word = "variants"
	}
	return word + " " + strings.Join(names, ", ")
}

// variantHeader is a table's header: the first column's title, then a
// column per variant.
func variantHeader(first string, d *Document) []string {
	h := []string{first}
	for _, r := range d.Reports {
		h = append(h, r.Variant)
	}
	return h
}

func scoreRows(d *Document) [][]string {
	var rows [][]string
	for _, dim := range Dimensions {
		row := []string{dim}
		for _, r := range d.Reports {
			row = append(row, fmtScore(r.Dimension(dim)))
		}
		rows = append(rows, row)
	}
	overall := []string{"overall"}
	counts := []string{"errors / warnings / info"}
	for _, r := range d.Reports {
		overall = append(overall, fmtScore(r.Score))
		counts = append(counts, fmt.Sprintf("%d / %d / %d", r.Counts.Errors, r.Counts.Warnings, r.Counts.Infos))
	}
	return append(rows, overall, counts)
}

// toolHeader is the tools table's header: the tool, its effect class,
// its score per variant, then its token count per variant when counted.
func toolHeader(d *Document) []string {
	h := []string{"TOOL", "EFFECT"}
	for _, r := range d.Reports {
		h = append(h, r.Variant)
	}
	for _, r := range d.Reports {
		if r.Tokens != nil {
			h = append(h, "tokens "+r.Variant)
		}
	}
	return h
}

func toolNumericColumns(d *Document) []int {
	var out []int
	for i := 2; i < len(toolHeader(d)); i++ {
		out = append(out, i)
	}
	return out
}

func toolRows(d *Document) [][]string {
	var names []string
	seen := map[string]bool{}
	effects := map[string]Effect{}
	for _, r := range d.Reports {
		for _, t := range r.Tools {
			if !seen[t.Tool] {
				seen[t.Tool] = true
				names = append(names, t.Tool)
				effects[t.Tool] = t.Effect
			}
		}
	}
	// One map per report, so that a table of thousands of tools is not
	// built by searching every report for every tool.
	scores := make([]map[string]float64, len(d.Reports))
	for i, r := range d.Reports {
		scores[i] = make(map[string]float64, len(r.Tools))
		for _, t := range r.Tools {
			scores[i][t.Tool] = t.Score
		}
	}
	var rows [][]string
	for _, n := range names {
		row := []string{n, string(effects[n])}
		for i := range d.Reports {
			if s, ok := scores[i][n]; ok {
				row = append(row, fmtScore(s))
			} else {
				row = append(row, "—")
			}
		}
		for _, r := range d.Reports {
			if r.Tokens == nil {
				continue
			}
			if k, ok := r.Tokens.Tool(n); ok {
				row = append(row, strconv.Itoa(k))
			} else {
				row = append(row, "—")
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// subject is what was linted: "world crm", or "server memory-server
// (mcp+stdio:npx …)".
func subject(d *Document) string {
	if d.Target == "" {
		return "world " + d.World
	}
	return fmt.Sprintf("server %s (%s)", d.World, d.Target)
}

// tokenLines say what the tools' definitions cost, per variant.
func tokenLines(d *Document) []string {
	var out []string
	for _, r := range d.Reports {
		c := r.Tokens
		if c == nil {
			continue
		}
		var big []string
		for _, t := range c.Largest(3) {
			big = append(big, fmt.Sprintf("%s %d", t.Tool, t.Tokens))
		}
		line := fmt.Sprintf("tokens (%s): %d for %d tool definitions", c.Encoding, c.Total, len(c.Tools))
		if len(d.Reports) > 1 {
			line = r.Variant + ": " + line
		}
		if len(big) > 0 {
			line += "; largest " + strings.Join(big, ", ")
		}
		out = append(out, line)
	}
	return out
}

// verdictLines say how each token budget fared.
func verdictLines(d *Document) []string {
	var out []string
	for _, v := range d.Thresholds {
		word := "PASS"
		if !v.Pass {
			word = "FAIL"
		}
		what := "the tool set"
		if v.Tool != "" {
			what = v.Tool
		}
		out = append(out, fmt.Sprintf("%s %s: %s is %d tokens (%s, variant %s)", word, v.Threshold, what, v.Tokens, v.Encoding, v.Variant))
	}
	return out
}

func fmtScore(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

func numericColumns(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i + 1
	}
	return out
}

// levelRank orders findings errors first.
func levelRank(level string) int {
	switch level {
	case LevelError:
		return 0
	case LevelWarning:
		return 1
	}
	return 2
}

// ValidLevel reports whether level is error, warning or info.
func ValidLevel(level string) bool {
	return level == LevelError || level == LevelWarning || level == LevelInfo
}

// AtLeast returns a copy of the document that shows only findings at
// minLevel or worse; scores and counts stay those of the whole lint.
func (d *Document) AtLeast(minLevel string) *Document {
	limit := levelRank(minLevel)
	out := *d
	out.Reports = slices.Clone(d.Reports)
	for i := range out.Reports {
		kept := []Finding{}
		for _, f := range out.Reports[i].Findings {
			if levelRank(f.Level) <= limit {
				kept = append(kept, f)
			}
		}
		out.Reports[i].Findings = kept
	}
	return &out
}

// sortedFindings lists every report's findings, errors first; within a
// level, in report order (variant, then tool, then dimension).
func sortedFindings(d *Document) []Finding {
	var fs []Finding
	for _, r := range d.Reports {
		fs = append(fs, r.Findings...)
	}
	slices.SortStableFunc(fs, func(a, b Finding) int { return levelRank(a.Level) - levelRank(b.Level) })
	return fs
}

// textWriter keeps the first write error, so the renderers read straight.
type textWriter struct {
	w        io.Writer
	plain    bool
	markdown bool
	err      error
}

// printf writes formatted text; every string argument is escaped for the
// output (safe), since tool names, messages and paths come from a world
// file or a server a pull request may control. The format is lint's own.
func (t *textWriter) printf(format string, args ...any) {
	if t.err != nil {
		return
	}
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = t.safe(s, 1000)
		}
	}
	_, t.err = fmt.Fprintf(t.w, format, args...)
}

// safe is s made inert for the output: inline Markdown, or a terminal's
// text with control characters shown as \uXXXX; at most maxRunes runes.
func (t *textWriter) safe(s string, maxRunes int) string {
	if t.markdown {
		return safetext.Markdown(s, maxRunes)
	}
	return safetext.Terminal(s, maxRunes)
}

// cellRunes bounds one table cell.
const cellRunes = 400

// options are a table's drawing options: columns left-aligned but for the
// numeric ones listed in right.
func (t *textWriter) options(columns int, right []int) []tablewriter.Option {
	aligns := make([]tw.Align, columns)
	for i := range aligns {
		aligns[i] = tw.AlignLeft
	}
	for _, i := range right {
		aligns[i] = tw.AlignRight
	}
	var r tw.Renderer
	switch {
	case t.markdown:
		r = renderer.NewMarkdown()
	case t.plain:
		r = renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})
	default:
		r = renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleLight)})
	}
	return []tablewriter.Option{
		tablewriter.WithRenderer(r),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: aligns}),
	}
}

func (t *textWriter) table(header []string, rows [][]string, right []int) {
	opts := append(t.options(len(header), right), tablewriter.WithRowAutoWrap(tw.WrapNone))
	t.render(header, rows, opts)
}

// wrapped is a table whose long text columns wrap at the given widths.
func (t *textWriter) wrapped(header []string, rows [][]string, widths map[int]int) {
	m := tw.NewMapper[int, int]()
	for col, wd := range widths {
		m.Set(col, wd)
	}
	opts := append(t.options(len(header), nil), tablewriter.WithRowAutoWrap(tw.WrapNormal), tablewriter.WithColumnWidths(m))
	t.render(header, rows, opts)
}

func (t *textWriter) render(header []string, rows [][]string, opts []tablewriter.Option) {
	if t.err != nil || len(rows) == 0 {
		return
	}
	tbl := tablewriter.NewTable(t.w, opts...)
	tbl.Header(t.cells(header)...)
	for _, r := range rows {
		if t.err = tbl.Append(t.cells(r)...); t.err != nil {
			return
		}
	}
	t.err = tbl.Render()
}

// cells is a row as tablewriter takes it, each cell made safe. In
// Markdown a cell written as one code span (`name`) stays one, its inside
// made safe for a code span.
func (t *textWriter) cells(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		if t.markdown && len(s) >= 2 && s[0] == '`' && s[len(s)-1] == '`' {
			out[i] = "`" + safetext.Code(s[1:len(s)-1], cellRunes) + "`"
			continue
		}
		out[i] = t.safe(s, cellRunes)
	}
	return out
}
