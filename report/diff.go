package report

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"github.com/herd-sh/herd/report/stats"
)

// DiffOptions tune what counts as a regression.
type DiffOptions struct {
	// MinEffect is the smallest change that matters, as a fraction; 0 means
	// any significant change counts. DefaultDiffOptions has 0.02 (2 points).
	MinEffect float64
	Alpha     float64 // significance level after Holm's correction (0: 0.05)
	// AllowMismatch compares runs of different worlds or goals, which Diff
	// refuses otherwise (a MismatchError): their rates measure different
	// things, and "no regression" between them says nothing.
	AllowMismatch bool
}

// MismatchError says that two runs are not of the same world or goals.
type MismatchError struct {
	What       string // "worlds" or "goals"
	Base, Head string
}

func (e *MismatchError) Error() string {
	return fmt.Sprintf("the runs are of different %s (%s vs %s): their rates measure different things", e.What, e.Base, e.Head)
}

// Comparable returns a *MismatchError when base and head ran different
// worlds (by name: a new version of the same world is what a diff is for)
// or different sets of goals, nil otherwise.
func Comparable(base, head *Results) error {
	if b, h := base.Run.World.Name, head.Run.World.Name; b != h {
		return &MismatchError{What: "worlds", Base: b, Head: h}
	}
	bg, hg := slices.Sorted(slices.Values(base.Run.Goals)), slices.Sorted(slices.Values(head.Run.Goals))
	if !slices.Equal(bg, hg) {
		return &MismatchError{What: "goals", Base: strings.Join(bg, ", "), Head: strings.Join(hg, ", ")}
	}
	return nil
}

// DefaultDiffOptions are herd diff's defaults: a regression is significant
// at 0.05 after Holm's correction and at least 2 points.
func DefaultDiffOptions() DiffOptions { return DiffOptions{MinEffect: 0.02, Alpha: 0.05} }

// DiffReport says which rates got worse from BASE to HEAD.
type DiffReport struct {
	Base      DiffSide  `json:"base"`
	Head      DiffSide  `json:"head"`
	Paired    bool      `json:"paired"` // same seed, agents and mix: the same agents ran in both
	Test      string    `json:"test"`   // how the rows were tested, in words
	MinEffect float64   `json:"min_effect"`
	Alpha     float64   `json:"alpha"`
	Rows      []DiffRow `json:"rows"`
	// Regressions counts rows that got significantly worse by at least
	// MinEffect; herd diff exits 1 when it is not zero.
	Regressions int `json:"regressions"`
}

// DiffSide identifies one of the two runs.
type DiffSide struct {
	World       string `json:"world"`
	Seed        uint64 `json:"seed"`
	Agents      int    `json:"agents"`
	Episodes    int    `json:"episodes"`
	Fingerprint string `json:"fingerprint"`
}

// DiffRow compares one rate between the runs.
type DiffRow struct {
	Metric      string         `json:"metric"`            // harmful, or an outcome class
	Severity    string         `json:"severity"`          // what "worse" means: up for harmful/failed, down for ok
	Goal        string         `json:"goal,omitempty"`    // "" for every goal
	Persona     string         `json:"persona,omitempty"` // "" for every persona
	BaseVariant string         `json:"base_variant"`
	HeadVariant string         `json:"head_variant"`
	Base        stats.Rate     `json:"base_rate"`
	Head        stats.Rate     `json:"head_rate"`
	Diff        float64        `json:"diff"` // head − base
	CI          stats.Interval `json:"ci"`
	P           float64        `json:"p"`          // the test's own p-value
	PAdjusted   float64        `json:"p_adjusted"` // after Holm's correction over every row
	Paired      bool           `json:"paired"`
	Worse       bool           `json:"worse"`
	Regression  bool           `json:"regression"`
}

// Label names the row: "hide_contact destroyed_data", "harmful (novice)".
func (r DiffRow) Label() string {
	parts := []string{}
	if r.Goal != "" {
		parts = append(parts, r.Goal)
	}
	parts = append(parts, r.Metric)
	s := strings.Join(parts, " ")
	if r.Persona != "" {
		s += " (" + r.Persona + ")"
	}
	return s
}

// Wording is "clear" or "clear → ambiguous".
func (r DiffRow) Wording() string {
	if r.BaseVariant == r.HeadVariant {
		return r.BaseVariant
	}
	return r.BaseVariant + " → " + r.HeadVariant
}

// Diff compares the rates of two runs: the harmful rate overall, per goal
// and per persona, and every outcome class of every goal both runs share.
//
// When both runs used the same seed, agents and mix, agent i did the same
// thing with the same dice in both, so the comparison is paired (McNemar's
// exact test). The documents hold counts, not which agent ended where, so
// the test takes the pairing least favourable to a finding — as many agents
// changing outcome as the counts allow — which makes its p-value an upper
// bound of the exact paired one. Otherwise the runs are independent samples
// (stats.TwoSampleDiff). P-values are corrected for the number of rows with
// Holm's method, so that a reseeded identical run does not "regress" by
// chance somewhere among dozens of rates.
func Diff(base, head *Results, opts DiffOptions) (*DiffReport, error) {
	if opts.Alpha == 0 {
		opts.Alpha = 0.05
	}
	if opts.MinEffect < 0 || opts.MinEffect > 1 || opts.Alpha <= 0 || opts.Alpha >= 1 {
		return nil, fmt.Errorf("diff: min effect %v must be in [0,1] and alpha %v in (0,1)", opts.MinEffect, opts.Alpha)
	}
	if err := Comparable(base, head); err != nil && !opts.AllowMismatch {
		return nil, err
	}
	pairs, err := variantPairs(base, head)
	if err != nil {
		return nil, err
	}
	d := &DiffReport{
		Base: side(base), Head: side(head),
		Paired: base.Run.Seed == head.Run.Seed && base.Run.Agents == head.Run.Agents &&
			reflect.DeepEqual(base.Run.Mix, head.Run.Mix),
		MinEffect: opts.MinEffect, Alpha: opts.Alpha,
	}
	if d.Paired {
		d.Test = "paired: same seed, agents and mix (McNemar's exact test, discordance bounded from the counts; Holm-corrected)"
	} else {
		d.Test = "independent samples: seed, agents or mix differ (two-sample test; Holm-corrected)"
	}
	for _, p := range pairs {
		d.Rows = append(d.Rows, diffRows(base, head, p[0], p[1], d.Paired)...)
	}
	holm(d.Rows)
	for i := range d.Rows {
		r := &d.Rows[i]
		r.Regression = r.Worse && r.PAdjusted < opts.Alpha && math.Abs(r.Diff) >= opts.MinEffect
		if r.Regression {
			d.Regressions++
		}
	}
	return d, nil
}

func side(r *Results) DiffSide {
	return DiffSide{World: fmt.Sprintf("%s v%d", r.Run.World.Name, r.Run.World.Version), Seed: r.Run.Seed,
		Agents: r.Run.Agents, Episodes: r.Episodes, Fingerprint: r.Fingerprint()}
}

// variantPairs matches variants by name; two single-variant runs are
// compared whatever their variants are called (that is how one compares a
// wording with another).
func variantPairs(base, head *Results) ([][2]string, error) {
	bv, hv := base.Variants(), head.Variants()
	var out [][2]string
	for _, v := range bv {
		if slices.Contains(hv, v) {
			out = append(out, [2]string{v, v})
		}
	}
	if len(out) == 0 && len(bv) == 1 && len(hv) == 1 {
		out = append(out, [2]string{bv[0], hv[0]})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("nothing to compare: base has variants %s, head has %s, and none is in both",
			strings.Join(bv, ", "), strings.Join(hv, ", "))
	}
	return out, nil
}

func diffRows(base, head *Results, bv, hv string, paired bool) []DiffRow {
	var rows []DiffRow
	add := func(metric, severity, goal, persona string, b, h stats.Rate) {
		if b.N == 0 || h.N == 0 {
			return
		}
		r := DiffRow{Metric: metric, Severity: severity, Goal: goal, Persona: persona,
			BaseVariant: bv, HeadVariant: hv, Base: b, Head: h}
		r.Paired = paired && b.N == h.N
		if r.Paired {
			r.Diff, r.CI, r.P = pairedBound(b.K, h.K, b.N)
		} else {
			r.Diff, r.CI, r.P = stats.TwoSampleDiff(b.K, b.N, h.K, h.N, 0.95)
		}
		r.Worse = (r.Diff > 0) == (severity != SeverityOK) && r.Diff != 0
		rows = append(rows, r)
	}
	pick := func(rates []GroupRate, group, variant string) stats.Rate {
		for _, g := range rates {
			if g.Group == group && g.Variant == variant {
				return g.Rate
			}
		}
		return stats.Rate{}
	}
	bo, ho := base.HarmfulOverall(), head.HarmfulOverall()
	add(MetricHarmful, SeverityHarmful, "", "", pick(bo, "", bv), pick(ho, "", hv))
	bg, hg := base.HarmfulByGoal(), head.HarmfulByGoal()
	bc, hc := classRateIndex(base.ClassRates()), classRateIndex(head.ClassRates())
	baseClasses, headClasses, headGoals := base.classesByGoal(), head.classesByGoal(), head.Goals()
	for _, goal := range base.Goals() {
		if !slices.Contains(headGoals, goal) {
			continue
		}
		add(MetricHarmful, SeverityHarmful, goal, "", pick(bg, goal, bv), pick(hg, goal, hv))
		for _, ci := range baseClasses[goal] {
			if !slices.ContainsFunc(headClasses[goal], func(h ClassInfo) bool { return h.Class == ci.Class }) {
				continue
			}
			add(ci.Class, ci.Severity, goal, "", bc[goalClassVariant{goal, ci.Class, bv}], hc[goalClassVariant{goal, ci.Class, hv}])
		}
	}
	bp, hp, headPersonas := base.HarmfulByPersona(), head.HarmfulByPersona(), head.Personas()
	for _, persona := range base.Personas() {
		if slices.Contains(headPersonas, persona) {
			add(MetricHarmful, SeverityHarmful, "", persona, pick(bp, persona, bv), pick(hp, persona, hv))
		}
	}
	return rows
}

func classRateIndex(rates []ClassRate) map[goalClassVariant]stats.Rate {
	m := make(map[goalClassVariant]stats.Rate, len(rates))
	for _, r := range rates {
		m[goalClassVariant{r.Goal, r.Class, r.Variant}] = r.Rate
	}
	return m
}

// pairedBound tests a paired change from k1 to k2 of n agents when only the
// margins are known. Of every joint table with those margins, it takes the
// one with the most discordant agents: for a fixed difference, McNemar's
// p-value only grows with the number of discordant pairs, so this p bounds
// the true one from above, and the paired interval is the widest.
func pairedBound(k1, k2, n int) (float64, stats.Interval, float64) {
	d := k2 - k1
	m := min(k1+k2, 2*n-k1-k2) // most agents that can differ between the runs
	onlyBase, onlyHead := (m-d)/2, (m+d)/2
	t := stats.PairedTable{Both: k1 - onlyBase, OnlyA: onlyBase, OnlyB: onlyHead}
	t.Neither = n - t.Both - t.OnlyA - t.OnlyB
	diff, ci := stats.PairedDiff(t, 0.95)
	return diff, ci, stats.McNemarExact(onlyBase, onlyHead)
}

// holm sets PAdjusted with Holm's step-down correction.
func holm(rows []DiffRow) {
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(rows[a].P, rows[b].P) })
	m := len(rows)
	running := 0.0
	for rank, i := range idx {
		adj := min(1, float64(m-rank)*rows[i].P)
		running = max(running, adj) // adjusted p-values never decrease down the list
		rows[i].PAdjusted = running
	}
}
