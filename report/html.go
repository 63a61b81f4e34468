package report

import (
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

type htmlComparison struct {
	Comparison
	Label        string
	RateA, RateB htmlRate
	DiffText     string
	PText        string
	Class        string
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
	Rows  []htmlLatencyRow
	Hist  *histChart
	Calls []htmlCallRow // by how they ended
}

type htmlCallRow struct{ Tool, Calls, OK, Errors, Failed string }

type htmlLatencyRow struct {
	Tool   string
	Calls  string
	Values []string
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
	Comparisons             []htmlComparison
	Forest                  *forestChart
	PersonaScale, GoalScale string
	Personas, GoalRows      []htmlGroupRow
	Confusions              []Confusion
	Faults                  []htmlFault
	Lint                    []LintFinding
	Latency                 *htmlLatency
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
	switch v.Verdict {
	case Ready:
		v.VerdictClass = "ready"
	case NotReady:
		v.VerdictClass = "not-ready"
	case Inconclusive:
		v.VerdictClass = "inconclusive"
	default:
		v.Verdict, v.VerdictClass = "NO THRESHOLDS SET", "none"
	}
	overall := res.HarmfulOverall()
	scale := 0.0
	for _, g := range overall {
		scale = max(scale, g.CI.Hi)
		if stats.TooFew(g.N) && v.TooFew == "" {
			v.TooFew = fmt.Sprintf("Too few episodes to decide: %d under %s; a verdict needs at least %d.", g.N, g.Variant, stats.MinEpisodes)
		}
	}
	for _, g := range overall {
		hr := newHTMLRate("overall/harmful/"+g.Variant, g.Rate, niceScale(scale), SeverityHarmful)
		hr.Label = g.Variant
		v.Overall = append(v.Overall, hr)
	}
	v.Verdicts = htmlVerdicts(res)
	v.Goals, v.MisuseScale, v.OKScale, v.MisuseNote = htmlGoals(res)
	v.Comparisons, v.Forest = htmlComparisons(res)
	v.Personas, v.PersonaScale = htmlGroups("persona/harmful/", res.HarmfulByPersona(), len(v.Variants))
	v.GoalRows, v.GoalScale = htmlGroups("goal/harmful/", res.HarmfulByGoal(), len(v.Variants))
	v.Confusions = res.Confusions
	for _, f := range res.Faults {
		v.Faults = append(v.Faults, htmlFault{f, recoveredText(f)})
	}
	v.Lint = res.Lint
	v.Latency = htmlLatencyOf(res)
	if res.Timing != nil {
		v.InFlight = newInFlight(thin(res.Timing.InFlight, htmlMaxInFlight))
	}
	v.Traces, v.TracesNote = htmlTraces(res)
	v.Meta = htmlMeta(res)
	return v
}

func htmlVerdicts(res *Results) []htmlVerdict {
	var out []htmlVerdict
	for _, vd := range res.Thresholds {
		hv := htmlVerdict{Verdict: vd, ValueText: VerdictValue(vd), LimitText: LimitText(vd)}
		hv.Class = map[string]string{Ready: "ready", NotReady: "not-ready", Inconclusive: "inconclusive"}[vd.Result]
		if !isLatencyMetric(vd.Metric) && vd.N > 0 {
			r := stats.Rate{K: int(vd.Value*float64(vd.N) + 0.5), N: vd.N, P: vd.Value, CI: vd.CI}
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
	rates := res.ClassRates()
	problemScale, okScale := 0.0, 0.0
	for _, cr := range rates {
		if cr.Severity == SeverityOK {
			okScale = max(okScale, cr.CI.Hi)
		} else {
			problemScale = max(problemScale, cr.CI.Hi)
		}
	}
	problemScale, okScale = niceScale(problemScale), niceScale(okScale)
	variants := res.Variants()
	if len(variants) == 0 {
		return nil, scaleText(problemScale), scaleText(okScale), ""
	}
	var goals []htmlGoal
	shown := 0
	note := ""
	for i := 0; i+len(variants) <= len(rates); i += len(variants) {
		first := rates[i]
		if shown >= htmlMaxClassRows {
			note = fmt.Sprintf("Showing %d of %d outcome rows; the JSON results have them all.", shown, len(rates)/len(variants))
			break
		}
		if len(goals) == 0 || goals[len(goals)-1].Name != first.Goal {
			goals = append(goals, htmlGoal{Name: first.Goal, Lint: lintFor(res, first.Goal)})
		}
		row := htmlClassRow{Class: first.Class, Severity: first.Severity}
		scale := problemScale
		if first.Severity == SeverityOK {
			scale = okScale
		}
		for _, cr := range rates[i : i+len(variants)] {
			key := "class/" + cr.Goal + "/" + cr.Class + "/" + cr.Variant
			row.Rates = append(row.Rates, newHTMLRate(key, cr.Rate, scale, cr.Severity))
		}
		g := &goals[len(goals)-1]
		g.Rows = append(g.Rows, row)
		shown++
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
		label := c.Class
		if c.Aggregate {
			label = "any " + c.Class
		}
		keyBase := "/" + c.Goal + "/" + c.Class + "/" + c.A + "/" + c.B
		hc := htmlComparison{Comparison: c, Label: label,
			RateA:    newHTMLRate("paired-a"+keyBase, c.RateA, scale, c.Severity),
			RateB:    newHTMLRate("paired-b"+keyBase, c.RateB, scale, c.Severity),
			DiffText: DiffText(c.Diff, c.CI), PText: PText(c.P), Class: changeClass(c)}
		out = append(out, hc)
	}
	return out, forest
}

func htmlGroups(keyPrefix string, rates []GroupRate, variants int) ([]htmlGroupRow, string) {
	scale := 0.0
	for _, g := range rates {
		scale = max(scale, g.CI.Hi)
	}
	scale = niceScale(scale)
	var out []htmlGroupRow
	if variants == 0 {
		return nil, scaleText(scale)
	}
	for i := 0; i+variants <= len(rates); i += variants {
		row := htmlGroupRow{Name: rates[i].Group}
		for _, g := range rates[i : i+variants] {
			row.Rates = append(row.Rates, newHTMLRate(keyPrefix+g.Group+"/"+g.Variant, g.Rate, scale, SeverityHarmful))
		}
		out = append(out, row)
	}
	return out, scaleText(scale)
}

func htmlLatencyOf(res *Results) *htmlLatency {
	rows := res.LatencyRows()
	if len(rows) == 0 {
		return nil
	}
	l := &htmlLatency{}
	for _, r := range rows {
		hr := htmlLatencyRow{Tool: r.Tool, Calls: Thousands(r.Calls)}
		for i, val := range r.Values {
			hr.Values = append(hr.Values, latencyCell(val, r.CIs, i))
		}
		l.Rows = append(l.Rows, hr)
	}
	if h, ok := res.latency(AllTools); ok {
		l.Hist = newHistogram(h, rows)
	}
	for _, r := range res.CallRows() {
		l.Calls = append(l.Calls, htmlCallRow{Tool: r.Tool, Calls: Thousands(r.Calls), OK: Thousands(r.OK), Errors: orDash(r.Errors), Failed: orDash(r.Failed)})
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
	note := ""
	if len(picked) < len(res.Traces) {
		note = fmt.Sprintf("Showing %d of %d sampled traces, harmful first; the JSON results have them all.", len(picked), len(res.Traces))
	}
	return out, note
}

// scoresText is "archive_contact 0.62 · delete_contact 0.31": the reader
// model's choice probabilities, most likely first.
func scoresText(scores []ToolScore) string {
	s := slices.Clone(scores)
	slices.SortStableFunc(s, func(a, b ToolScore) int {
		switch {
		case a.P > b.P:
			return -1
		case a.P < b.P:
			return 1
		}
		return 0
	})
	parts := make([]string, len(s))
	for i, t := range s {
		parts[i] = t.Tool + " " + strconv.FormatFloat(t.P, 'f', 2, 64)
	}
	return strings.Join(parts, " · ")
}

func htmlMeta(res *Results) []keyValue {
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
		{"Fingerprint", res.Fingerprint()},
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
