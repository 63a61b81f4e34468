package report

import (
	"cmp"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/templates"
)

// The HTML report is one self-contained file: the stylesheet and every chart
// (inline SVG) are inside it, it references no URL, and it prints well. Each
// rate it shows carries data-key, data-k and data-n attributes, so a test (or
// a curious reader) can check it against the JSON.

// htmlTemplate is parsed once; the parsed template is never modified.
var htmlTemplate = sync.OnceValues(func() (*template.Template, error) {
	return template.New("report.html.tmpl").Funcs(template.FuncMap{
		"add": func(a, b int) int { return a + b },
	}).ParseFS(templates.Report, "report/report.html.tmpl")
})

var htmlCSS = sync.OnceValues(func() (template.CSS, error) {
	b, err := templates.Report.ReadFile("report/report.css")
	return template.CSS(b), err //nolint:gosec // our own embedded stylesheet
})

// Limits on what the page lists; the JSON has everything.
const (
	htmlMaxClassRows = 1500
	htmlMaxTraces    = 60
	htmlMaxSteps     = 40
	htmlMaxInFlight  = 600
)

// HTML writes the self-contained HTML report.
func HTML(w io.Writer, res *Results) error {
	tmpl, err := htmlTemplate()
	if err != nil {
		return fmt.Errorf("html template: %w", err)
	}
	css, err := htmlCSS()
	if err != nil {
		return fmt.Errorf("html stylesheet: %w", err)
	}
	v := newHTMLView(res)
	v.CSS = css
	return tmpl.Execute(w, v)
}

// htmlRate is one rate as shown: text, interval bar and the counts behind it.
type htmlRate struct {
	Key   string
	Label string
	K, N  int
	Text  string
	Bar   ivBar
}

func newHTMLRate(key string, r stats.Rate, scale float64, class string) htmlRate {
	return htmlRate{Key: key, K: r.K, N: r.N, Text: RateText(r), Bar: newIVBar(r, scale, class)}
}

type htmlVerdict struct {
	Verdict
	Class     string
	ValueText string
	LimitText string
	Bar       *ivBar
}

type htmlClassRow struct {
	Class, Severity string
	Rates           []htmlRate
}

type htmlGoal struct {
	Name string
	Rows []htmlClassRow
	Lint string // one line: the lint findings on the tools this goal was confused between
}

// htmlRateTable is a table of rates whose bars share one axis: every bar
// of the table, in every column, is drawn on Axis's scale.
type htmlRateTable struct {
	Goals    []htmlGoal
	Axis     htmlAxis
	Variants []string
}

// htmlAxis is the scale drawn above a column of bars: its ticks, on the
// bars' own width.
type htmlAxis struct {
	Width, Height float64
	Scale         string  // "25%"
	Max           float64 // the scale as a fraction, as the bars' data-scale
	Ticks         []axisTick
}

// newHTMLAxis is the axis of bars drawn on a 0…scale scale.
func newHTMLAxis(scale float64) htmlAxis {
	a := htmlAxis{Width: barWidth, Height: 14, Scale: scaleText(scale), Max: scale}
	for _, f := range []float64{0, 0.5, 1} {
		label := scaleText(scale * f)
		if f == 0 {
			label = "0"
		}
		a.Ticks = append(a.Ticks, axisTick{X: round1(f * barWidth), Y: 11, Label: label})
	}
	return a
}

type htmlGroupRow struct {
	Name  string
	Rates []htmlRate
}

// htmlComparison is a comparison as shown. Its rates replace the
// comparison's own with their bars; Change (worse, better or same) styles
// the row, and .Label is the comparison's method.
type htmlComparison struct {
	Comparison
	RateA, RateB htmlRate
	DiffText     string
	PText        string
	Change       string
}

type htmlFault struct {
	FaultTally
	RecoveredText string
}

type htmlTrace struct {
	Trace
	Open  bool
	Steps []htmlStep
	More  int
}

type htmlStep struct {
	Step
	ArgsText   string
	ScoresText string
}

type htmlLatency struct {
	Percentiles textTable
	Hist        *histChart
	Calls       textTable // by how they ended
}

type keyValue struct{ Key, Value string }

type htmlView struct {
	CSS                    template.CSS
	Title                  string
	Verdict, VerdictClass  string
	VerdictNote            string // "2 of 4 thresholds fail"
	Finding, FindingDetail string // the result, in words: the largest text on the page
	FindingClass           string // worse | better | harmful | clean
	Headline               string
	Partial                bool
	TooFew                 string
	Overall                []htmlRate
	Verdicts               []htmlVerdict
	Variants               []string
	Problems, OKs          htmlRateTable // the misuse map: harmful and failed outcomes; ok ones
	VerdictAxis            *htmlAxis
	PersonaAxis, GoalAxis  htmlAxis
	MisuseNote             string
	Invariants             textTable
	Comparisons            []htmlComparison
	Forest                 *forestChart
	OnePair                []string // [A, B] when every comparison is of one pair of variants
	Personas, GoalRows     []htmlGroupRow
	Confusions             []Confusion
	Faults                 []htmlFault
	Lint                   []LintFinding
	Latency                *htmlLatency
	Ceiling                template.HTML // a ceiling search's curve and table (ceiling.go)
	InFlight               *lineChart
	Traces                 []htmlTrace
	TracesNote             string
	Meta                   []keyValue
	Fingerprint            string
	Generator              string
}

func newHTMLView(res *Results) *htmlView {
	v := &htmlView{
		Title:       fmt.Sprintf("herd readiness — %s", res.Run.World.Name),
		Headline:    headline(res),
		Partial:     res.Partial,
		Variants:    res.Variants(),
		Fingerprint: res.Fingerprint(),
		Generator:   "herd " + orDash(res.Run.HerdVersion),
	}
	v.Verdict = Overall(res.Thresholds)
	v.VerdictClass = verdictClass(v.Verdict)
	if v.Verdict == "" {
		v.Verdict = "no thresholds set"
	}
	v.VerdictNote = verdictNote(res.Thresholds)
	v.Finding, v.FindingDetail, v.FindingClass = htmlFinding(res)
	overall := res.HarmfulOverall()
	v.TooFew = tooFewText(overall)
	scale := 0.0
	for _, g := range overall {
		scale = max(scale, g.CI.Hi)
	}
	for _, g := range overall {
		hr := newHTMLRate("overall/harmful/"+g.Variant, g.Rate, niceScale(scale), SeverityHarmful)
		hr.Label = g.Variant
		v.Overall = append(v.Overall, hr)
	}
	v.Verdicts, v.VerdictAxis = htmlVerdicts(res)
	v.Problems, v.OKs, v.MisuseNote = htmlGoals(res)
	v.Invariants = invariantTable(res)
	v.Comparisons, v.Forest = htmlComparisons(res)
	if len(v.Comparisons) > 0 {
		v.OnePair = []string{v.Comparisons[0].A, v.Comparisons[0].B}
		for _, c := range v.Comparisons {
			if c.A != v.OnePair[0] || c.B != v.OnePair[1] {
				v.OnePair = nil
				break
			}
		}
	}
	v.Personas, v.PersonaAxis = htmlGroups("persona/harmful/", res.HarmfulByPersona(), v.Variants)
	v.GoalRows, v.GoalAxis = htmlGroups("goal/harmful/", res.HarmfulByGoal(), v.Variants)
	// Most frequent first, as in every report.
	v.Confusions = slices.Clone(res.Confusions)
	slices.SortStableFunc(v.Confusions, func(a, b Confusion) int { return cmp.Compare(b.N, a.N) })
	for _, f := range res.Faults {
		v.Faults = append(v.Faults, htmlFault{f, recoveredText(f)})
	}
	v.Lint = res.Lint
	v.Latency = htmlLatencyOf(res)
	v.Ceiling = ceilingHTML(res)
	if res.Timing != nil {
		v.InFlight = newInFlight(thin(res.Timing.InFlight, htmlMaxInFlight))
	}
	v.Traces, v.TracesNote = htmlTraces(res)
	v.Meta = htmlMeta(res, v.Fingerprint)
	return v
}

// verdictClass is the style of a verdict (the overall one or a
// threshold's); "none" when there is none.
func verdictClass(result string) string {
	switch result {
	case Ready:
		return "ready"
	case NotReady:
		return "not-ready"
	case Inconclusive:
		return "inconclusive"
	}
	return "none"
}

// htmlVerdicts are the thresholds as shown; the bars of rate thresholds
// share one axis, wide enough for every interval and every limit.
func htmlVerdicts(res *Results) ([]htmlVerdict, *htmlAxis) {
	scale := 0.0
	for _, vd := range res.Thresholds {
		if !isLatencyMetric(vd.Metric) && vd.N > 0 {
			scale = max(scale, vd.CI.Hi, vd.Limit)
		}
	}
	scale = niceScale(scale)
	var out []htmlVerdict
	var axis *htmlAxis
	for _, vd := range res.Thresholds {
		hv := htmlVerdict{Verdict: vd, Class: verdictClass(vd.Result), ValueText: VerdictValue(vd), LimitText: LimitText(vd)}
		if !isLatencyMetric(vd.Metric) && vd.N > 0 {
			r := stats.Rate{N: vd.N, P: vd.Value, CI: vd.CI} // a bar needs only the estimate and interval
			b := newIVBar(r, scale, hv.Class)
			b.HasLimit = true
			b.Limit = round1(min(vd.Limit/b.ScaleMax, 1) * barWidth)
			hv.Bar = &b
			if axis == nil {
				a := newHTMLAxis(scale)
				axis = &a
			}
		}
		out = append(out, hv)
	}
	return out, axis
}

// verdictNote is "2 of 4 thresholds fail", "all 3 thresholds pass", or
// "1 of 2 thresholds undecided"; "" without thresholds.
func verdictNote(vs []Verdict) string {
	fail, undecided := 0, 0
	for _, v := range vs {
		switch v.Result {
		case NotReady:
			fail++
		case Inconclusive:
			undecided++
		}
	}
	switch {
	case len(vs) == 0:
		return ""
	case fail > 0:
		return fmt.Sprintf("%d of %d thresholds fail", fail, len(vs))
	case undecided > 0:
		return fmt.Sprintf("%d of %d thresholds undecided", undecided, len(vs))
	}
	return fmt.Sprintf("all %d thresholds pass", len(vs))
}

// htmlFinding is the run's result in one sentence, the largest text of the
// page: with two variants, the most significant change of a harmful
// outcome ("ambiguous raises destroyed_data 3.7% → 20.1%, p < 0.001");
// otherwise the worst harmful rate. The detail line says where and of
// how many.
func htmlFinding(res *Results) (finding, detail, class string) {
	var cs []Comparison
	for _, c := range shownComparisons(res) {
		if !c.Aggregate && c.Severity == SeverityHarmful && c.P < 0.05 && c.Diff != 0 {
			cs = append(cs, c)
		}
	}
	slices.SortStableFunc(cs, func(a, b Comparison) int {
		if c := cmp.Compare(a.P, b.P); c != 0 {
			return c
		}
		return cmp.Compare(abs(b.Diff), abs(a.Diff))
	})
	if len(cs) > 0 {
		c := cs[0]
		verb, class := "raises", "worse"
		if c.Diff < 0 {
			verb, class = "lowers", "better"
		}
		p := "p < 0.001"
		if c.P >= 0.001 {
			p = "p = " + PText(c.P)
		}
		finding = fmt.Sprintf("%s raises %s %s%% → %s%%, %s", c.B, c.Class, Pct(c.RateA.P), Pct(c.RateB.P), p)
		finding = strings.Replace(finding, " raises ", " "+verb+" ", 1)
		detail = fmt.Sprintf("%s: the same %s agents under %s and %s; the change is %s", c.Goal,
			Thousands(int64(c.Table.N())), c.A, c.B, DiffText(c.Diff, c.CI))
		return finding, detail, class
	}
	var worst *ClassRate
	for _, cr := range res.ClassRates() {
		if cr.Severity == SeverityHarmful && cr.K > 0 && (worst == nil || cr.P > worst.P) {
			worst = &cr
		}
	}
	overall := res.HarmfulOverall()
	if worst == nil {
		n := 0
		for _, g := range overall {
			n += g.N
		}
		hi := 0.0
		for _, g := range overall {
			hi = max(hi, g.CI.Hi)
		}
		return fmt.Sprintf("No harmful outcome in %s episodes", Thousands(int64(n))),
			fmt.Sprintf("the harmful rate is below %s%% with 95%% confidence", Pct(hi)), "clean"
	}
	finding = fmt.Sprintf("%s%% of %s episodes ended in %s", Pct(worst.P), worst.Goal, worst.Class)
	if len(overall) > 1 {
		finding += " under " + worst.Variant
	}
	parts := make([]string, len(overall))
	for i, g := range overall {
		parts[i] = RateText(g.Rate) + " under " + g.Variant
	}
	detail = fmt.Sprintf("the worst harmful outcome, %s [%s–%s]; harmful overall %s", Pct(worst.P)+"%", Pct(worst.CI.Lo), Pct(worst.CI.Hi), strings.Join(parts, ", "))
	return finding, detail, "harmful"
}

// htmlGoals lays out the misuse map as two tables, each with one axis for
// all its bars: harmful and failed outcomes (on a scale their highest
// interval sets), and ok outcomes (on theirs). On a single 0–100% axis a 3%
// harmful rate would be a dot; two scales in one column would be misread.
func htmlGoals(res *Results) (problems, oks htmlRateTable, note string) {
	rows := res.ClassRows()
	problemScale, okScale := 0.0, 0.0
	for _, row := range rows {
		for _, r := range row.Rates {
			if row.Severity == SeverityOK {
				okScale = max(okScale, r.CI.Hi)
			} else {
				problemScale = max(problemScale, r.CI.Hi)
			}
		}
	}
	problemScale, okScale = niceScale(problemScale), niceScale(okScale)
	problems.Axis, oks.Axis = newHTMLAxis(problemScale), newHTMLAxis(okScale)
	variants := res.Variants()
	problems.Variants, oks.Variants = variants, variants
	add := func(t *htmlRateTable, row ClassRow, scale float64) {
		if len(t.Goals) == 0 || t.Goals[len(t.Goals)-1].Name != row.Goal {
			t.Goals = append(t.Goals, htmlGoal{Name: row.Goal})
		}
		hr := htmlClassRow{Class: row.Class, Severity: row.Severity}
		for j, r := range row.Rates {
			key := "class/" + row.Goal + "/" + row.Class + "/" + variants[j]
			hr.Rates = append(hr.Rates, newHTMLRate(key, r, scale, row.Severity))
		}
		g := &t.Goals[len(t.Goals)-1]
		g.Rows = append(g.Rows, hr)
	}
	for i, row := range rows {
		if i == htmlMaxClassRows {
			note = fmt.Sprintf("Showing %d of %d outcome rows; the JSON results have them all.", i, len(rows))
			break
		}
		if row.Severity == SeverityOK {
			add(&oks, row, okScale)
		} else {
			add(&problems, row, problemScale)
		}
	}
	for i := range problems.Goals {
		problems.Goals[i].Lint = lintLine(res, problems.Goals[i].Name)
	}
	return problems, oks, note
}

// scaleText is an axis end as a percentage: "25%", "100%".
func scaleText(s float64) string {
	return strconv.FormatFloat(math.Round(s*1e6)/1e4, 'f', -1, 64) + "%"
}

// lintLine is one line on the lint findings (errors and warnings) about
// the tools a goal's agents confused, the ones that most likely explain
// its harmful rates: "1 error, 2 warnings on archive_contact,
// delete_contact"; "" when there are none. The findings are in the lint
// section.
func lintLine(res *Results, goal string) string {
	var tools []string
	for _, c := range res.Confusions {
		if c.Goal == goal {
			for _, t := range []string{c.Meant, c.Called} {
				if !slices.Contains(tools, t) {
					tools = append(tools, t)
				}
			}
		}
	}
	counts := map[string]int{}
	var involved []string
	for _, l := range res.Lint {
		if slices.Contains(tools, l.Tool) && l.Level != "info" {
			counts[l.Level]++
			if !slices.Contains(involved, l.Tool) {
				involved = append(involved, l.Tool)
			}
		}
	}
	if len(involved) == 0 {
		return ""
	}
	var parts []string
	for _, level := range []string{"error", "warning"} {
		if counts[level] > 0 {
			parts = append(parts, plural(counts[level], level))
		}
	}
	slices.Sort(involved)
	return strings.Join(parts, ", ") + " on " + strings.Join(involved, ", ")
}

func htmlComparisons(res *Results) ([]htmlComparison, *forestChart) {
	cs := shownComparisons(res)
	scale := 0.0
	for _, c := range cs {
		scale = max(scale, c.RateA.CI.Hi, c.RateB.CI.Hi)
	}
	scale = niceScale(scale)
	forest := newForest(cs)
	var out []htmlComparison
	for _, c := range cs {
		keyBase := "/" + c.Goal + "/" + c.Class + "/" + c.A + "/" + c.B
		hc := htmlComparison{Comparison: c,
			RateA:    newHTMLRate("paired-a"+keyBase, c.RateA, scale, c.Severity),
			RateB:    newHTMLRate("paired-b"+keyBase, c.RateB, scale, c.Severity),
			DiffText: DiffText(c.Diff, c.CI), PText: PText(c.P), Change: changeClass(c)}
		out = append(out, hc)
	}
	return out, forest
}

// htmlGroups lays out a group's harmful rate under each variant, on one
// scale for the table.
func htmlGroups(keyPrefix string, rates []GroupRate, variants []string) ([]htmlGroupRow, htmlAxis) {
	scale := 0.0
	for _, g := range rates {
		scale = max(scale, g.CI.Hi)
	}
	scale = niceScale(scale)
	var out []htmlGroupRow
	for _, row := range groupRows(rates) {
		hr := htmlGroupRow{Name: row.Group}
		for j, r := range row.Rates {
			hr.Rates = append(hr.Rates, newHTMLRate(keyPrefix+row.Group+"/"+variants[j], r, scale, SeverityHarmful))
		}
		out = append(out, hr)
	}
	return out, newHTMLAxis(scale)
}

func htmlLatencyOf(res *Results) *htmlLatency {
	rows := res.LatencyRows()
	if len(rows) == 0 {
		return nil
	}
	l := &htmlLatency{Percentiles: latencyTable(rows), Calls: callsTable(res)}
	if h, ok := res.latency(AllTools); ok {
		l.Hist = newHistogram(h, rows)
	}
	return l
}

func htmlTraces(res *Results) ([]htmlTrace, string) {
	picked := pickTraces(res.Traces, htmlMaxTraces)
	var out []htmlTrace
	for i, tr := range picked {
		ht := htmlTrace{Trace: tr, Open: i == 0}
		for j, s := range tr.Steps {
			if j == htmlMaxSteps {
				ht.More = len(tr.Steps) - j
				break
			}
			ht.Steps = append(ht.Steps, htmlStep{Step: s, ArgsText: argsText(s.Args), ScoresText: scoresText(s.Scores)})
		}
		out = append(out, ht)
	}
	return out, tracesNote(len(picked), len(res.Traces))
}

// scoresText is "archive_contact 0.62 · delete_contact 0.31": the reader
// model's choice probabilities, most likely first.
func scoresText(scores []ToolScore) string {
	s := slices.Clone(scores)
	slices.SortStableFunc(s, func(a, b ToolScore) int { return cmp.Compare(b.P, a.P) })
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.Tool + " " + strconv.FormatFloat(t.P, 'f', 2, 64)
	}
	return strings.Join(parts, " · ")
}

func htmlMeta(res *Results, fingerprint string) []keyValue {
	r := res.Run
	mix := make([]string, len(r.Mix))
	for i, m := range r.Mix {
		mix[i] = fmt.Sprintf("%s %g (%d agents)", m.Persona, m.Weight, m.Agents)
	}
	meta := []keyValue{
		{"World", fmt.Sprintf("%s v%d (%s)", r.World.Name, r.World.Version, r.World.Source)},
		{"World hash", r.World.Hash},
		{"Target", r.Target},
		{"Variants", strings.Join(r.Variants, ", ")},
		{"Fault profile", r.Faults},
		{"Persona mix", strings.Join(mix, ", ")},
		{"Goals", strings.Join(r.Goals, ", ")},
		{"Seed", strconv.FormatUint(r.Seed, 10)},
		{"Agents", Thousands(int64(r.Agents))},
		{"Episodes", Thousands(int64(res.Episodes))},
		{"Command", r.Command},
		{"herd version", r.HerdVersion},
		{"Fingerprint", fingerprint},
	}
	if m := ModelLine(res); m != "" {
		meta = append(meta, keyValue{"Model", m})
	}
	if r.Shard != nil {
		meta = append(meta, keyValue{"Shard", fmt.Sprintf("%d of %d", r.Shard.Index, r.Shard.Count)})
	}
	if t := res.Timing; t != nil {
		meta = append(meta,
			keyValue{"Started", t.Started},
			keyValue{"Wall time", fmt.Sprintf("%.2fs (%.0f episodes/s)", t.Seconds, t.EpisodesPerSec)},
			keyValue{"Workers", fmt.Sprintf("%d on %d cores, %s", t.Workers, t.GOMAXPROCS, orDash(t.Host))})
	}
	return meta
}

// thin keeps at most n samples, evenly spaced, always the first and last.
func thin(s []Sample, n int) []Sample {
	if len(s) <= n || n < 2 {
		return s
	}
	out := make([]Sample, 0, n)
	for i := range n {
		out = append(out, s[i*(len(s)-1)/(n-1)])
	}
	return out
}
