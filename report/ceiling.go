package report

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// Ceiling is what a ceiling search found (herd swarm --find-ceiling): the
// start rate was stepped up until the bound failed; Rate is the last rate
// that passed (0 when the first failed) and Steps the curve, in the order
// run. It lives in timing: it is a measurement, not reproducible.
type Ceiling struct {
	Bound string        `json:"bound"` // e.g. "p99<200ms,errors<1%"
	Rate  float64       `json:"rate"`  // agents started a second
	Steps []CeilingStep `json:"steps"`
}

// CeilingStep is one rate the search ran.
type CeilingStep struct {
	Rate      float64 `json:"rate"`       // intended starts a second
	Achieved  float64 `json:"achieved"`   // starts a second the run kept up
	Calls     int64   `json:"calls"`      // calls made
	P99MS     float64 `json:"p99_ms"`     // p99 latency of every call
	ErrorRate float64 `json:"error_rate"` // calls that failed in transport, protocol or time (tool errors are answers)
	Pass      bool    `json:"pass"`
}

// maxCeilingSteps bounds a search's curve.
const maxCeilingSteps = 64

func (c *Ceiling) validate() error {
	if c == nil {
		return nil
	}
	if len(c.Steps) > maxCeilingSteps {
		return fmt.Errorf("timing.ceiling.steps has %d entries, at most %d", len(c.Steps), maxCeilingSteps)
	}
	bad := func(x float64) bool { return math.IsNaN(x) || math.IsInf(x, 0) || x < 0 }
	if bad(c.Rate) {
		return fmt.Errorf("timing.ceiling.rate is %v", c.Rate)
	}
	for i, s := range c.Steps {
		if bad(s.Rate) || bad(s.Achieved) || bad(s.P99MS) || bad(s.ErrorRate) || s.ErrorRate > 1 || s.Calls < 0 || s.Calls > MaxCount {
			return fmt.Errorf("timing.ceiling.steps[%d] is out of range: %+v", i, s)
		}
	}
	return nil
}

// ceilingTable is the curve as a table, every renderer's minimal view.
func ceilingTable(res *Results) textTable {
	t := columns([]string{"Rate /s", "Achieved /s", "Calls", "p99 ms", "Errors", "Within bound"}, true, true, true, true, true, false)
	if res.Timing == nil || res.Timing.Ceiling == nil {
		return t
	}
	for _, s := range res.Timing.Ceiling.Steps {
		pass := "no"
		if s.Pass {
			pass = "yes"
		}
		t.add(0, strconv.FormatFloat(s.Rate, 'f', 1, 64), strconv.FormatFloat(s.Achieved, 'f', 1, 64), strconv.FormatInt(s.Calls, 10),
			strconv.FormatFloat(s.P99MS, 'f', 1, 64), Pct(s.ErrorRate)+"%", pass)
	}
	return t
}

// CeilingSVG draws the curve, p99 against the start rate, as an inline SVG
// polyline (every step a point, the passing ones filled), for the HTML
// report. "" without a ceiling search.
func (r *Results) CeilingSVG() string {
	if r.Timing == nil || r.Timing.Ceiling == nil || len(r.Timing.Ceiling.Steps) == 0 {
		return ""
	}
	steps := r.Timing.Ceiling.Steps
	const w, h, pad = 480.0, 180.0, 30.0
	maxR, maxP := 0.0, 0.0
	for _, s := range steps {
		maxR, maxP = math.Max(maxR, s.Rate), math.Max(maxP, s.P99MS)
	}
	if maxR == 0 {
		maxR = 1
	}
	if maxP == 0 {
		maxP = 1
	}
	x := func(rate float64) float64 { return pad + (w-2*pad)*rate/maxR }
	y := func(p float64) float64 { return h - pad - (h-2*pad)*p/maxP }
	// Points by rate, so the line reads left to right whatever order the
	// search ran them in.
	order := make([]int, len(steps))
	for i := range order {
		order[i] = i
	}
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && steps[order[j]].Rate < steps[order[j-1]].Rate; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	var pts, dots strings.Builder
	for _, i := range order {
		s := steps[i]
		fmt.Fprintf(&pts, "%.1f,%.1f ", x(s.Rate), y(s.P99MS))
		fill := "none"
		if s.Pass {
			fill = "currentColor"
		}
		fmt.Fprintf(&dots, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="currentColor"><title>%.1f/s: p99 %.1f ms, errors %s%%</title></circle>`,
			x(s.Rate), y(s.P99MS), fill, s.Rate, s.P99MS, Pct(s.ErrorRate))
	}
	return fmt.Sprintf(`<svg viewBox="0 0 %g %g" width="%g" height="%g" role="img" aria-label="p99 latency against start rate">`+
		`<line x1="%g" y1="%g" x2="%g" y2="%g" stroke="currentColor"/><line x1="%g" y1="%g" x2="%g" y2="%g" stroke="currentColor"/>`+
		`<text x="%g" y="%g" font-size="10">0</text><text x="%g" y="%g" font-size="10" text-anchor="end">%.0f/s</text>`+
		`<text x="2" y="%g" font-size="10">%.0f ms</text>`+
		`<polyline points="%s" fill="none" stroke="currentColor"/>%s</svg>`,
		w, h, w, h, pad, h-pad, w-pad, h-pad, pad, pad, pad, h-pad,
		pad, h-pad+12, w-pad, h-pad+12, maxR, pad, maxP, strings.TrimSpace(pts.String()), dots.String())
}

// ceilingHTML is the HTML report's ceiling section body: what was found,
// the curve and its table ("" without a ceiling search).
func ceilingHTML(res *Results) template.HTML {
	svg := res.CeilingSVG()
	if svg == "" {
		return ""
	}
	c := res.Timing.Ceiling
	var b strings.Builder
	fmt.Fprintf(&b, "<p>Bound <code>%s</code>: the last start rate within it is <strong>%.1f agents a second</strong>. Filled points passed.</p>\n",
		html.EscapeString(c.Bound), c.Rate)
	b.WriteString(svg)
	b.WriteString("\n<table><thead><tr>")
	t := ceilingTable(res)
	for _, h := range t.Header {
		fmt.Fprintf(&b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>")
	for _, row := range t.Rows {
		b.WriteString("<tr>")
		for _, cell := range row {
			fmt.Fprintf(&b, `<td class="num">%s</td>`, html.EscapeString(cell))
		}
		b.WriteString("</tr>")
	}
	b.WriteString("</tbody></table>")
	return template.HTML(b.String())
}
