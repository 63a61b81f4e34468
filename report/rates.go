package report

import "github.com/herd-sh/herd/report/stats"

// Rates is the document's derived section: every rate the reports show, each
// with its 95% Wilson interval, and every paired comparison with the interval
// of its difference and McNemar's p — so that a reader of the JSON (jq, a
// dashboard, a script in another language) quotes the same numbers the
// reports print without doing statistics of its own.
//
// It is computed from counts and paired rows, never read: Normalize
// recomputes it, so a file whose rates disagree with its counts is
// corrected on decode rather than believed. It is left out of
// DeterministicJSON and so of the fingerprint: it adds no information to
// the counts it is derived from.
type Rates struct {
	Classes     []ClassRateRow    `json:"classes"`               // goal × class × variant, world class order
	Goals       []SeverityRateRow `json:"goals"`                 // goal × severity × variant
	Personas    []SeverityRateRow `json:"personas"`              // persona × severity × variant
	Overall     []SeverityRateRow `json:"overall"`               // severity × variant over every episode
	Comparisons []ComparisonRow   `json:"comparisons,omitempty"` // one per paired row
}

// ClassRateRow is the rate of one outcome class of one goal under one
// variant: k of n episodes, p = k/n, ci its 95% Wilson interval.
type ClassRateRow struct {
	Goal     string `json:"goal"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
	Variant  string `json:"variant"`
	stats.Rate
}

// SeverityRateRow is the rate of one severity in a group of episodes (a
// goal, a persona, or all: both empty) under one variant.
type SeverityRateRow struct {
	Goal     string `json:"goal,omitempty"`
	Persona  string `json:"persona,omitempty"`
	Severity string `json:"severity"`
	Variant  string `json:"variant"`
	stats.Rate
}

// ComparisonRow is one paired comparison: the same agents under A and B.
type ComparisonRow struct {
	Goal   string         `json:"goal"`
	Class  string         `json:"class"` // a class of the goal, or a severity name ("harmful")
	A      string         `json:"a"`
	B      string         `json:"b"`
	RateA  stats.Rate     `json:"rate_a"`
	RateB  stats.Rate     `json:"rate_b"`
	Diff   float64        `json:"diff"`              // rate_b.p − rate_a.p
	DiffCI stats.Interval `json:"diff_ci"`           // 95% interval of diff (paired)
	PValue float64        `json:"p_value"`           // McNemar's exact test
	TooFew bool           `json:"too_few,omitempty"` // fewer agents than a verdict needs
	// Change is what B did to A by the rule every renderer uses (p < 0.05
	// and a non-zero difference): "worse" (more of a harmful or failed
	// outcome, or less of an ok one), "better", or "same".
	Change string `json:"change"`
}

// severities in the order the reports lead with them.
var severities = []string{SeverityHarmful, SeverityFailed, SeverityOK}

// deriveRates computes the Rates section from the counts and paired rows.
func (r *Results) deriveRates() *Rates {
	if len(r.Counts) == 0 && len(r.Paired) == 0 {
		return nil // nothing finished: no rate to state
	}
	out := &Rates{}
	for _, cr := range r.ClassRates() {
		out.Classes = append(out.Classes, ClassRateRow{Goal: cr.Goal, Class: cr.Class, Severity: cr.Severity,
			Variant: cr.Variant, Rate: cr.Rate})
	}
	for _, sev := range severities {
		for _, g := range r.SeverityByGoal(sev) {
			out.Goals = append(out.Goals, SeverityRateRow{Goal: g.Group, Severity: sev, Variant: g.Variant, Rate: g.Rate})
		}
		for _, g := range r.SeverityByPersona(sev) {
			out.Personas = append(out.Personas, SeverityRateRow{Persona: g.Group, Severity: sev, Variant: g.Variant, Rate: g.Rate})
		}
		for _, g := range r.SeverityOverall(sev) {
			out.Overall = append(out.Overall, SeverityRateRow{Severity: sev, Variant: g.Variant, Rate: g.Rate})
		}
	}
	for _, c := range r.Comparisons() {
		out.Comparisons = append(out.Comparisons, ComparisonRow{
			Goal: c.Goal, Class: c.Class, A: c.A, B: c.B, RateA: c.RateA, RateB: c.RateB,
			Diff: c.Diff, DiffCI: c.CI, PValue: c.P, TooFew: stats.TooFew(c.Table.N()),
			Change: changeClass(c),
		})
	}
	return out
}
