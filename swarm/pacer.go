package swarm

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A Pacer decides when the next agent starts, the way Vegeta's does: given
// how long the run has gone and how many agents have started, how long to
// wait before starting the next one, or stop. Rate is the pacer's intended
// starts per second at a moment (for reports and tests).
type Pacer interface {
	Pace(elapsed time.Duration, started uint64) (wait time.Duration, stop bool)
	Rate(elapsed time.Duration) float64
}

// Unpaced starts the next agent as soon as there is room for it (the
// in-flight cap is then the only throttle): a closed-loop run.
type Unpaced struct{}

// Pace never waits and never stops.
func (Unpaced) Pace(time.Duration, uint64) (time.Duration, bool) { return 0, false }

// Rate is infinite.
func (Unpaced) Rate(time.Duration) float64 { return math.Inf(1) }

// segment is a stretch of time over which the start rate moves linearly
// from r0 to r1 (per second).
type segment struct {
	from, to time.Duration
	r0, r1   float64
}

// ProfilePacer follows a piecewise-linear rate profile: the number of
// agents started by time t is meant to be the integral of the rate up to
// t. When the run falls behind (the in-flight cap was full), it starts the
// missed agents at once, then keeps to the profile.
type ProfilePacer struct {
	segs []segment
	name string
}

// ConstantPacer starts rate agents a second, for d (0: until stopped).
func ConstantPacer(rate float64, d time.Duration) *ProfilePacer {
	return &ProfilePacer{segs: []segment{{0, endOf(d), rate, rate}}, name: fmt.Sprintf("constant %g/s", rate)}
}

// RampPacer moves the rate linearly from `from` to `to` a second over d.
func RampPacer(from, to float64, d time.Duration) *ProfilePacer {
	return &ProfilePacer{segs: []segment{{0, d, from, to}}, name: fmt.Sprintf("ramp %g→%g/s", from, to)}
}

// SpikePacer holds base a second, jumps to peak for the middle fifth of d
// (from 40% to 60%), then falls back to base: how a service meets a burst.
func SpikePacer(base, peak float64, d time.Duration) *ProfilePacer {
	a, b := d*2/5, d*3/5
	return &ProfilePacer{segs: []segment{{0, a, base, base}, {a, b, peak, peak}, {b, d, base, base}},
		name: fmt.Sprintf("spike %g/s, %g/s from %s to %s", base, peak, a, b)}
}

func endOf(d time.Duration) time.Duration {
	if d <= 0 {
		return time.Duration(math.MaxInt64)
	}
	return d
}

// String describes the profile.
func (p *ProfilePacer) String() string { return p.name }

// Rate is the intended rate at elapsed.
func (p *ProfilePacer) Rate(elapsed time.Duration) float64 {
	for _, s := range p.segs {
		if elapsed >= s.from && elapsed < s.to {
			return s.r0 + (s.r1-s.r0)*s.frac(elapsed)
		}
	}
	return 0
}

// length is the segment's length in seconds. An open-ended segment ends at
// the largest Duration (about 292 years): its length is finite, so the
// arithmetic below needs no case for infinity.
func (s segment) length() float64 { return (s.to - s.from).Seconds() }

func (s segment) frac(t time.Duration) float64 {
	l := s.length()
	if l <= 0 {
		return 0
	}
	return (t - s.from).Seconds() / l
}

// slope is how fast the rate moves, per second per second.
func (s segment) slope() float64 {
	if l := s.length(); s.r1 != s.r0 && l > 0 {
		return (s.r1 - s.r0) / l
	}
	return 0
}

// hitsIn is the agents the segment starts in its first tau seconds.
func (s segment) hitsIn(tau float64) float64 {
	return s.r0*tau + s.slope()*tau*tau/2
}

// Hits is how many agents the profile starts by elapsed.
func (p *ProfilePacer) Hits(elapsed time.Duration) float64 {
	total := 0.0
	for _, s := range p.segs {
		if elapsed <= s.from {
			break
		}
		end := min(elapsed, s.to)
		total += s.hitsIn((end - s.from).Seconds())
	}
	return total
}

// Pace implements Pacer.
func (p *ProfilePacer) Pace(elapsed time.Duration, started uint64) (time.Duration, bool) {
	want := float64(started + 1) // the next agent is due when Hits reaches this
	if p.Hits(elapsed) >= want-1e-9 {
		return 0, false
	}
	// Find the moment the profile reaches want.
	before := 0.0
	for _, s := range p.segs {
		in := s.hitsIn(s.length())
		if before+in < want-1e-9 {
			before += in
			continue
		}
		tau, ok := s.solve(want - before)
		if !ok {
			before += in
			continue
		}
		at := s.from + time.Duration(tau*float64(time.Second))
		if at >= s.to && s.to != time.Duration(math.MaxInt64) {
			at = s.to
		}
		if at <= elapsed {
			return 0, false
		}
		return at - elapsed, false
	}
	return 0, true // the profile is over
}

// solve finds tau ≥ 0 with hitsIn(tau) = h.
func (s segment) solve(h float64) (float64, bool) {
	a := s.slope()
	if a == 0 {
		if s.r0 <= 0 {
			return 0, false
		}
		return h / s.r0, true
	}
	disc := s.r0*s.r0 + 2*a*h
	if disc < 0 {
		return 0, false
	}
	return (-s.r0 + math.Sqrt(disc)) / a, true
}

// ParseArrival reads an arrival profile (errors name the fields Arrival,
// Rate and Load.Duration): constant, ramp:FROM-TO (starts a second,
// over the whole duration), spike or spike:PEAK (rate, and PEAK — default
// four times rate — for the middle fifth of the duration).
func ParseArrival(s string, rate float64, d time.Duration) (*ProfilePacer, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	switch name {
	case "", "constant":
		if arg != "" {
			return nil, fieldErr("Arrival", "constant takes no argument (its rate is the run's rate), got %q", s)
		}
		if rate <= 0 {
			return nil, fieldErr("Rate", "a constant arrival needs a rate above 0 (agents started a second)")
		}
		return ConstantPacer(rate, d), nil
	case "churn":
		// Constant starts; what churns is sessions (ChurnShare).
		if _, err := ChurnShare(s); err != nil {
			return nil, err
		}
		if rate <= 0 {
			return nil, fieldErr("Rate", "a churn arrival needs a rate above 0 (agents started a second)")
		}
		p := ConstantPacer(rate, d)
		p.name = fmt.Sprintf("churn %g/s", rate)
		return p, nil
	case "ramp":
		if d <= 0 {
			return nil, fieldErr("Load.Duration", "the %s arrival needs a duration: the ramp runs over the whole of it", s)
		}
		a, b, ok := strings.Cut(arg, "-")
		from, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
		to, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
		if !ok || err1 != nil || err2 != nil || from < 0 || to < 0 || from+to == 0 || math.IsInf(from+to, 0) {
			return nil, fieldErr("Arrival", "%q: want ramp:FROM-TO in agents a second, e.g. ramp:10-500", s)
		}
		return RampPacer(from, to, d), nil
	case "spike":
		if d <= 0 {
			return nil, fieldErr("Load.Duration", "a spike arrival needs a duration: the spike is the middle fifth of it")
		}
		if rate <= 0 {
			return nil, fieldErr("Rate", "a spike arrival needs a rate above 0: the rate outside the spike")
		}
		peak := 4 * rate
		if arg != "" {
			v, err := strconv.ParseFloat(arg, 64)
			if err != nil || v <= 0 || math.IsInf(v, 0) {
				return nil, fieldErr("Arrival", "%q: want spike or spike:PEAK (agents a second during the spike)", s)
			}
			peak = v
		}
		return SpikePacer(rate, peak, d), nil
	}
	return nil, fieldErr("Arrival", "%q: want constant, ramp:FROM-TO, spike[:PEAK] or churn[:SHARE]", s)
}

// DefaultChurn is the share of agent starts that churn a session under a
// churn arrival given no share.
const DefaultChurn = 0.5

// ChurnShare is the churn share an arrival profile names (Load.Churn):
// churn or churn:SHARE (0 < SHARE ≤ 1) is that share, any other profile 0.
func ChurnShare(s string) (float64, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(s), ":")
	if name != "churn" {
		return 0, nil
	}
	if arg == "" {
		return DefaultChurn, nil
	}
	v, err := strconv.ParseFloat(arg, 64)
	if err != nil || !(v > 0 && v <= 1) {
		return 0, fieldErr("Arrival", "%q: want churn or churn:SHARE, the share of agent starts that also open a session and drop it (0 < SHARE ≤ 1)", s)
	}
	return v, nil
}
