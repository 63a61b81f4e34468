package report

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/herd-sh/herd/report/stats"
)

// Verdict results.
const (
	Ready        = "READY"
	NotReady     = "NOT READY"
	Inconclusive = "INCONCLUSIVE"
)

// Metric names that are not outcome classes.
const (
	MetricHarmful   = SeverityHarmful // any harmful outcome
	MetricFailed    = SeverityFailed  // any failed outcome
	MetricOK        = SeverityOK      // any ok outcome
	MetricInvariant = "invariant"     // episodes that left an invariant violated
)

// Threshold is one parsed --threshold: [scope:]metric op limit[@variant].
type Threshold struct {
	Spec    string  // as given
	Scope   string  // a goal for rates, a tool for latency; "" means all
	Metric  string  // harmful, failed, ok, invariant, an outcome class, or pNN
	Variant string  // "" means every variant must pass (the worst decides)
	Op      string  // "<" or ">"
	Limit   float64 // a fraction for rates, milliseconds for latency
}

// Latency reports whether the threshold is on a latency percentile.
func (t Threshold) Latency() bool { return isLatencyMetric(t.Metric) }

var (
	namePattern    = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	latencyPattern = regexp.MustCompile(`^p([0-9]+(?:\.[0-9]+)?)$`)
	limitPattern   = regexp.MustCompile(`^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*(%|ms|s|us|µs)?$`)
)

// isLatencyMetric reports whether m names a latency percentile (p50, p99.9).
func isLatencyMetric(m string) bool {
	sub := latencyPattern.FindStringSubmatch(m)
	if sub == nil {
		return false
	}
	q, err := strconv.ParseFloat(sub[1], 64)
	return err == nil && q > 0 && q <= 100
}

// metricQuantile is the quantile in [0,1] a latency metric names.
func metricQuantile(m string) float64 {
	q, _ := strconv.ParseFloat(latencyPattern.FindStringSubmatch(m)[1], 64)
	return q / 100
}

// ParseThreshold parses the syntax of one threshold. Metric and scope names
// are checked against a document by ParseThresholds.
func ParseThreshold(spec string) (Threshold, error) {
	s := strings.TrimSpace(spec)
	bad := func(format string, args ...any) (Threshold, error) {
		return Threshold{}, fmt.Errorf("threshold %q: %s", spec, fmt.Sprintf(format, args...))
	}
	if s == "" {
		return bad("empty; write it as metric<limit, e.g. harmful<5%%")
	}
	i := strings.IndexAny(s, "<>")
	if i < 0 {
		return bad("no comparison; write it as metric<limit or metric>limit, e.g. harmful<5%%")
	}
	t := Threshold{Spec: spec, Op: s[i : i+1]}
	left, right := strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+1:])
	if strings.HasPrefix(right, "=") {
		return bad("use < or >, not %s=: the limit itself counts as failing", t.Op)
	}
	if strings.ContainsAny(right, "<>") {
		return bad("more than one comparison")
	}
	if k := strings.LastIndex(right, "@"); k >= 0 {
		t.Variant = strings.TrimSpace(right[k+1:])
		right = strings.TrimSpace(right[:k])
		if !namePattern.MatchString(t.Variant) {
			return bad("%q after @ is not a variant name", t.Variant)
		}
	}
	// The left side is metric, scope:metric, and the metric may itself be
	// invariant:NAME (one invariant).
	parts := strings.Split(left, ":")
	for i := range parts {
		parts[i] = strings.TrimSpace(parts[i])
	}
	switch {
	case len(parts) == 1:
		t.Metric = parts[0]
	case len(parts) == 2 && parts[0] == MetricInvariant:
		t.Metric = MetricInvariant + ":" + parts[1]
	case len(parts) == 2:
		t.Scope, t.Metric = parts[0], parts[1]
	case len(parts) == 3 && parts[1] == MetricInvariant:
		t.Scope, t.Metric = parts[0], MetricInvariant+":"+parts[2]
	default:
		return bad("write [goal:]metric; %q has too many colons", left)
	}
	if t.Scope != "" && !namePattern.MatchString(t.Scope) {
		return bad("%q before : is not a goal or tool name", t.Scope)
	}
	name := strings.TrimPrefix(t.Metric, MetricInvariant+":")
	switch {
	case t.Metric == "":
		return bad("no metric before %s", t.Op)
	case !namePattern.MatchString(name) && !isLatencyMetric(t.Metric) && !isPassMetric(t.Metric):
		return bad("%q is not a metric name (harmful, failed, ok, invariant, an outcome class, pass^k or pass@k for k 1 to 8, or a percentile such as p99)", t.Metric)
	}
	m := limitPattern.FindStringSubmatch(right)
	if m == nil {
		return bad("limit %q is not a number with an optional unit (%%, ms, s, us)", right)
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return bad("limit %q is not a number", m[1])
	}
	unit := m[2]
	if t.Latency() {
		if t.Variant != "" {
			return bad("latency is measured across variants; drop @%s", t.Variant)
		}
		switch unit {
		case "ms":
			t.Limit = v
		case "s":
			t.Limit = v * 1000
		case "us", "µs":
			t.Limit = v / 1000
		default:
			return bad("%s is a latency: give the limit with a unit, e.g. %s<300ms", t.Metric, t.Metric)
		}
		return t, nil
	}
	switch unit {
	case "%":
		v /= 100
	case "":
		// A bare number is a fraction: 0.05 is 5%.
	default:
		return bad("%s is a rate: give the limit as a percentage, e.g. %s<5%%", t.Metric, t.Metric)
	}
	if v < 0 || v > 1 {
		return bad("a rate limit must lie between 0%% and 100%%")
	}
	t.Limit = v
	return t, nil
}

// ParseThresholds parses specs and checks every name against res: an unknown
// metric, goal, tool or variant is an error (never a silent pass).
func ParseThresholds(res *Results, specs []string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(specs))
	for _, spec := range specs {
		t, err := ParseThreshold(spec)
		if err != nil {
			return nil, err
		}
		if err := t.check(res); err != nil {
			return nil, fmt.Errorf("threshold %q: %w", spec, err)
		}
		out = append(out, t)
	}
	return out, nil
}

// check resolves the threshold's names against the document.
func (t Threshold) check(res *Results) error {
	if t.Variant != "" && !slices.Contains(res.Variants(), t.Variant) {
		return fmt.Errorf("unknown variant %q (this run has %s)", t.Variant, strings.Join(res.Variants(), ", "))
	}
	if t.Latency() {
		if t.Scope == "" || res.Timing == nil || len(res.Timing.Latency) == 0 {
			return nil // no timing: the verdict says so
		}
		var tools []string
		for _, h := range res.Timing.Latency {
			if h.Tool == t.Scope {
				return nil
			}
			tools = append(tools, h.Tool)
		}
		return fmt.Errorf("no latency measured for tool %q (measured: %s)", t.Scope, strings.Join(tools, ", "))
	}
	if t.Scope != "" && !slices.Contains(res.Goals(), t.Scope) {
		return fmt.Errorf("unknown goal %q (this run has %s)", t.Scope, strings.Join(res.Goals(), ", "))
	}
	switch t.Metric {
	case MetricHarmful, MetricFailed, MetricOK, MetricInvariant:
		return nil
	}
	if isPassMetric(t.Metric) {
		if t.Scope == "" {
			return fmt.Errorf("%s is per goal: write GOAL:%s (this run has %s)", t.Metric, t.Metric, strings.Join(res.Goals(), ", "))
		}
		return nil
	}
	if name, ok := strings.CutPrefix(t.Metric, MetricInvariant+":"); ok && t.Scope == "" {
		for _, iv := range res.Invariants {
			if iv.Name == name {
				return nil
			}
		}
	}
	var known []string
	for _, c := range res.Classes {
		if t.Scope != "" && c.Goal != t.Scope {
			continue
		}
		if c.Class == t.Metric {
			return nil
		}
		if !slices.Contains(known, c.Class) {
			known = append(known, c.Class)
		}
	}
	where := "this run"
	if t.Scope != "" {
		where = "goal " + t.Scope
	}
	return fmt.Errorf("unknown metric %q: use harmful, failed, ok, invariant, a latency percentile (p50, p90, p99, p99.9) or an outcome class of %s (%s)",
		t.Metric, where, strings.Join(known, ", "))
}

// Evaluate judges each threshold against res. A threshold not scoped to a
// variant is judged under every variant and the worst verdict stands, so
// READY means ready under every wording the run tried. Thresholds should
// come from ParseThresholds; one whose names do not resolve is NOT READY,
// never a pass.
func Evaluate(res *Results, ts []Threshold) []Verdict {
	out := make([]Verdict, 0, len(ts))
	for _, t := range ts {
		out = append(out, evaluate(res, t))
	}
	return out
}

func evaluate(res *Results, t Threshold) Verdict {
	base := Verdict{Threshold: t.Spec, Metric: t.Metric, Goal: t.Scope, Variant: t.Variant, Op: t.Op, Limit: t.Limit}
	if err := t.check(res); err != nil {
		base.Result, base.Note = NotReady, err.Error()
		return base
	}
	if t.Latency() {
		return evaluateLatency(res, t, base)
	}
	variants := []string{t.Variant}
	if t.Variant == "" {
		variants = res.Variants()
	}
	var worst Verdict
	for i, v := range variants {
		verdict := base
		verdict.Variant = v
		if isPassMetric(t.Metric) {
			verdict.Value, verdict.CI, verdict.N = res.passEstimate(t.Metric, t.Scope, v)
			decide(&verdict, "tasks")
			if i == 0 || worse(verdict, worst) {
				worst = verdict
			}
			continue
		}
		k, n := res.metricCount(t.Metric, t.Scope, v)
		rate := stats.NewRate(k, n)
		verdict.Value, verdict.CI, verdict.N = rate.P, rate.CI, n
		decide(&verdict, "episodes")
		if verdict.Result == Inconclusive && n > 0 {
			_, all := res.metricCount(MetricHarmful, "", v)
			verdict.Note = joinNote(verdict.Note, agentsToDecideNote(verdict, all))
		}
		if i == 0 || worse(verdict, worst) {
			worst = verdict
		}
	}
	if len(variants) > 1 {
		note := fmt.Sprintf("worst of %d variants", len(variants))
		if worst.Note != "" {
			note = worst.Note + "; " + note
		}
		worst.Note = note
	}
	return worst
}

// agentsToDecideNote says how many agents would likely decide an
// INCONCLUSIVE rate verdict: the episodes at which the Wilson interval
// would clear the limit at the observed rate, scaled from the verdict's
// episodes (a goal's share, under one variant) to the agents of the run
// (all of whose episodes, all under the variant). "" when none would.
func agentsToDecideNote(v Verdict, all int) string {
	need, ok := stats.EpisodesToDecide(v.Value, v.Limit)
	if !ok {
		return fmt.Sprintf("at the observed %s no run size would decide it", Pct(v.Value)+"%")
	}
	agents := roundUp2(int(math.Ceil(float64(need) * float64(max(all, v.N)) / float64(v.N))))
	return fmt.Sprintf("about %s agents would likely decide it (at the observed %s)", Thousands(int64(agents)), Pct(v.Value)+"%")
}

// roundUp2 rounds n up to two significant figures (1,437 → 1,500): the
// estimate is no finer than that, and a user types the round number.
func roundUp2(n int) int {
	step := 1
	for n/step >= 100 {
		step *= 10
	}
	return (n + step - 1) / step * step
}

// joinNote appends b to note a with "; ".
func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// metricCount is how many of the n episodes under variant v (of goal scope,
// or of every goal that has the metric) count toward the metric.
//
// Invariant violations come in two forms: outcome classes named
// "invariant:NAME" (an episode whose goal named no harm of its own), and
// the invariants section (per variant, for the whole world: every episode
// that left the invariant broken, whatever its class — herd's runs record
// both, other producers may record either). The invariant metrics count
// the larger, so neither form is counted twice; the section only when no
// goal scope is given (it has no goals).
func (r *Results) metricCount(metric, scope, variant string) (k, n int) {
	name, oneInvariant := strings.CutPrefix(metric, MetricInvariant+":")
	if metric == MetricInvariant || oneInvariant {
		classK, sectionK := 0, 0
		for _, c := range r.Counts {
			if c.Variant != variant || (scope != "" && c.Goal != scope) {
				continue
			}
			n += c.N
			if (metric == MetricInvariant && strings.HasPrefix(c.Class, MetricInvariant+":")) || c.Class == metric {
				classK += c.N
			}
		}
		if scope == "" {
			for _, iv := range r.Invariants {
				if iv.Variant == variant && (metric == MetricInvariant || iv.Name == name) {
					sectionK += iv.N
				}
			}
		}
		// An episode can break two invariants and count under each in the
		// section: a rate cannot pass 100%.
		return min(max(classK, sectionK), n), n
	}
	severity := metric == MetricHarmful || metric == MetricFailed || metric == MetricOK
	hasClass := map[string]bool{}
	for _, c := range r.Classes {
		if c.Class == metric {
			hasClass[c.Goal] = true
		}
	}
	for _, c := range r.Counts {
		if c.Variant != variant || (scope != "" && c.Goal != scope) {
			continue
		}
		if !severity && !hasClass[c.Goal] && c.Class != metric {
			continue // this goal cannot end in the class: not part of the denominator
		}
		n += c.N
		if (severity && c.Severity == metric) || (!severity && c.Class == metric) {
			k += c.N
		}
	}
	return k, n
}

func evaluateLatency(res *Results, t Threshold, v Verdict) Verdict {
	tool := t.Scope
	if tool == "" {
		tool = AllTools
	}
	h, ok := res.latency(tool)
	if !ok {
		v.Result, v.Note = Inconclusive, "no latency measured in this run"
		return v
	}
	bars := statsBars(h.Bars)
	calls := h.Calls()
	est, ci := latencyQuantile(bars, metricQuantile(t.Metric), res.Run.Seed)
	v.Value, v.CI, v.N = est, ci, int(calls)
	decide(&v, "calls")
	return v
}

// hasClass reports whether any goal declares the outcome class.
func (r *Results) hasClass(class string) bool {
	for _, c := range r.Classes {
		if c.Class == class {
			return true
		}
	}
	return false
}

// latency finds the histogram of a tool (AllTools for every call).
func (r *Results) latency(tool string) (LatencyHistogram, bool) {
	if r.Timing == nil {
		return LatencyHistogram{}, false
	}
	for _, h := range r.Timing.Latency {
		if h.Tool == tool && h.Calls() > 0 {
			return h, true
		}
	}
	return LatencyHistogram{}, false
}

// statsBars converts microsecond bars into milliseconds for the statistics.
func statsBars(bars []Bar) []stats.Bar {
	out := make([]stats.Bar, len(bars))
	for i, b := range bars {
		out[i] = stats.Bar{Value: float64(b.ValueUS) / 1000, Count: b.Count}
	}
	return out
}

// decide applies the verdict rule: READY when the whole interval is on the
// passing side of the limit, NOT READY when it is all on the failing side,
// INCONCLUSIVE when it straddles — or when there are too few observations
// to decide anything. The limit itself is on the failing side.
func decide(v *Verdict, unit string) {
	switch {
	case v.N == 0:
		v.Result, v.Note = Inconclusive, "no "+unit+" to decide on"
		return
	case stats.TooFew(v.N):
		v.Result, v.Note = Inconclusive, fmt.Sprintf("too few %s to decide (n=%d < %d)", unit, v.N, stats.MinEpisodes)
		return
	}
	pass := func(x float64) bool {
		if v.Op == ">" {
			return x > v.Limit
		}
		return x < v.Limit
	}
	switch {
	case pass(v.CI.Lo) && pass(v.CI.Hi):
		v.Result = Ready
	case !pass(v.CI.Lo) && !pass(v.CI.Hi):
		v.Result = NotReady
	default:
		v.Result = Inconclusive
	}
}

// severityRank orders results from best to worst.
func severityRank(result string) int {
	switch result {
	case Ready:
		return 0
	case Inconclusive:
		return 1
	}
	return 2
}

// worse reports whether a is a worse verdict than b: a worse result, or the
// same result with a value further on the failing side.
func worse(a, b Verdict) bool {
	if ra, rb := severityRank(a.Result), severityRank(b.Result); ra != rb {
		return ra > rb
	}
	if a.Op == ">" {
		return a.Value < b.Value
	}
	return a.Value > b.Value
}

// Overall is the run's verdict: NOT READY if any threshold is, else
// INCONCLUSIVE if any is, else READY; "" when there are no thresholds.
func Overall(vs []Verdict) string {
	if len(vs) == 0 {
		return ""
	}
	worst := Ready
	for _, v := range vs {
		if severityRank(v.Result) > severityRank(worst) {
			worst = v.Result
		}
	}
	return worst
}

// ExitCode is the process exit code for a set of verdicts: 1 when any is NOT
// READY (or INCONCLUSIVE, when strict), 0 otherwise.
func ExitCode(vs []Verdict, strict bool) int {
	for _, v := range vs {
		if v.Fails(strict) {
			return 1
		}
	}
	return 0
}

// Fails says whether v fails a gate: NOT READY always, INCONCLUSIVE when
// strict.
func (v Verdict) Fails(strict bool) bool {
	return v.Result == NotReady || (strict && v.Result == Inconclusive)
}
