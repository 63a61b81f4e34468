package report_test

import (
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/stats"
)

func TestParseThreshold(t *testing.T) {
	good := []struct {
		spec string
		want report.Threshold
	}{
		{"harmful<5%", report.Threshold{Metric: "harmful", Op: "<", Limit: 0.05}},
		{" harmful < 5 % ", report.Threshold{Metric: "harmful", Op: "<", Limit: 0.05}},
		{"destroyed_data<1%", report.Threshold{Metric: "destroyed_data", Op: "<", Limit: 0.01}},
		{"achieved>90%", report.Threshold{Metric: "achieved", Op: ">", Limit: 0.9}},
		{"ok>0.9", report.Threshold{Metric: "ok", Op: ">", Limit: 0.9}},
		{"failed<12.5%", report.Threshold{Metric: "failed", Op: "<", Limit: 0.125}},
		{"invariant<0.1%", report.Threshold{Metric: "invariant", Op: "<", Limit: 0.001}},
		{"hide_contact:destroyed_data<1%", report.Threshold{Scope: "hide_contact", Metric: "destroyed_data", Op: "<", Limit: 0.01}},
		{"hide_contact:destroyed_data<1%@clear", report.Threshold{Scope: "hide_contact", Metric: "destroyed_data", Variant: "clear", Op: "<", Limit: 0.01}},
		{"harmful<5%@ambiguous", report.Threshold{Metric: "harmful", Variant: "ambiguous", Op: "<", Limit: 0.05}},
		{"p99<300ms", report.Threshold{Metric: "p99", Op: "<", Limit: 300}},
		{"p50<1.5s", report.Threshold{Metric: "p50", Op: "<", Limit: 1500}},
		{"p90<800us", report.Threshold{Metric: "p90", Op: "<", Limit: 0.8}},
		{"p99.9<2s", report.Threshold{Metric: "p99.9", Op: "<", Limit: 2000}},
		{"get_contact:p99<50ms", report.Threshold{Scope: "get_contact", Metric: "p99", Op: "<", Limit: 50}},
		{"invariant:email_unique<1%", report.Threshold{Metric: "invariant:email_unique", Op: "<", Limit: 0.01}},
		{"update_email:invariant:email_unique<1%", report.Threshold{Scope: "update_email", Metric: "invariant:email_unique", Op: "<", Limit: 0.01}},
	}
	for _, g := range good {
		got, err := report.ParseThreshold(g.spec)
		if err != nil {
			t.Errorf("%q: %v", g.spec, err)
			continue
		}
		g.want.Spec = g.spec
		if got.Scope != g.want.Scope || got.Metric != g.want.Metric || got.Variant != g.want.Variant ||
			got.Op != g.want.Op || math.Abs(got.Limit-g.want.Limit) > 1e-12 || got.Spec != g.spec {
			t.Errorf("%q parsed as %+v; want %+v", g.spec, got, g.want)
		}
	}
	bad := []struct{ spec, want string }{
		{"", "empty"},
		{"harmful 5%", "no comparison"},
		{"harmful<=5%", "use < or >"},
		{"<5%", "no metric"},
		{"harmful<five", "is not a number"},
		{"harmful<5", "between 0% and 100%"},
		{"harmful<120%", "between 0% and 100%"},
		{"harmful<5ms", "is a rate: give the limit as a percentage"},
		{"p99<300", "is a latency: give the limit with a unit"},
		{"p99<30%", "is a latency"},
		{"p99<300ms@clear", "latency is measured across variants"},
		{"Harmful<5%", "is not a metric name"},
		{"harm ful<5%", "is not a metric name"},
		{"harmful<5%@", "is not a variant name"},
		{"Goal X:harmful<5%", "is not a goal or tool name"},
		{"harmful<5%<6%", "more than one comparison"},
		{"a:b:c<5%", "too many colons"},
		{"invariant:<5%", "is not a metric name"},
	}
	for _, b := range bad {
		_, err := report.ParseThreshold(b.spec)
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %v; want one containing %q", b.spec, err, b.want)
		}
	}
}

// Names are resolved against the document: a metric, goal, variant or tool
// the run does not have is an error, never a silent pass.
func TestParseThresholdsResolvesNames(t *testing.T) {
	res := fixture()
	if _, err := report.ParseThresholds(res, []string{"harmful<5%", "destroyed_data<1%", "lookup_contact:wrong_answer<10%",
		"invariant<1%", "hide_contact:invariant<1%", "invariant:email_unique<1%", "p99<1s", "get_contact:p99<1s"}); err != nil {
		t.Fatalf("valid thresholds refused: %v", err)
	}
	bad := []struct{ spec, want string }{
		{"destroyed<1%", `unknown metric "destroyed"`},
		{"lookup_contact:destroyed_data<1%", `unknown metric "destroyed_data": use harmful, failed, ok, invariant, a latency percentile (p50, p90, p99, p99.9) or an outcome class of goal lookup_contact`},
		{"sell_car:harmful<1%", `unknown goal "sell_car"`},
		{"harmful<5%@terse", `unknown variant "terse" (this run has clear, ambiguous)`},
		{"send_mail:p99<1s", `no latency measured for tool "send_mail"`},
		{"invariant:no_such_rule<1%", `unknown metric "invariant:no_such_rule"`},
	}
	for _, b := range bad {
		_, err := report.ParseThresholds(res, []string{b.spec})
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%q: error %v; want one containing %q", b.spec, err, b.want)
		}
	}
}

// oneGoal is a document with one goal whose harmful class happened k times
// in n episodes under variant "v".
func oneGoal(k, n int) *report.Results {
	return &report.Results{
		Schema: report.Schema, Version: report.Version, Episodes: n,
		Run: report.Run{Variants: []string{"v"}, Goals: []string{"g"}},
		Classes: []report.ClassInfo{
			{Goal: "g", Class: "broke", Severity: report.SeverityHarmful},
			{Goal: "g", Class: "done", Severity: report.SeverityOK},
		},
		Counts: []report.Count{
			{Goal: "g", Persona: "p", Variant: "v", Class: "broke", Severity: report.SeverityHarmful, N: k},
			{Goal: "g", Persona: "p", Variant: "v", Class: "done", Severity: report.SeverityOK, N: n - k},
		},
	}
}

// The verdict at the edges of the interval: the limit itself is on the
// failing side, so READY needs the whole interval strictly past it.
func TestVerdictAtIntervalEdges(t *testing.T) {
	const k, n = 40, 1000
	ci := stats.Wilson(k, n, 0.95)
	up := func(x float64) float64 { return math.Nextafter(x, 1) }
	down := func(x float64) float64 { return math.Nextafter(x, 0) }
	cases := []struct {
		op    string
		limit float64
		want  string
	}{
		{"<", up(ci.Hi), report.Ready},
		{"<", ci.Hi, report.Inconclusive}, // the top of the interval touches the limit
		{"<", 0.04, report.Inconclusive},  // straddles
		{"<", up(ci.Lo), report.Inconclusive},
		{"<", ci.Lo, report.NotReady}, // the whole interval is at or above the limit
		{"<", down(ci.Lo), report.NotReady},
		{">", down(ci.Lo), report.Ready},
		{">", ci.Lo, report.Inconclusive},
		{">", ci.Hi, report.NotReady},
		{">", up(ci.Hi), report.NotReady},
		{">", down(ci.Hi), report.Inconclusive},
	}
	res := oneGoal(k, n)
	for _, c := range cases {
		th := report.Threshold{Spec: "edge", Metric: "broke", Op: c.op, Limit: c.limit}
		v := report.Evaluate(res, []report.Threshold{th})[0]
		if v.Result != c.want {
			t.Errorf("%s %.10f with interval [%.10f, %.10f]: %s; want %s", c.op, c.limit, ci.Lo, ci.Hi, v.Result, c.want)
		}
		if v.N != n || v.Value != 0.04 || v.CI != ci {
			t.Errorf("verdict value %v %v n=%d; want 0.04 %v n=%d", v.Value, v.CI, v.N, ci, n)
		}
	}
}

func TestTooFewEpisodesIsInconclusive(t *testing.T) {
	res := oneGoal(0, stats.MinEpisodes-1)
	ts, err := report.ParseThresholds(res, []string{"harmful<50%"})
	if err != nil {
		t.Fatal(err)
	}
	v := report.Evaluate(res, ts)[0]
	if v.Result != report.Inconclusive || !strings.Contains(v.Note, "too few episodes to decide (n=299 < 300)") {
		t.Errorf("0 of 299 against 50%%: %s %q; want INCONCLUSIVE, too few episodes", v.Result, v.Note)
	}
	res = oneGoal(0, stats.MinEpisodes)
	if v := report.Evaluate(res, ts)[0]; v.Result != report.Ready {
		t.Errorf("0 of 300 against 50%%: %s; want READY", v.Result)
	}
}

// Without @variant every variant must pass: the worst one decides.
func TestUnscopedThresholdTakesTheWorstVariant(t *testing.T) {
	res := fixture()
	ts, err := report.ParseThresholds(res, []string{"harmful<5%", "harmful<5%@clear", "hide_contact:destroyed_data<10%"})
	if err != nil {
		t.Fatal(err)
	}
	vs := report.Evaluate(res, ts)
	if vs[0].Result != report.NotReady || vs[0].Variant != "ambiguous" || !strings.Contains(vs[0].Note, "worst of 2 variants") {
		t.Errorf("harmful<5%%: %s under %q (%s); want NOT READY under ambiguous", vs[0].Result, vs[0].Variant, vs[0].Note)
	}
	if vs[1].Result != report.Ready || vs[1].Variant != "clear" {
		t.Errorf("harmful<5%%@clear: %s under %q; want READY under clear (3.8%% [3.0–4.7])", vs[1].Result, vs[1].Variant)
	}
	// hide_contact destroyed_data: 25/676 under clear, 136/676 under ambiguous.
	if vs[2].Result != report.NotReady || vs[2].N != 676 || math.Abs(vs[2].Value-136.0/676) > 1e-12 {
		t.Errorf("hide_contact:destroyed_data<10%%: %+v; want NOT READY at 136/676", vs[2])
	}
	if got := report.Overall(vs); got != report.NotReady {
		t.Errorf("overall %s; want NOT READY", got)
	}
}

// Invariant violations are counted whether the swarm records them as
// outcome classes ("invariant:NAME") or in the invariants section.
func TestInvariantMetric(t *testing.T) {
	res := fixture() // the invariants section: email_unique and archived_contacts_unlocked
	ts, err := report.ParseThresholds(res, []string{"invariant<5%@clear", "invariant:email_unique<5%@clear"})
	if err != nil {
		t.Fatal(err)
	}
	all, unique := 0, 0
	for _, iv := range res.Invariants {
		if iv.Variant == "clear" {
			all += iv.N
			if iv.Name == "email_unique" {
				unique += iv.N
			}
		}
	}
	vs := report.Evaluate(res, ts)
	if vs[0].N != 2000 || math.Abs(vs[0].Value-float64(all)/2000) > 1e-12 || all == 0 {
		t.Errorf("invariant: %v of %d; want %d/2000", vs[0].Value, vs[0].N, all)
	}
	if math.Abs(vs[1].Value-float64(unique)/2000) > 1e-12 || unique == 0 || unique == all {
		t.Errorf("invariant:email_unique: %v; want %d/2000", vs[1].Value, unique)
	}
	// As outcome classes, per goal.
	doc := oneGoal(30, 1000)
	doc.Classes = append(doc.Classes, report.ClassInfo{Goal: "g", Class: "invariant:no_dupes", Severity: report.SeverityHarmful})
	doc.Counts = append(doc.Counts, report.Count{Goal: "g", Persona: "p", Variant: "v", Class: "invariant:no_dupes", Severity: report.SeverityHarmful, N: 12})
	ts, err = report.ParseThresholds(doc, []string{"invariant<1%", "g:invariant:no_dupes<1%"})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range report.Evaluate(doc, ts) {
		if v.N != 1012 || v.Value != 12.0/1012 {
			t.Errorf("%s: %v of %d; want 12/1012", v.Threshold, v.Value, v.N)
		}
	}
}

// herd records an invariant both ways: 12 episodes classed invariant:NAME
// and, in the invariants section, those 12 and 8 more whose goal named the
// harm (double_refund). The metric counts each episode once: 20, not 32.
func TestInvariantMetricCountsEachEpisodeOnce(t *testing.T) {
	doc := oneGoal(30, 1000)
	doc.Classes = append(doc.Classes, report.ClassInfo{Goal: "g", Class: "invariant:no_dupes", Severity: report.SeverityHarmful})
	doc.Counts = append(doc.Counts, report.Count{Goal: "g", Persona: "p", Variant: "v", Class: "invariant:no_dupes", Severity: report.SeverityHarmful, N: 12})
	doc.Invariants = []report.InvariantCount{{Name: "no_dupes", Variant: "v", N: 20}}
	ts, err := report.ParseThresholds(doc, []string{"invariant<1%", "invariant:no_dupes<1%", "g:invariant:no_dupes<1%"})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{20, 20, 12} // a goal scope sees only the classes: the section has no goals
	for i, v := range report.Evaluate(doc, ts) {
		if v.N != 1012 || v.Value != float64(want[i])/1012 {
			t.Errorf("%s: %v of %d; want %d/1012", v.Threshold, v.Value, v.N, want[i])
		}
	}
}

func TestLatencyVerdict(t *testing.T) {
	res := fixture()
	ts, err := report.ParseThresholds(res, []string{"p99<300ms", "p99<10ms", "p50<4.9ms"})
	if err != nil {
		t.Fatal(err)
	}
	vs := report.Evaluate(res, ts)
	want := []string{report.Ready, report.NotReady, report.Inconclusive}
	for i, v := range vs {
		if v.Result != want[i] {
			t.Errorf("%s: %s (%s); want %s", v.Threshold, v.Result, report.VerdictValue(v), want[i])
		}
		if v.CI.Lo > v.Value || v.Value > v.CI.Hi || v.N != 12000 {
			t.Errorf("%s: value %v outside its interval %v, or n=%d not the 12000 calls", v.Threshold, v.Value, v.CI, v.N)
		}
	}
	res.Timing = nil
	if v := report.Evaluate(res, ts)[0]; v.Result != report.Inconclusive || !strings.Contains(v.Note, "no latency") {
		t.Errorf("latency threshold without timing: %s %q; want INCONCLUSIVE", v.Result, v.Note)
	}
}

// A threshold that did not come through ParseThresholds and names nothing
// in the run can never pass.
func TestUnresolvedThresholdFails(t *testing.T) {
	v := report.Evaluate(fixture(), []report.Threshold{{Spec: "nope<5%", Metric: "nope", Op: "<", Limit: 0.05}})[0]
	if v.Result != report.NotReady {
		t.Errorf("unknown metric judged %s; want NOT READY", v.Result)
	}
}

func TestExitCode(t *testing.T) {
	r, n, i := report.Verdict{Result: report.Ready}, report.Verdict{Result: report.NotReady}, report.Verdict{Result: report.Inconclusive}
	cases := []struct {
		vs     []report.Verdict
		strict bool
		want   int
	}{
		{nil, false, 0},
		{nil, true, 0},
		{[]report.Verdict{r}, true, 0},
		{[]report.Verdict{r, i}, false, 0},
		{[]report.Verdict{r, i}, true, 1},
		{[]report.Verdict{r, n}, false, 1},
		{[]report.Verdict{i, n}, false, 1},
	}
	for _, c := range cases {
		if got := report.ExitCode(c.vs, c.strict); got != c.want {
			t.Errorf("ExitCode(%v, strict=%v) = %d; want %d", c.vs, c.strict, got, c.want)
		}
	}
}

// An INCONCLUSIVE verdict says how many agents would likely decide it: the
// episodes at which the interval clears the limit at the observed rate,
// scaled from the goal's share of the run to the run's agents. Every
// renderer shows it.
func TestInconclusiveSaysTheAgentsThatWouldDecide(t *testing.T) {
	res := oneGoal(40, 1000) // 4% against 5%: 1,825 episodes decide
	// A second goal of as many episodes: the goal is half the run.
	res.Classes = append(res.Classes, report.ClassInfo{Goal: "h", Class: "done", Severity: report.SeverityOK})
	res.Counts = append(res.Counts, report.Count{Goal: "h", Persona: "p", Variant: "v", Class: "done", Severity: report.SeverityOK, N: 1000})
	res.Episodes = 2000
	want := map[string]string{
		"g:harmful<5%": "about 3,700 agents would likely decide it (at the observed 4.0%)",
		"harmful<2.5%": "about 3,800 agents would likely decide it (at the observed 2.0%)",
		"harmful<10%":  "", // READY: nothing to say
	}
	specs := slices.Sorted(maps.Keys(want))
	ts, err := report.ParseThresholds(res, specs)
	if err != nil {
		t.Fatal(err)
	}
	res.Thresholds = report.Evaluate(res, ts)
	for _, v := range res.Thresholds {
		if w := want[v.Threshold]; v.Note != w {
			t.Errorf("%s: %s, note %q; want %q", v.Threshold, v.Result, v.Note, w)
		}
	}
	for name, render := range map[string]func(io.Writer, *report.Results) error{
		"markdown": report.Markdown, "html": report.HTML, "junit": report.JUnit, "json": report.JSON,
		"terminal": func(w io.Writer, r *report.Results) error {
			return report.Terminal(w, r, report.TerminalOptions{Plain: true})
		},
	} {
		var b strings.Builder
		if err := render(&b, res); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !strings.Contains(b.String(), "3,700 agents would likely decide it") {
			t.Errorf("%s does not say how many agents would decide", name)
		}
	}
}

// A rate on its limit is never decided, whatever the run's size.
func TestInconclusiveOnTheLimit(t *testing.T) {
	res := oneGoal(50, 1000)
	ts, err := report.ParseThresholds(res, []string{"harmful<5%"})
	if err != nil {
		t.Fatal(err)
	}
	if v := report.Evaluate(res, ts)[0]; v.Result != report.Inconclusive || v.Note != "at the observed 5.0% no run size would decide it" {
		t.Errorf("5%% against 5%%: %s %q", v.Result, v.Note)
	}
}
