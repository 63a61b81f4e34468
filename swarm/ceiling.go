package swarm

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// A ceiling search (as mcp-stress's find-ceiling) steps the start rate up
// until a bound on latency or errors fails, and reports the last rate that
// held and the curve. Each step is a paced run of its own over the same
// target: a constant rate for a fixed time, its agents counted from it.

// CeilingBound is what every step must hold: the p99 of every call below
// P99 and the share of calls that failed in transport, protocol or time
// (tool errors are answers, not failures) below Errors. A step must also
// keep up: start at least keepUp of the rate it was asked for, or the
// target (or this machine) was the limit and the latency says little.
type CeilingBound struct {
	P99    time.Duration
	Errors float64
	Spec   string
}

// keepUp is the share of the intended start rate a step must reach.
const keepUp = 0.9

// ParseCeilingBound reads a bound such as "p99<200ms,errors<1%" (errors
// name the field Ceiling.Bound). Either part may be left out.
func ParseCeilingBound(s string) (CeilingBound, error) {
	b := CeilingBound{Spec: strings.TrimSpace(s)}
	if b.Spec == "" {
		return b, fieldErr("Ceiling.Bound", "empty: write e.g. p99<200ms,errors<1%%")
	}
	for _, part := range strings.Split(b.Spec, ",") {
		name, limit, ok := strings.Cut(strings.TrimSpace(part), "<")
		name, limit = strings.TrimSpace(name), strings.TrimSpace(limit)
		switch {
		case !ok:
			return b, fieldErr("Ceiling.Bound", "%q: want NAME<LIMIT, e.g. p99<200ms or errors<1%%", part)
		case name == "p99":
			d, err := time.ParseDuration(limit)
			if err != nil || d <= 0 || d > time.Hour {
				return b, fieldErr("Ceiling.Bound", "%q: want a duration above 0 such as 200ms", limit)
			}
			b.P99 = d
		case name == "errors":
			v, err := strconv.ParseFloat(strings.TrimSuffix(limit, "%"), 64)
			if err != nil || !strings.HasSuffix(limit, "%") || v <= 0 || v > 100 {
				return b, fieldErr("Ceiling.Bound", "%q: want a percentage above 0 such as 1%%", limit)
			}
			b.Errors = v / 100
		default:
			return b, fieldErr("Ceiling.Bound", "%q: the bound names p99 and errors", name)
		}
	}
	return b, nil
}

// CeilingSearch is how the rate is stepped: from From, multiplied by
// Factor while steps pass, then Refine bisections (geometric) between the
// last rate that passed and the first that failed. Each step runs Step
// long.
type CeilingSearch struct {
	From   float64
	Factor float64
	Refine int
	Step   time.Duration
	Max    float64 // highest rate tried (0: MaxRate)
	// Confirm runs a step that failed once more, and the rate fails only
	// when both did: one slow moment on a shared machine (a collector, a
	// neighbour's build) must not end the search below the ceiling.
	Confirm bool
}

// Defaults of a ceiling search.
const (
	DefaultCeilingFrom   = 10
	DefaultCeilingFactor = 2
	DefaultCeilingRefine = 3
	DefaultCeilingStep   = 5 * time.Second
)

func (s *CeilingSearch) defaults() {
	if s.From <= 0 {
		s.From = DefaultCeilingFrom
	}
	if s.Factor <= 1 {
		s.Factor = DefaultCeilingFactor
	}
	if s.Refine < 0 {
		s.Refine = 0
	}
	if s.Step <= 0 {
		s.Step = DefaultCeilingStep
	}
	if s.Max <= 0 || s.Max > MaxRate {
		s.Max = MaxRate
	}
}

// FindCeiling runs the search on tgt (a target that takes real time) with
// cfg's world, mix and settings; cfg.Load gives the in-flight cap. onStep,
// when set, hears each step as it ends. It returns what it found and the
// results of the last step that passed (of the first step, when none did),
// with the ceiling in their timing.
func FindCeiling(ctx context.Context, cfg Config, tgt Target, b CeilingBound, s CeilingSearch, onStep func(report.CeilingStep)) (*report.Results, error) {
	if !tgt.RealTime() {
		return nil, fieldErr("Ceiling", "a ceiling search needs a target over a real transport (serve:WORLD, a URL or a command): in-process time is virtual")
	}
	s.defaults()
	inFlight := DefaultInFlightForCeiling
	if cfg.Load != nil && cfg.Load.MaxInFlight > 0 {
		inFlight = cfg.Load.MaxInFlight
	}
	ceiling := &report.Ceiling{Bound: b.Spec}
	var kept *report.Results
	confirming := false
	var stepFn func(rate float64) (bool, error)
	step := func(rate float64) (bool, error) { return stepFn(rate) }
	stepFn = func(rate float64) (bool, error) {
		c := cfg
		c.Load = &Load{Pacer: ConstantPacer(rate, s.Step), Duration: s.Step, MaxInFlight: inFlight}
		c.Agents = max(1, int(math.Ceil(rate*s.Step.Seconds())))
		plan, err := NewPlan(c)
		if err != nil {
			return false, err
		}
		res, err := plan.Run(ctx, tgt)
		if err != nil {
			return false, err
		}
		if res.Partial {
			return false, fmt.Errorf("ceiling search: the step at %g agents a second was interrupted", rate)
		}
		st := judgeStep(rate, plan.LoadStats(), res, b)
		ceiling.Steps = append(ceiling.Steps, st)
		if onStep != nil {
			onStep(st)
		}
		if !st.Pass && s.Confirm && !confirming {
			confirming = true
			defer func() { confirming = false }()
			return stepFn(rate)
		}
		if st.Pass || kept == nil {
			kept = res
		}
		if st.Pass {
			ceiling.Rate = math.Max(ceiling.Rate, rate)
		}
		return st.Pass, nil
	}
	lo, hi := 0.0, 0.0
	for rate := s.From; ; rate *= s.Factor {
		rate = math.Min(rate, s.Max)
		ok, err := step(rate)
		if err != nil {
			return nil, err
		}
		if !ok {
			hi = rate
			break
		}
		lo = rate
		if rate >= s.Max {
			break
		}
	}
	for i := 0; i < s.Refine && lo > 0 && hi > 0; i++ {
		mid := math.Round(math.Sqrt(lo*hi)*10) / 10
		if mid <= lo || mid >= hi {
			break
		}
		ok, err := step(mid)
		if err != nil {
			return nil, err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	if kept.Timing == nil {
		kept.Timing = &report.Timing{}
	}
	kept.Timing.Ceiling = ceiling
	return kept, nil
}

// DefaultInFlightForCeiling is a step's in-flight cap when the run gives
// none: enough that the rate, not the cap, is what a step measures.
const DefaultInFlightForCeiling = 64

// judgeStep measures one step against the bound.
func judgeStep(rate float64, st LoadStats, res *report.Results, b CeilingBound) report.CeilingStep {
	out := report.CeilingStep{Rate: rate, Achieved: math.Round(st.StartRate()*10) / 10, Calls: st.Calls}
	if lat := res.OverallLatency(); len(lat) > 2 {
		out.P99MS = math.Round(lat[2]*10) / 10 // Percentiles: p50, p90, p99, p99.9
	}
	var total, failed int64
	if res.Timing != nil {
		for _, c := range res.Timing.Calls {
			total += c.N
			if c.Class != target.ClassOK.String() && c.Class != target.ClassToolError.String() {
				failed += c.N
			}
		}
	}
	if total > 0 {
		out.ErrorRate = math.Round(float64(failed)/float64(total)*1e6) / 1e6
	}
	out.Pass = total > 0 && out.Achieved >= keepUp*rate &&
		(b.P99 == 0 || out.P99MS < float64(b.P99)/float64(time.Millisecond)) &&
		(b.Errors == 0 || out.ErrorRate < b.Errors)
	return out
}
