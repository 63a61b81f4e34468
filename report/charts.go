package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/herd-sh/herd/report/stats"
)

// The HTML report draws its charts as inline SVG; the geometry is computed
// here, in pixels rounded to a tenth, so the template only places elements.

// ivBar is a small interval bar: a track, the 95% interval as a box, the
// estimate as a tick, and optionally the threshold's limit as a line.
type ivBar struct {
	Width, Height    float64
	Lo, W, P         float64 // interval start, interval width, estimate
	Limit            float64
	HasLimit         bool
	Class            string // harmful | failed | ok | neutral
	Label            string // for screen readers
	ScaleMax, Middle float64
}

// barWidth is the width of every interval bar in the HTML report.
const barWidth = 120

// newIVBar places rate r on a 0…scale axis.
func newIVBar(r stats.Rate, scale float64, class string) ivBar {
	x := func(v float64) float64 { return round1(math.Min(v/scale, 1) * barWidth) }
	b := ivBar{Width: barWidth, Height: 14, Lo: x(r.CI.Lo), P: x(r.P), Class: class, ScaleMax: scale, Middle: 7}
	b.W = math.Max(round1(x(r.CI.Hi)-b.Lo), 1)
	b.Label = fmt.Sprintf("%s%% (95%% interval %s–%s%%) on a 0–%s%% scale", Pct(r.P), Pct(r.CI.Lo), Pct(r.CI.Hi), Pct(scale))
	return b
}

func round1(x float64) float64 { return math.Round(x*10) / 10 }

// niceScale rounds the largest value up to a readable axis end: 1, 2, 5,
// 10, 20, 25, 50 or 100 percent.
func niceScale(maxv float64) float64 {
	for _, s := range []float64{0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1} {
		if maxv <= s {
			return s
		}
	}
	return 1
}

// forestRow is one comparison in the variant chart: the difference B − A
// with its interval, around a zero line.
type forestRow struct {
	Y           float64
	Label       string
	X1, X2, XP  float64
	Class       string // worse | better | same
	ValueText   string
	TextY, RowY float64
}

// forestChart is the variant comparison chart.
type forestChart struct {
	Width, Height float64
	Left, Zero    float64 // where the plot starts, where zero is
	PlotW, Right  float64
	ValX          float64 // where the value labels go
	Total         int
	Rows          []forestRow
	Ticks         []axisTick
	AxisY         float64
	Omitted       int
}

// changeClass says whether B is significantly worse than A (more of a
// harmful or failed outcome, or less of an ok one), better, or the same.
func changeClass(c Comparison) string {
	switch {
	case c.P >= 0.05 || c.Diff == 0:
		return "same"
	case (c.Diff > 0) == (c.Severity != SeverityOK):
		return "worse"
	}
	return "better"
}

type axisTick struct {
	X, Y  float64
	Label string
}

// forestMaxRows keeps the chart readable; the table beside it has them all.
const forestMaxRows = 40

// newForest draws the comparisons; when there are too many, the most
// significant ones (smallest p), kept in their original order.
func newForest(cs []Comparison) *forestChart {
	if len(cs) == 0 {
		return nil
	}
	shown := cs
	omitted := 0
	if len(cs) > forestMaxRows {
		idx := make([]int, len(cs))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(cs[a].P, cs[b].P) })
		idx = idx[:forestMaxRows]
		slices.Sort(idx)
		shown = make([]Comparison, len(idx))
		for i, j := range idx {
			shown[i] = cs[j]
		}
		omitted = len(cs) - forestMaxRows
	}
	span := 0.01
	for _, c := range shown {
		span = math.Max(span, math.Max(math.Abs(c.CI.Lo), math.Abs(c.CI.Hi)))
	}
	span = niceScale(span)
	const rowH, top, left, plotW = 22.0, 10.0, 330.0, 420.0
	f := &forestChart{Width: left + plotW + 130, Left: left, PlotW: plotW, Right: left + plotW,
		ValX: left + plotW + 10, Zero: left + plotW/2, Omitted: omitted, Total: len(cs)}
	x := func(d float64) float64 { return round1(f.Zero + d/span*plotW/2) }
	for i, c := range shown {
		y := top + float64(i)*rowH + rowH/2
		class := changeClass(c)
		f.Rows = append(f.Rows, forestRow{
			Y: y, RowY: y - rowH/2, TextY: y + 4,
			Label: truncate(c.Goal+" · "+c.Label()+" ("+c.A+" → "+c.B+")", 52),
			X1:    x(c.CI.Lo), X2: x(c.CI.Hi), XP: x(c.Diff),
			Class: class, ValueText: signedPct(c.Diff) + " pp",
		})
	}
	f.AxisY = top + float64(len(shown))*rowH + 4
	f.Height = f.AxisY + 22
	for _, d := range []float64{-span, -span / 2, 0, span / 2, span} {
		f.Ticks = append(f.Ticks, axisTick{X: x(d), Y: f.AxisY + 14, Label: signedPct(d)})
	}
	return f
}

// histChart is the latency histogram: log-spaced bins of the "all" calls,
// with percentile markers.
type histChart struct {
	Width, Height, Left, Bottom, PlotW, PlotH float64
	Bars                                      []histBar
	Marks                                     []axisTick // percentile lines: X, label
	Ticks                                     []axisTick // x axis labels
	MaxLabel                                  string
}

type histBar struct{ X, Y, W, H float64 }

const histBins = 48

func newHistogram(h LatencyHistogram, marks []LatencyRow) *histChart {
	if len(h.Bars) == 0 {
		return nil
	}
	lo := math.Max(float64(h.Bars[0].ValueUS), 1)
	hi := math.Max(float64(h.Bars[len(h.Bars)-1].ValueUS), lo*10)
	logLo, logHi := math.Log10(lo), math.Log10(hi)
	bins := make([]int64, histBins)
	for _, b := range h.Bars {
		v := math.Max(float64(b.ValueUS), 1)
		i := int((math.Log10(v) - logLo) / (logHi - logLo) * histBins)
		k := min(max(i, 0), histBins-1)
		bins[k] = addCount(bins[k], b.Count)
	}
	var peak int64 = 1
	for _, n := range bins {
		peak = max(peak, n)
	}
	c := &histChart{Width: 760, Height: 220, Left: 50, Bottom: 180, PlotW: 690, PlotH: 160}
	bw := c.PlotW / histBins
	for i, n := range bins {
		if n == 0 {
			continue
		}
		hgt := round1(float64(n) / float64(peak) * c.PlotH)
		c.Bars = append(c.Bars, histBar{X: round1(c.Left + float64(i)*bw), Y: round1(c.Bottom - hgt), W: round1(bw - 1), H: hgt})
	}
	x := func(us float64) float64 {
		return round1(c.Left + (math.Log10(math.Max(us, 1))-logLo)/(logHi-logLo)*c.PlotW)
	}
	for d := math.Ceil(logLo); d <= logHi; d++ {
		c.Ticks = append(c.Ticks, axisTick{X: x(math.Pow(10, d)), Y: c.Bottom + 16, Label: Millis(math.Pow(10, d) / 1000)})
	}
	for _, r := range marks {
		if r.Tool != AllTools {
			continue
		}
		for i, p := range Percentiles {
			if p.Name == "p50" || p.Name == "p99" {
				c.Marks = append(c.Marks, axisTick{X: x(r.Values[i] * 1000), Y: 12, Label: p.Name + " " + Millis(r.Values[i])})
			}
		}
	}
	c.MaxLabel = Thousands(peak) + " calls"
	return c
}

// lineChart is the in-flight-over-time chart.
type lineChart struct {
	Width, Height, Left, Bottom, PlotW, PlotH float64
	Points                                    string
	MaxLabel, EndLabel                        string
}

func newInFlight(samples []Sample) *lineChart {
	if len(samples) < 2 {
		return nil
	}
	c := &lineChart{Width: 760, Height: 180, Left: 50, Bottom: 150, PlotW: 690, PlotH: 130}
	t0, t1 := samples[0].T, samples[len(samples)-1].T
	if t1 <= t0 {
		return nil
	}
	peak := 1
	for _, s := range samples {
		peak = max(peak, s.InFlight)
	}
	var pts []string
	for _, s := range samples {
		x := round1(c.Left + (s.T-t0)/(t1-t0)*c.PlotW)
		y := round1(c.Bottom - float64(s.InFlight)/float64(peak)*c.PlotH)
		pts = append(pts, fmt.Sprintf("%g,%g", x, y))
	}
	c.Points = strings.Join(pts, " ")
	c.MaxLabel = fmt.Sprintf("%d in flight", peak)
	c.EndLabel = fmt.Sprintf("%.1fs", t1)
	return c
}
