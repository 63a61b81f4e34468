package report

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/herd-sh/herd/internal/safetext"
)

// The summary is the terminal report a run prints by default: what a
// reader needs to decide, on one screen (at most SummaryMaxLines lines of at
// most SummaryMaxColumns columns at two variants). Every table of the full
// report is one option away, and in the files.

// SummaryMaxLines and SummaryMaxColumns bound the summary of a run with two
// variants (the tests hold it to them).
const (
	SummaryMaxLines   = 40
	SummaryMaxColumns = 100
)

// Row limits of the summary's sections.
const (
	summaryThresholds  = 3 // failing or undecided thresholds listed one per line
	summaryWorstRows   = 5
	summaryComparisons = 3
	summaryTraceSteps  = 5
)

// summary writes the one-screen report.
func (t *termWriter) summary(res *Results, opts TerminalOptions) {
	t.summaryHeader(res)
	t.summaryVerdict(res)
	t.summaryHarmful(res)
	t.summaryWorst(res)
	t.summaryInvariants(res)
	t.summaryComparisons(res)
	t.summaryTiming(res)
	if s := LintSummary(res); s != "" {
		t.printf("\n%s\n", s)
	}
	if opts.Traces >= 0 {
		t.summaryTrace(res)
	}
	t.printf("\n")
	if res.Run.Command != "" {
		t.commandLine("reproduce: ", res.Run.Command)
	}
	for _, l := range opts.Footer {
		t.line(l)
	}
}

// line writes one line, made safe and cut to the summary's width.
func (t *termWriter) line(s string) {
	t.printf("%s\n", truncate(safetext.Terminal(s, termMaxRunes), SummaryMaxColumns))
}

// commandLine writes a shell command after a label, folded at spaces with
// a trailing backslash so that it stays within the width and can still be
// pasted as it is.
func (t *termWriter) commandLine(label, cmd string) {
	cmd = safetext.Terminal(cmd, termMaxRunes)
	words := strings.Fields(cmd)
	if len(words) == 0 {
		return
	}
	cur := label + words[0]
	for i, w := range words[1:] {
		limit := SummaryMaxColumns - 2 // room for " \" unless w is the last word
		if i == len(words)-2 {
			limit = SummaryMaxColumns
		}
		if utf8.RuneCountInString(cur)+1+utf8.RuneCountInString(w) > limit {
			t.printf("%s \\\n", cur)
			cur = "    " + w
			continue
		}
		cur += " " + w
	}
	t.printf("%s\n", truncate(cur, SummaryMaxColumns))
}

func (t *termWriter) summaryHeader(res *Results) {
	r := res.Run
	first := fmt.Sprintf("herd readiness report — %s v%d (%s) · seed %d · faults %s",
		r.World.Name, r.World.Version, r.World.Source, r.Seed, orDash(r.Faults))
	second := fmt.Sprintf("%s agents · %s episodes · variants %s · target %s",
		Thousands(int64(r.Agents)), Thousands(int64(res.Episodes)), strings.Join(res.Variants(), ", "), orDash(r.Target))
	if r.Shard != nil {
		second += fmt.Sprintf(" · shard %d of %d", r.Shard.Index, r.Shard.Count)
	}
	t.line(first)
	t.line(second)
	if m := ModelLine(res); m != "" {
		t.line(m)
	}
	if res.Partial {
		t.line("PARTIAL: interrupted before every agent finished; the counts cover finished episodes only.")
	}
}

// summaryVerdict is the overall verdict, the thresholds that did not pass
// one per line, and the passing ones on a single line.
func (t *termWriter) summaryVerdict(res *Results) {
	overall := Overall(res.Thresholds)
	if overall == "" {
		t.printf("\nVERDICT: no thresholds set (set one, e.g. 'harmful<5%%')\n")
		return
	}
	var ready []string
	var rows [][]string
	for _, v := range res.Thresholds {
		if v.Result == Ready {
			ready = append(ready, v.Threshold)
			continue
		}
		rows = append(rows, []string{v.Result, v.Threshold, VerdictValue(v), LimitText(v), v.Note})
	}
	// NOT READY before INCONCLUSIVE, in threshold order within each.
	slices.SortStableFunc(rows, func(a, b []string) int { return cmp.Compare(verdictRank(a[0]), verdictRank(b[0])) })
	notReady := 0
	for _, v := range res.Thresholds {
		if v.Result == NotReady {
			notReady++
		}
	}
	head := "VERDICT: " + overall
	if notReady > 0 {
		head += fmt.Sprintf(" — %d of %d thresholds fail", notReady, len(res.Thresholds))
	}
	t.printf("\n")
	t.line(head)
	more := 0
	if len(rows) > summaryThresholds {
		more = len(rows) - summaryThresholds
		rows = rows[:summaryThresholds]
	}
	for _, l := range alignRows(rows, []bool{false, false, true, true, false}) {
		t.line("  " + l)
	}
	if more > 0 {
		t.line(fmt.Sprintf("  … and %d more not passing", more))
	}
	if len(ready) > 0 {
		t.line("  READY: " + strings.Join(ready, ", "))
	}
}

func verdictRank(result string) int {
	if result == NotReady {
		return 0
	}
	return 1
}

// summaryHarmful is the headline: the harmful rate under each variant.
func (t *termWriter) summaryHarmful(res *Results) {
	overall := res.HarmfulOverall()
	var rows [][]string
	for _, g := range overall {
		rows = append(rows, []string{"harmful under " + g.Variant, RateText(g.Rate), "of " + Thousands(int64(g.N)) + " episodes"})
	}
	t.printf("\n")
	for _, l := range alignRows(rows, []bool{false, true, false}) {
		t.line("  " + l)
	}
	if s := tooFewText(overall); s != "" {
		t.line("  " + s)
	}
}

// summaryWorst is the misuse map cut to its worst rows: the harmful and
// failed classes some episode ended in, highest rate first.
func (t *termWriter) summaryWorst(res *Results) {
	type ranked struct {
		row   ClassRow
		worst float64
	}
	var rows []ranked
	for _, row := range res.ClassRows() {
		if row.Severity == SeverityOK {
			continue
		}
		worst, seen := 0.0, false
		for _, r := range row.Rates {
			worst = max(worst, r.P)
			seen = seen || r.K > 0
		}
		if seen {
			rows = append(rows, ranked{row, worst})
		}
	}
	if len(rows) == 0 {
		return
	}
	slices.SortStableFunc(rows, func(a, b ranked) int {
		if c := cmp.Compare(severityOrder(a.row.Severity), severityOrder(b.row.Severity)); c != 0 {
			return c
		}
		return cmp.Compare(b.worst, a.worst)
	})
	total := len(rows)
	rows = rows[:min(len(rows), summaryWorstRows)]
	header := []string{"GOAL", "OUTCOME"}
	right := []bool{false, false}
	for _, v := range res.Variants() {
		header = append(header, strings.ToUpper(v))
		right = append(right, true)
	}
	cells := [][]string{header}
	for _, r := range rows {
		c := []string{r.row.Goal, r.row.Class}
		for _, rate := range r.row.Rates {
			c = append(c, RateText(rate))
		}
		cells = append(cells, c)
	}
	title := "Worst outcomes (95% Wilson intervals)"
	if total > len(rows) {
		title = fmt.Sprintf("Worst outcomes (%d of %d harmful or failed; 95%% Wilson intervals)", len(rows), total)
	}
	t.printf("\n")
	t.line(title)
	for _, l := range alignRows(cells, right) {
		t.line("  " + l)
	}
}

// summaryInvariants is the world invariants episodes left broken, on one
// line, worst first: an episode counted under its goal's own harmful class
// (double_refund) may also break one (refunds_within_total).
func (t *termWriter) summaryInvariants(res *Results) {
	rows := invariantTable(res)
	if len(rows.Rows) == 0 {
		return
	}
	// rank is −rate: the worst variant of each invariant first.
	order := make([]int, len(rows.Rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rows.rank[a], rows.rank[b]) })
	var parts []string
	seen := map[string]bool{}
	for _, i := range order {
		name := rows.Rows[i][0]
		if !seen[name] {
			seen[name] = true
			rate, _, _ := strings.Cut(rows.Rows[i][2], " [")
			parts = append(parts, name+" "+rate+" ("+rows.Rows[i][1]+")")
		}
	}
	t.line("  world invariants broken: " + strings.Join(parts, ", "))
}

// summaryComparisons is the variant comparison cut to its most significant
// rows on harmful and failed outcomes.
func (t *termWriter) summaryComparisons(res *Results) {
	var cs []Comparison
	for _, c := range shownComparisons(res) {
		if c.Severity != SeverityOK {
			cs = append(cs, c)
		}
	}
	if len(cs) == 0 {
		return
	}
	slices.SortStableFunc(cs, func(a, b Comparison) int {
		if c := cmp.Compare(a.P, b.P); c != 0 {
			return c
		}
		return cmp.Compare(abs(b.Diff), abs(a.Diff))
	})
	cs = cs[:min(len(cs), summaryComparisons)]
	onePair := true
	for _, c := range cs {
		onePair = onePair && c.A == cs[0].A && c.B == cs[0].B
	}
	title := "Variant comparison — the same agents under each wording (McNemar exact test)"
	if onePair {
		title = fmt.Sprintf("%s → %s — the same agents under each wording (McNemar exact test)", cs[0].A, cs[0].B)
	}
	t.printf("\n")
	t.line(title)
	var rows [][]string
	for _, c := range cs {
		what := c.Label()
		if !onePair {
			what += " (" + c.A + " → " + c.B + ")"
		}
		rows = append(rows, []string{c.Goal, what, Pct(c.RateA.P) + "% → " + Pct(c.RateB.P) + "%", DiffText(c.Diff, c.CI), "p " + PText(c.P)})
	}
	for _, l := range alignRows(rows, []bool{false, false, true, true, false}) {
		t.line("  " + l)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// summaryTiming is latency and throughput when a transport measured them,
// else the run's wall time.
func (t *termWriter) summaryTiming(res *Results) {
	tm := res.Timing
	if tm == nil {
		return
	}
	t.printf("\n")
	rows := res.LatencyRows()
	if len(rows) > 0 && rows[0].Tool == AllTools {
		all := rows[0]
		parts := []string{"latency " + Thousands(all.Calls) + " calls"}
		for i, p := range Percentiles {
			if p.Name == "p50" || p.Name == "p99" {
				parts = append(parts, p.Name+" "+latencyCell(all.Values[i], all.CIs, i))
			}
		}
		if tm.Seconds > 0 {
			parts = append(parts, fmt.Sprintf("%s calls/s", Thousands(int64(float64(all.Calls)/tm.Seconds+0.5))))
		}
		t.line(strings.Join(parts, " · "))
	}
	if calls := res.CallRows(); len(calls) > 0 && calls[0].Tool == AllTools {
		c := calls[0]
		s := fmt.Sprintf("calls %s · ok %s", Thousands(c.Calls), Thousands(c.OK))
		if c.Errors != "" {
			s += " · tool errors " + c.Errors
		}
		if c.Failed != "" {
			s += " · no answer " + c.Failed
		}
		t.line(s)
	}
	t.line(fmt.Sprintf("ran %s episodes in %.1fs (%s episodes/s, %d workers)",
		Thousands(int64(res.Episodes)), tm.Seconds, Thousands(int64(tm.EpisodesPerSec+0.5)), tm.Workers))
}

// LintSummary is the lint findings in one line — "lint: 1 error, 2
// warnings — herd lint mock:crm" — or "" when there are none; the findings
// themselves are in herd lint and the report files.
func LintSummary(res *Results) string {
	if len(res.Lint) == 0 {
		return ""
	}
	counts := map[string]int{}
	var levels []string
	for _, l := range res.Lint {
		if counts[l.Level] == 0 {
			levels = append(levels, l.Level)
		}
		counts[l.Level]++
	}
	slices.SortStableFunc(levels, func(a, b string) int { return cmp.Compare(lintLevelOrder(a), lintLevelOrder(b)) })
	parts := make([]string, len(levels))
	for i, l := range levels {
		parts[i] = plural(counts[l], l)
	}
	s := "lint: " + strings.Join(parts, ", ")
	if src := res.Run.World.Source; src != "" {
		s += " — herd lint " + src
	}
	return s
}

// plural is "1 error", "2 errors", "3 info".
func plural(n int, word string) string {
	if n == 1 || word == "info" {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// summaryTrace is one sampled trace, the most telling (harmful first).
func (t *termWriter) summaryTrace(res *Results) {
	picked := pickTraces(res.Traces, 1)
	if len(picked) == 0 {
		return
	}
	tr := picked[0]
	t.printf("\n")
	t.line("trace: " + traceSummary(tr))
	var rows [][]string
	for i, s := range tr.Steps {
		if i == summaryTraceSteps {
			rows = append(rows, []string{"", "", fmt.Sprintf("… %d more steps", len(tr.Steps)-i)})
			break
		}
		rows = append(rows, []string{s.At, s.Kind, s.Tool, s.Result})
	}
	for _, l := range alignRows(rows, []bool{true, false, false, false}) {
		t.line("  " + l)
	}
	t.commandLine("  replay: ", tr.Replay)
}

// alignRows lays cells out in columns two spaces apart, padding by runes
// (every cell made safe for a terminal first); the last column is not
// padded.
func alignRows(rows [][]string, right []bool) []string {
	widths := map[int]int{}
	safe := make([][]string, len(rows))
	for i, r := range rows {
		safe[i] = make([]string, len(r))
		for j, c := range r {
			safe[i][j] = safetext.Terminal(c, termCellRunes)
			widths[j] = max(widths[j], utf8.RuneCountInString(safe[i][j]))
		}
	}
	out := make([]string, len(rows))
	for i, r := range safe {
		var b strings.Builder
		for j, c := range r {
			if j > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			switch {
			case j < len(right) && right[j]:
				b.WriteString(pad + c)
			case j == len(r)-1:
				b.WriteString(c)
			default:
				b.WriteString(c + pad)
			}
		}
		out[i] = strings.TrimRight(b.String(), " ")
	}
	return out
}
