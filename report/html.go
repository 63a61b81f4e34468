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
	return template.New("report.html.tmpl").ParseFS(templates.Report, "report/report.html.tmpl")
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
	Lint []LintFinding // findings on the tools this goal was confused between
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
	CSS                     template.CSS
	Title                   string
	Verdict, VerdictClass   string
	Headline                string
	Partial                 bool
	TooFew                  string
	Overall                 []htmlRate
	Verdicts                []htmlVerdict
	Variants                []string
	MisuseScale, OKScale    string
	Goals                   []htmlGoal
	MisuseNote              string
	Invariants              textTable
	Comparisons             []htmlComparison
	Forest                  *forestChart
	PersonaScale, GoalScale string
	Personas, GoalRows      []htmlGroupRow
	Confusions              []Confusion
	Faults                  []htmlFault
	Lint                    []LintFinding
	Latency                 *htmlLatency
	Ceiling                 template.HTML // a ceiling search's curve and table (ceiling.go)
	InFlight                *lineChart
	Traces                  []htmlTrace
	TracesNote              string
	Meta                    []keyValue
	Fingerprint             string
	Generator               string
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
		v.Verdict = "NO THRESHOLDS SET"
	}
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
	v.Verdicts = htmlVerdicts(res)
	v.Goals, v.MisuseScale, v.OKScale, v.MisuseNote = htmlGoals(res)
	v.Invariants = invariantTable(res)
	v.Comparisons, v.Forest = htmlComparisons(res)
	v.Personas, v.PersonaScale = htmlGroups("persona/harmful/", res.HarmfulByPersona(), v.Variants)
	v.GoalRows, v.GoalScale = htmlGroups("goal/harmful/", res.HarmfulByGoal(), v.Variants)
	v.Confusions = res.Confusions
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

func htmlVerdicts(res *Results) []htmlVerdict {
	var out []htmlVerdict
	for _, vd := range res.Thresholds {
		hv := htmlVerdict{Verdict: vd, Class: verdictClass(vd.Result), ValueText: VerdictValue(vd), LimitText: LimitText(vd)}
		if !isLatencyMetric(vd.Metric) && vd.N > 0 {
			r := stats.Rate{N: vd.N, P: vd.Value, CI: vd.CI} // a bar needs only the estimate and interval
			b := newIVBar(r, niceScale(max(vd.CI.Hi, vd.Limit)), hv.Class)
			b.HasLimit = true
			b.Limit = round1(min(vd.Limit/b.ScaleMax, 1) * barWidth)
			hv.Bar = &b
		}
		out = append(out, hv)
	}
	return out
}

// htmlGoals lays out the misuse map. Harmful and failed outcomes share one
// scale and ok outcomes another: on a single 0–100% axis a 3% harmful rate
// would be a dot.
func htmlGoals(res *Results) ([]htmlGoal, string, string, string) {
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
	variants := res.Variants()
	var goals []htmlGoal
	note := ""
	for i, row := range rows {
		if i == htmlMaxClassRows {
			note = fmt.Sprintf("Showing %d of %d outcome rows; the JSON results have them all.", i, len(rows))
			break
		}
		if len(goals) == 0 || goals[len(goals)-1].Name != row.Goal {
			goals = append(goals, htmlGoal{Name: row.Goal, Lint: lintFor(res, row.Goal)})
		}
		hr := htmlClassRow{Class: row.Class, Severity: row.Severity}
		scale := problemScale
		if row.Severity == SeverityOK {
			scale = okScale
		}
		for j, r := range row.Rates {
			key := "class/" + row.Goal + "/" + row.Class + "/" + variants[j]
			hr.Rates = append(hr.Rates, newHTMLRate(key, r, scale, row.Severity))
		}
		g := &goals[len(goals)-1]
		g.Rows = append(g.Rows, hr)
	}
	return goals, scaleText(problemScale), scaleText(okScale), note
}

// scaleText is an axis end as a percentage: "25%", "100%".
func scaleText(s float64) string {
	return strconv.FormatFloat(math.Round(s*1e6)/1e4, 'f', -1, 64) + "%"
}

// lintFor is the lint on the tools a goal's agents confused: the findings
// that most likely explain its harmful rates.
func lintFor(res *Results, goal string) []LintFinding {
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
	var out []LintFinding
	for _, l := range res.Lint {
		if slices.Contains(tools, l.Tool) && l.Level != "info" {
			out = append(out, l)
		}
	}
	return out
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
func htmlGroups(keyPrefix string, rates []GroupRate, variants []string) ([]htmlGroupRow, string) {
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
	return out, scaleText(scale)
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
