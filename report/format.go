package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/herd-sh/herd/report/stats"
)

// The number formats below are shared by every renderer, so a rate reads the
// same in the terminal, the Markdown and the HTML.

// Pct formats a fraction as a percentage without the sign: one decimal from
// 1% up, two below (a 0.4% rate matters when the limit is 1%).
func Pct(x float64) string {
	v := x * 100
	switch {
	case v == 0:
		return "0"
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// RateText is "3.7% [2.5–5.4]": the rate and its 95% interval.
func RateText(r stats.Rate) string {
	if r.N == 0 {
		return "–"
	}
	return Pct(r.P) + "% [" + Pct(r.CI.Lo) + "–" + Pct(r.CI.Hi) + "]"
}

// signedPct formats a difference of fractions in percentage points.
func signedPct(x float64) string {
	s := Pct(x)
	if x > 0 {
		return "+" + s
	}
	if x < 0 {
		return "−" + strings.TrimPrefix(s, "-")
	}
	return s
}

// DiffText is "+16.4 pp [+13.7, +19.4]".
func DiffText(d float64, ci stats.Interval) string {
	return signedPct(d) + " pp [" + signedPct(ci.Lo) + ", " + signedPct(ci.Hi) + "]"
}

// PText formats a p-value: "<0.001" or three decimals.
func PText(p float64) string {
	if p < 0.001 {
		return "<0.001"
	}
	return strconv.FormatFloat(p, 'f', 3, 64)
}

// Millis formats a latency in milliseconds: "840 µs", "12.3 ms", "1.24 s".
func Millis(ms float64) string {
	n, unit := millisParts(ms)
	return n + " " + unit
}

func millisParts(ms float64) (string, string) {
	switch {
	case ms < 1:
		return strconv.FormatFloat(ms*1000, 'f', 0, 64), "µs"
	case ms < 100:
		return strconv.FormatFloat(ms, 'f', 1, 64), "ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64), "ms"
	}
	return strconv.FormatFloat(ms/1000, 'f', 2, 64), "s"
}

// MillisInterval is "28.9 ms [27.2–29.9]", repeating the unit only where
// the ends of the interval need another one.
func MillisInterval(ms float64, ci stats.Interval) string {
	n, unit := millisParts(ms)
	lo, loUnit := millisParts(ci.Lo)
	hi, hiUnit := millisParts(ci.Hi)
	if loUnit == unit && hiUnit == unit {
		return n + " " + unit + " [" + lo + "–" + hi + "]"
	}
	return n + " " + unit + " [" + lo + " " + loUnit + "–" + hi + " " + hiUnit + "]"
}

// VerdictValue formats a verdict's value and interval in its metric's unit.
func VerdictValue(v Verdict) string {
	if v.N == 0 {
		return "no data"
	}
	if isLatencyMetric(v.Metric) {
		return MillisInterval(v.Value, v.CI)
	}
	return RateText(stats.Rate{N: v.N, P: v.Value, CI: v.CI})
}

// LimitText formats a verdict's limit: "< 5%", "< 300 ms".
func LimitText(v Verdict) string {
	if isLatencyMetric(v.Metric) {
		return v.Op + " " + Millis(v.Limit)
	}
	return v.Op + " " + strconv.FormatFloat(math.Round(v.Limit*1e8)/1e6, 'f', -1, 64) + "%"
}

// Thousands formats a count with thin separators: 1,000,000.
func Thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// shortHash is the first 12 hex digits of a fingerprint or world hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// headline is the one-line summary of a run: world, seed, agents, episodes.
func headline(r *Results) string {
	s := fmt.Sprintf("%s v%d (%s) · seed %d · %s agents · %s episodes · variants %s · faults %s",
		r.Run.World.Name, r.Run.World.Version, r.Run.World.Source, r.Run.Seed,
		Thousands(int64(r.Run.Agents)), Thousands(int64(r.Episodes)),
		strings.Join(r.Variants(), ", "), orDash(r.Run.Faults))
	if r.Run.Shard != nil {
		s += fmt.Sprintf(" · shard %d of %d", r.Run.Shard.Index, r.Run.Shard.Count)
	}
	if r.Partial {
		s += " · PARTIAL (interrupted)"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}

// truncate cuts s to n runes, marking the cut with "…".
func truncate(s string, n int) string {
	if n <= 0 {
		return ""
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// recoveredText is "41 · 82.0% [69.0–90.2]": how many episodes recovered,
// and the recovery rate with its interval, like every other rate.
func recoveredText(f FaultTally) string {
	if f.Injected == 0 {
		return strconv.Itoa(f.Recovered)
	}
	return strconv.Itoa(f.Recovered) + " · " + RateText(stats.NewRate(f.Recovered, f.Injected))
}

// latencyCell is "28.9 ms [27.2–29.9]" when there is an interval.
func latencyCell(v float64, cis []stats.Interval, i int) string {
	if cis == nil {
		return Millis(v)
	}
	return MillisInterval(v, cis[i])
}

// tooFewText says that the run is too small to decide, naming the first
// variant with fewer than stats.MinEpisodes episodes; "" when none has.
func tooFewText(overall []GroupRate) string {
	for _, g := range overall {
		if stats.TooFew(g.N) {
			return fmt.Sprintf("Too few episodes to decide: %d under %s; a verdict needs at least %d.", g.N, g.Variant, stats.MinEpisodes)
		}
	}
	return ""
}

// traceSummary is a trace's one-line heading: who did what, and how it
// ended.
func traceSummary(tr Trace) string {
	return fmt.Sprintf("agent %d · %s · %s · %s → %s (%s)", tr.Agent, tr.Goal, tr.Persona, tr.Variant, tr.Class, tr.Severity)
}

// tracesNote says how many of the sampled traces a report shows, when it
// does not show them all.
func tracesNote(shown, sampled int) string {
	if shown >= sampled {
		return ""
	}
	return fmt.Sprintf("Showing %d of %d sampled traces, harmful first; the JSON results have them all.", shown, sampled)
}

// argsText is a compact, stable rendering of a step's arguments.
func argsText(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	keys := slices.Sorted(maps.Keys(args))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%v", k, args[k])
	}
	return truncate(strings.Join(parts, " "), 80)
}
