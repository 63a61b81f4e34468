package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/herd-sh/herd/report/stats"
)

// textTable is one report table as text cells. Each table is built once,
// here, from the views; the terminal draws it with tablewriter (header
// upper-cased), the Markdown summary with pipes, and the HTML its per-tool
// tables (latency, calls). So a number reads the same in every format.
type textTable struct {
	Header []string
	Right  []bool // right-aligned (numeric) columns
	Rows   [][]string
	Note   string // what a cut left out (Markdown)

	// rank orders rows by how much they matter when the table must be cut
	// (lower first); nil keeps the first rows.
	rank []float64
	what string // "outcome rows", for the cut note
	more string // where the rest is, for the cut note
}

// columns starts a table: its header, and whether each of the first columns
// is right-aligned (the rest are not).
func columns(header []string, right ...bool) textTable {
	return textTable{Header: header, Right: append(right, make([]bool, len(header)-len(right))...)}
}

// add appends a row with its cut rank.
func (t *textTable) add(rank float64, cells ...string) {
	t.Rows = append(t.Rows, cells)
	t.rank = append(t.rank, rank)
}

// variantColumns appends one right-aligned column per variant.
func (t *textTable) variantColumns(variants []string) {
	for _, v := range variants {
		t.Header = append(t.Header, v)
		t.Right = append(t.Right, true)
	}
}

func verdictTable(res *Results) textTable {
	t := columns([]string{"Result", "Threshold", "Value [95% CI]", "Limit", "Variant", "Note"}, false, false, true, true)
	t.what = "thresholds"
	for i, v := range res.Thresholds {
		t.add(float64(i), v.Result, v.Threshold, VerdictValue(v), LimitText(v), orDash(v.Variant), v.Note)
	}
	return t
}

// misuseTable is the misuse map: every goal × outcome class, its rate under
// each variant. Without zeros, the rows no episode ended in under any
// variant are left out (a third of an external server's map is "0% [0–14.3]"
// otherwise), and the note says how many.
func misuseTable(res *Results, zeros bool) textTable {
	t := columns([]string{"Goal", "Outcome", "Severity"})
	t.what = "outcome rows (the harmful ones with the highest rates are kept)"
	t.variantColumns(res.Variants())
	hidden := 0
	for _, row := range res.ClassRows() {
		cells := []string{row.Goal, row.Class, row.Severity}
		worst := 0.0
		seen := false
		for _, r := range row.Rates {
			cells = append(cells, RateText(r))
			worst = max(worst, r.P)
			seen = seen || r.K > 0
		}
		if !seen && !zeros {
			hidden++
			continue
		}
		t.add(severityOrder(row.Severity)-worst, cells...)
	}
	if hidden > 0 {
		t.Note = fmt.Sprintf("%d outcome rows no episode ended in under any variant are not shown.", hidden)
		if hidden == 1 {
			t.Note = "1 outcome row no episode ended in under any variant is not shown."
		}
	}
	return t
}

// invariantTable is every world invariant that episodes left broken, per
// variant, with how those episodes are counted in the misuse map: as
// invariant:NAME, or under a harmful class of the goal's own (an episode
// has one class; a harm its goal names is reported as itself). The misuse
// map alone would show a double refund as double_refund and its
// invariant:refunds_within_total row at 0%: this is where it is seen
// breaking the invariant too.
func invariantTable(res *Results) textTable {
	t := columns([]string{"Invariant", "Variant", "Broken [95% CI]", "Episodes", "As invariant:NAME", "Under the goal's class"},
		false, false, true, true, true, true)
	t.what = "invariants"
	for _, iv := range res.Invariants {
		_, n := res.metricCount(MetricHarmful, "", iv.Variant)
		asClass := 0
		for _, c := range res.Counts {
			if c.Variant == iv.Variant && c.Class == MetricInvariant+":"+iv.Name {
				asClass += c.N
			}
		}
		rate := stats.NewRate(iv.N, n)
		t.add(-rate.P, iv.Name, iv.Variant, RateText(rate), Thousands(int64(iv.N)),
			Thousands(int64(min(asClass, iv.N))), Thousands(int64(max(iv.N-asClass, 0))))
	}
	return t
}

// severityOrder ranks harmful rows before failed before ok when cutting.
func severityOrder(sev string) float64 {
	switch sev {
	case SeverityHarmful:
		return 0
	case SeverityFailed:
		return 10
	}
	return 20
}

func comparisonTable(cs []Comparison) textTable {
	t := columns([]string{"Goal", "Outcome", "Wording", "A", "B", "B − A [95% CI]", "p"}, false, false, false, true, true, true, true)
	t.what = "comparisons (the most significant are kept)"
	for _, c := range cs {
		t.add(c.P-math.Abs(c.Diff)*1e-9, c.Goal, c.Label(), c.A+" → "+c.B, RateText(c.RateA), RateText(c.RateB), DiffText(c.Diff, c.CI), PText(c.P))
	}
	return t
}

func personaTable(res *Results) textTable {
	t := columns([]string{"Persona"})
	t.what = "personas (the most harmful are kept)"
	t.variantColumns(res.Variants())
	for _, row := range groupRows(res.HarmfulByPersona()) {
		cells := []string{row.Group}
		worst := 0.0
		for _, r := range row.Rates {
			cells = append(cells, RateText(r))
			worst = max(worst, r.P)
		}
		t.add(-worst, cells...)
	}
	return t
}

func faultTable(res *Results) textTable {
	t := columns([]string{"Variant", "Tool", "Fault", "Injected", "Recovered", "Duplicated"}, false, false, false, true, true, true)
	t.what = "fault rows (the most duplicated, then most injected, are kept)"
	for _, f := range res.Faults {
		t.add(-float64(f.Duplicated)*1e9-float64(f.Injected),
			f.Variant, f.Tool, f.Kind, strconv.Itoa(f.Injected), recoveredText(f), strconv.Itoa(f.Duplicated))
	}
	return t
}

func confusionTable(res *Results) textTable {
	t := columns([]string{"Goal", "Variant", "Meant", "Called", "Episodes"}, false, false, false, false, true)
	t.what = "confusions (the most frequent are kept)"
	// Most frequent first: the first row is the confusion that matters.
	cs := slices.Clone(res.Confusions)
	slices.SortStableFunc(cs, func(a, b Confusion) int { return cmp.Compare(b.N, a.N) })
	for _, c := range cs {
		t.add(-float64(c.N), c.Goal, c.Variant, c.Meant, c.Called, strconv.Itoa(c.N))
	}
	return t
}

// lintTable lists the lint findings, errors first when cut; the suggested
// fix is a column of its own where there is room for it.
func lintTable(res *Results, withFix bool) textTable {
	header := []string{"Level", "Tool", "Variant", "Dimension", "Finding"}
	if withFix {
		header = append(header, "Fix")
	}
	t := columns(header)
	t.what = "lint findings (errors first)"
	for _, l := range res.Lint {
		cells := []string{l.Level, l.Tool, l.Variant, l.Dimension, l.Message}
		if withFix {
			cells = append(cells, l.Fix)
		}
		t.add(lintLevelOrder(l.Level), cells...)
	}
	return t
}

// lintLevelOrder ranks errors before warnings before the rest when cutting.
func lintLevelOrder(level string) float64 {
	switch level {
	case "warning":
		return 1
	case "info":
		return 2
	}
	return 0
}

// latencyTable is the percentiles of rows (LatencyRows, computed once by the
// caller: its bootstrap is the costly part of a report).
func latencyTable(rows []LatencyRow) textTable {
	t := columns([]string{"Tool", "Calls"}, false, true)
	t.what = "tools (the busiest are kept)"
	for _, p := range Percentiles {
		t.Header = append(t.Header, p.Name)
		t.Right = append(t.Right, true)
	}
	for _, r := range rows {
		cells := []string{r.Tool, Thousands(r.Calls)}
		for i, v := range r.Values {
			cells = append(cells, latencyCell(v, r.CIs, i))
		}
		t.add(-float64(r.Calls), cells...)
	}
	return t
}

func callsTable(res *Results) textTable {
	t := columns([]string{"Tool", "Calls", "ok", "Tool errors", "No answer"}, false, true, true)
	t.what = "tools (the busiest are kept)"
	for _, r := range res.CallRows() {
		t.add(-float64(r.Calls), r.Tool, Thousands(r.Calls), Thousands(r.OK), orDash(r.Errors), orDash(r.Failed))
	}
	return t
}
