package report

import (
	"slices"

	"github.com/herd-sh/herd/report/stats"
)

// The views below are what every renderer shows; they are computed from the
// document on each call (no cached state), in a single pass over the counts.

// ClassRate is the rate of one outcome class of one goal under one variant:
// K episodes of N ended in the class.
type ClassRate struct {
	Goal, Class, Severity, Variant string
	stats.Rate
}

// GroupRate is the rate of one severity in a group of episodes (a persona, a
// goal, or everything) under one variant.
type GroupRate struct {
	Group   string // persona or goal; "" for all episodes
	Variant string
	stats.Rate
}

// Comparison is one paired variant comparison: the same agents under A and
// B, for one goal and one outcome class (or severity).
type Comparison struct {
	Goal, Class, Severity string
	A, B                  string
	Aggregate             bool // Class is a severity: any outcome of that severity
	Table                 stats.PairedTable
	RateA, RateB          stats.Rate
	Diff                  float64        // RateB − RateA
	CI                    stats.Interval // 95% interval of Diff
	P                     float64        // McNemar's exact test
}

// Variants lists the variants in run order, then any the counts name that
// the run metadata does not (sorted), so no count goes unshown.
func (r *Results) Variants() []string {
	return withExtras(r.Run.Variants, func(add func(string)) {
		for _, c := range r.Counts {
			add(c.Variant)
		}
	})
}

// Goals lists the goals in run order, then any others the classes or counts
// name (sorted).
func (r *Results) Goals() []string {
	return withExtras(r.Run.Goals, func(add func(string)) {
		for _, c := range r.Classes {
			add(c.Goal)
		}
		for _, c := range r.Counts {
			add(c.Goal)
		}
	})
}

// Personas lists the personas in mix order, then any others the counts name
// (sorted).
func (r *Results) Personas() []string {
	var mix []string
	for _, m := range r.Run.Mix {
		if !slices.Contains(mix, m.Persona) {
			mix = append(mix, m.Persona)
		}
	}
	return withExtras(mix, func(add func(string)) {
		for _, c := range r.Counts {
			add(c.Persona)
		}
	})
}

// withExtras is a copy of declared followed, sorted, by the names each
// passes to add that declared lacks: the run's own order first, then
// whatever a document names without declaring it, so nothing goes unshown.
func withExtras(declared []string, each func(add func(string))) []string {
	out := slices.Clone(declared)
	var extra []string
	each(func(s string) {
		if !slices.Contains(out, s) && !slices.Contains(extra, s) {
			extra = append(extra, s)
		}
	})
	slices.Sort(extra)
	return append(out, extra...)
}

// classesByGoal lists each goal's outcome classes in world order, then any
// class the counts name that the world list lacks.
func (r *Results) classesByGoal() map[string][]ClassInfo {
	out := map[string][]ClassInfo{}
	seen := map[[2]string]bool{}
	add := func(ci ClassInfo) {
		if k := [2]string{ci.Goal, ci.Class}; !seen[k] {
			seen[k] = true
			out[ci.Goal] = append(out[ci.Goal], ci)
		}
	}
	for _, c := range r.Classes {
		add(c)
	}
	for _, c := range r.Counts {
		add(ClassInfo{Goal: c.Goal, Class: c.Class, Severity: c.Severity})
	}
	return out
}

type goalVariant struct{ goal, variant string }
type goalClassVariant struct{ goal, class, variant string }

// ClassRates is the rate of every goal × class × variant, zero classes
// included, in goal, world class and variant order.
func (r *Results) ClassRates() []ClassRate {
	episodes := map[goalVariant]int{}
	hits := map[goalClassVariant]int{}
	for _, c := range r.Counts {
		episodes[goalVariant{c.Goal, c.Variant}] += c.N
		hits[goalClassVariant{c.Goal, c.Class, c.Variant}] += c.N
	}
	variants := r.Variants()
	classes := r.classesByGoal()
	var out []ClassRate
	for _, g := range r.Goals() {
		for _, ci := range classes[g] {
			for _, v := range variants {
				out = append(out, ClassRate{Goal: g, Class: ci.Class, Severity: ci.Severity, Variant: v,
					Rate: stats.NewRate(hits[goalClassVariant{g, ci.Class, v}], episodes[goalVariant{g, v}])})
			}
		}
	}
	return out
}

// ClassRow is one outcome class of a goal with its rate under every
// variant, in Variants order: a row of the misuse map.
type ClassRow struct {
	Goal, Class, Severity string
	Rates                 []stats.Rate
}

// ClassRows is ClassRates laid out as every report shows them: one row per
// goal × class (in the same order), one rate per variant.
func (r *Results) ClassRows() []ClassRow {
	var out []ClassRow
	for _, cr := range r.ClassRates() {
		if n := len(out); n == 0 || out[n-1].Goal != cr.Goal || out[n-1].Class != cr.Class {
			out = append(out, ClassRow{Goal: cr.Goal, Class: cr.Class, Severity: cr.Severity})
		}
		row := &out[len(out)-1]
		row.Rates = append(row.Rates, cr.Rate)
	}
	return out
}

// GroupRow is one group's rate under every variant, in Variants order.
type GroupRow struct {
	Group string
	Rates []stats.Rate
}

// groupRows lays group rates (as the Severity* views return them, group by
// group) out one row per group, one rate per variant.
func groupRows(rates []GroupRate) []GroupRow {
	var out []GroupRow
	for i, g := range rates {
		if i == 0 || rates[i-1].Group != g.Group {
			out = append(out, GroupRow{Group: g.Group})
		}
		row := &out[len(out)-1]
		row.Rates = append(row.Rates, g.Rate)
	}
	return out
}

// severityBy tallies, per (key(count), variant), the episodes and those of
// severity sev.
func (r *Results) severityBy(sev string, key func(Count) string) (hits, episodes map[goalVariant]int) {
	hits, episodes = map[goalVariant]int{}, map[goalVariant]int{}
	for _, c := range r.Counts {
		k := goalVariant{key(c), c.Variant}
		episodes[k] += c.N
		if c.Severity == sev {
			hits[k] += c.N
		}
	}
	return hits, episodes
}

func (r *Results) groupRates(sev string, groups []string, key func(Count) string) []GroupRate {
	hits, episodes := r.severityBy(sev, key)
	variants := r.Variants()
	var out []GroupRate
	for _, g := range groups {
		for _, v := range variants {
			k := goalVariant{g, v}
			out = append(out, GroupRate{Group: g, Variant: v, Rate: stats.NewRate(hits[k], episodes[k])})
		}
	}
	return out
}

// SeverityByPersona is the rate of severity sev per persona × variant.
func (r *Results) SeverityByPersona(sev string) []GroupRate {
	return r.groupRates(sev, r.Personas(), func(c Count) string { return c.Persona })
}

// SeverityByGoal is the rate of severity sev per goal × variant.
func (r *Results) SeverityByGoal(sev string) []GroupRate {
	return r.groupRates(sev, r.Goals(), func(c Count) string { return c.Goal })
}

// SeverityOverall is the rate of severity sev over all episodes, per variant.
func (r *Results) SeverityOverall(sev string) []GroupRate {
	return r.groupRates(sev, []string{""}, func(Count) string { return "" })
}

// HarmfulByPersona, HarmfulByGoal and HarmfulOverall are the harmful rates
// the report leads with.
func (r *Results) HarmfulByPersona() []GroupRate { return r.SeverityByPersona(SeverityHarmful) }

// HarmfulByGoal is the harmful rate per goal × variant.
func (r *Results) HarmfulByGoal() []GroupRate { return r.SeverityByGoal(SeverityHarmful) }

// HarmfulOverall is the harmful rate over all episodes, per variant.
func (r *Results) HarmfulOverall() []GroupRate { return r.SeverityOverall(SeverityHarmful) }

// Label names the compared outcome as the reports do: the class, or "any
// harmful" when the row counts a whole severity.
func (c Comparison) Label() string {
	if c.Aggregate {
		return "any " + c.Class
	}
	return c.Class
}

// Comparisons turns the paired rows into variant comparisons, in goal order;
// within a goal the severity rows (harmful, failed, ok) first, then classes
// in world order; pairs in variant order.
func (r *Results) Comparisons() []Comparison {
	variants := r.Variants()
	goals := r.Goals()
	// Sort keys are computed once per row: the comparator must not scan.
	classPos := map[[2]string]int{}
	severity := map[[2]string]string{}
	for g, list := range r.classesByGoal() {
		for i, ci := range list {
			classPos[[2]string{g, ci.Class}] = i
			severity[[2]string{g, ci.Class}] = ci.Severity
		}
	}
	type keyed struct {
		c   Comparison
		key [4]int
	}
	rows := make([]keyed, 0, len(r.Paired))
	for _, p := range r.Paired {
		sev, known := severity[[2]string{p.Goal, p.Class}]
		aggregate := !known && checkSeverity(p.Class) == nil
		if aggregate {
			sev = p.Class
		}
		t := stats.PairedTable{Both: p.Both, OnlyA: p.OnlyA, OnlyB: p.OnlyB, Neither: p.Neither}
		diff, ci := stats.PairedDiff(t, 0.95)
		n := t.N()
		c := Comparison{
			Goal: p.Goal, Class: p.Class, Severity: sev, A: p.A, B: p.B, Aggregate: aggregate,
			Table: t,
			RateA: stats.NewRate(p.Both+p.OnlyA, n),
			RateB: stats.NewRate(p.Both+p.OnlyB, n),
			Diff:  diff, CI: ci,
			P: stats.McNemarExact(p.OnlyA, p.OnlyB),
		}
		classRank := 3 + len(r.Classes) + len(r.Counts) // unknown classes last
		if aggregate {
			classRank = slices.Index([]string{SeverityHarmful, SeverityFailed, SeverityOK}, p.Class)
		} else if known {
			classRank = 3 + classPos[[2]string{p.Goal, p.Class}]
		}
		rows = append(rows, keyed{c, [4]int{rank(goals, p.Goal), classRank, rank(variants, p.A), rank(variants, p.B)}})
	}
	slices.SortStableFunc(rows, func(a, b keyed) int {
		for i := range a.key {
			if d := a.key[i] - b.key[i]; d != 0 {
				return d
			}
		}
		return cmpStrings(a.c.Goal, b.c.Goal, a.c.Class, b.c.Class, a.c.A, b.c.A, a.c.B, b.c.B)
	})
	out := make([]Comparison, len(rows))
	for i, k := range rows {
		out[i] = k.c
	}
	return out
}

// rank is s's position in list, or len(list) when absent (sorts last).
func rank(list []string, s string) int {
	if i := slices.Index(list, s); i >= 0 {
		return i
	}
	return len(list)
}

// shownComparisons are the comparisons worth a row: every class some agent
// ended in under either variant, plus the harmful aggregate of goals with
// more than one harmful class.
func shownComparisons(res *Results) []Comparison {
	harmfulClasses := map[string]int{}
	for _, c := range res.Classes {
		if c.Severity == SeverityHarmful {
			harmfulClasses[c.Goal]++
		}
	}
	var out []Comparison
	for _, c := range res.Comparisons() {
		if c.Aggregate && (c.Class != SeverityHarmful || harmfulClasses[c.Goal] < 2) {
			continue
		}
		if c.Table.Both+c.Table.OnlyA+c.Table.OnlyB == 0 {
			continue // no agent ended there under either wording: nothing to compare
		}
		out = append(out, c)
	}
	return out
}

// pickTraces chooses up to limit traces to show: harmful ones first, then
// failed, then ok, spreading over goals and classes before repeating one.
func pickTraces(ts []Trace, limit int) []Trace {
	if limit <= 0 {
		return nil
	}
	var out []Trace
	for _, sev := range []string{SeverityHarmful, SeverityFailed, SeverityOK} {
		for round := 0; round < TracesPerClass && len(out) < limit; round++ {
			seen := map[[3]string]int{}
			for _, tr := range ts {
				if tr.Severity != sev {
					continue
				}
				k := [3]string{tr.Goal, tr.Variant, tr.Class}
				seen[k]++
				if seen[k]-1 == round && len(out) < limit {
					out = append(out, tr)
				}
			}
		}
	}
	return out
}
