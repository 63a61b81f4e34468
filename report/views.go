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
	out := slices.Clone(r.Run.Variants)
	var extra []string
	for _, c := range r.Counts {
		if !slices.Contains(out, c.Variant) && !slices.Contains(extra, c.Variant) {
			extra = append(extra, c.Variant)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// Goals lists the goals in run order, then any others the classes or counts
// name (sorted).
func (r *Results) Goals() []string {
	out := slices.Clone(r.Run.Goals)
	var extra []string
	add := func(g string) {
		if !slices.Contains(out, g) && !slices.Contains(extra, g) {
			extra = append(extra, g)
		}
	}
	for _, c := range r.Classes {
		add(c.Goal)
	}
	for _, c := range r.Counts {
		add(c.Goal)
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// Personas lists the personas in mix order, then any others the counts name.
func (r *Results) Personas() []string {
	var out []string
	for _, m := range r.Run.Mix {
		if !slices.Contains(out, m.Persona) {
			out = append(out, m.Persona)
		}
	}
	var extra []string
	for _, c := range r.Counts {
		if !slices.Contains(out, c.Persona) && !slices.Contains(extra, c.Persona) {
			extra = append(extra, c.Persona)
		}
	}
	slices.Sort(extra)
	return append(out, extra...)
}

// GoalClasses lists a goal's outcome classes in world order, then any class
// the counts name that the world list lacks.
func (r *Results) GoalClasses(goal string) []ClassInfo {
	return r.classesByGoal()[goal]
}

// classesByGoal is GoalClasses for every goal, in one pass.
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
	var out []GroupRate
	for _, g := range groups {
		for _, v := range r.Variants() {
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

// episodesOf is the number of episodes under variant v ("" = all).
func (r *Results) episodesOf(variant string) int {
	n := 0
	for _, c := range r.Counts {
		if variant == "" || c.Variant == variant {
			n += c.N
		}
	}
	return n
}
