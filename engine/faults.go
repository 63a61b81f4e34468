package engine

import (
	"math"
	"time"

	"github.com/herd-sh/herd/engine/entropy"
)

// FaultTimeoutAfterCommit is the fault where the call's write lands and the
// caller sees a timeout anyway: the one that turns a naive retry into a
// double refund.
const FaultTimeoutAfterCommit = "timeout_after_commit"

// The quiet fault kinds: a call that answers as if all were well, or
// nearly, while the world says otherwise. Every other fault is loud (an
// error the caller sees); these are the ones only an agent that checks its
// work can catch. docs/worlds.md says where each comes from.
const (
	// FaultSilentNoop: a write answers ok, with the record it would have
	// written, and changes nothing.
	FaultSilentNoop = "silent_noop"
	// FaultStaleRead: a get or list answers from the session's state as it
	// was Lag of virtual time ago (a lagging read replica, a cache).
	FaultStaleRead = "stale_read"
	// FaultPartialWrite: a write of several records applies only its first
	// and answers an error (a non-transactional backend failing part-way).
	FaultPartialWrite = "partial_write"
	// FaultSchemaDrift: a result comes back with one field renamed (Rename)
	// or missing, as after an upstream release.
	FaultSchemaDrift = "schema_drift"
)

// CodeInternal is the error a partial write answers with: the caller sees
// a server error and cannot tell how much of the write landed.
const CodeInternal = "internal_error"

// defaultTimeout is how long a timed-out call makes its caller wait.
const defaultTimeout = 30 * time.Second

// FaultProfile is a named set of per-tool faults.
type FaultProfile struct {
	Name    string
	Builtin bool // supplied by herd, not the world file

	byTool []*ToolFaults // per tool index; nil entries have no faults
	// staleReads: some tool may answer a stale read, so sessions under
	// this profile remember their writes (historyEntry).
	staleReads bool
}

// noteQuiet sets what the profile's quiet faults need of its sessions.
func (p *FaultProfile) noteQuiet() {
	for _, tf := range p.byTool {
		if tf == nil {
			continue
		}
		for _, e := range tf.Errors {
			if e.Kind == FaultStaleRead {
				p.staleReads = true
			}
		}
	}
}

// NoFaults names the fault profile every world has and every run defaults
// to: no injected errors, no latency.
const NoFaults = "none"

// ProfileName is p's name, and NoFaults for a nil profile: a session made
// with no profile has no faults, like the built-in one.
func ProfileName(p *FaultProfile) string {
	if p == nil {
		return NoFaults
	}
	return p.Name
}

// ToolFaults are the faults and latency of one tool under one profile.
type ToolFaults struct {
	Latency Latency
	Errors  []FaultError

	timeout time.Duration
	cum     []float64 // cumulative probabilities, parallel to Errors
}

// For returns the faults of tool t under the profile (nil: none; a nil
// profile has none).
func (p *FaultProfile) For(t *Tool) *ToolFaults {
	if p == nil || t.index >= len(p.byTool) {
		return nil
	}
	return p.byTool[t.index]
}

// Timeout is how long a timed-out call takes.
func (f *ToolFaults) Timeout() time.Duration { return f.timeout }

// FaultError is one kind of failure with its probability.
type FaultError struct {
	Kind       string
	P          float64
	RetryAfter time.Duration
	Message    string
	// Lag is how far behind a stale_read answers (virtual time).
	Lag time.Duration
	// Field and Rename are what a schema_drift changes: the field is
	// renamed to Rename in the answer, or left out when Rename is "".
	Field, Rename string
}

// Latency is a latency distribution. The zero value is no latency.
type Latency struct {
	Median, P99 time.Duration // lognormal when set
	Fixed       time.Duration
	Min, Max    time.Duration // uniform when Max > 0
}

// roll throws the call's fault die: one die, cumulative probabilities.
func (f *ToolFaults) roll(seed, session, call uint64) *FaultError {
	if len(f.Errors) == 0 {
		return nil
	}
	u := entropy.Key{Seed: seed, Session: session, Call: call, Purpose: entropy.FaultDie}.Float64()
	for i, c := range f.cum {
		if u < c {
			return &f.Errors[i]
		}
	}
	return nil
}

// drawLatency draws the call's latency from its own dice.
func (f *ToolFaults) drawLatency(seed, session, call uint64) time.Duration {
	l := f.Latency
	switch {
	case l.Median > 0:
		k := entropy.Key{Seed: seed, Session: session, Call: call, Purpose: entropy.Latency}
		u1 := k.Uint64()
		k.Purpose++
		u2 := k.Uint64()
		z := entropy.Normal(u1, u2)
		// p99 = median · e^(2.326σ)  ⇒  σ = ln(p99/median) / 2.326
		sigma := 0.0
		if l.P99 > l.Median {
			sigma = math.Log(float64(l.P99)/float64(l.Median)) / 2.3263478740408408
		}
		d := time.Duration(float64(l.Median) * math.Exp(sigma*z))
		if d > 10*l.P99 && l.P99 > 0 {
			d = 10 * l.P99 // a hard tail cap keeps one draw from stalling a served world
		}
		return d
	case l.Max > 0:
		u := entropy.Key{Seed: seed, Session: session, Call: call, Purpose: entropy.Latency}.Float64()
		return l.Min + time.Duration(u*float64(l.Max-l.Min))
	default:
		return l.Fixed
	}
}

// builtinProfiles are supplied when a world file does not define them.
func builtinProfile(w *World, name string) *FaultProfile {
	p := &FaultProfile{Name: name, Builtin: true, byTool: make([]*ToolFaults, len(w.Tools))}
	for i, t := range w.Tools {
		var tf ToolFaults
		switch name {
		case "realistic":
			tf = ToolFaults{
				Latency: Latency{Median: 40 * time.Millisecond, P99: 400 * time.Millisecond},
				Errors: []FaultError{
					{Kind: CodeTimeout, P: 0.01},
					{Kind: CodeUnavailable, P: 0.005, Message: "service unavailable, try again"},
				},
			}
		case "hostile":
			tf = ToolFaults{
				Latency: Latency{Median: 120 * time.Millisecond, P99: 2 * time.Second},
				Errors: []FaultError{
					{Kind: CodeTimeout, P: 0.04},
					{Kind: CodeUnavailable, P: 0.03, Message: "service unavailable, try again"},
					{Kind: CodeRateLimited, P: 0.05, RetryAfter: time.Second},
				},
			}
			if t.Writes() {
				tf.Errors = append(tf.Errors, FaultError{Kind: FaultTimeoutAfterCommit, P: 0.05})
			}
		default:
			continue
		}
		tf.finish()
		p.byTool[i] = &tf
	}
	return p
}

// finish computes the cumulative probabilities and the default timeout.
func (f *ToolFaults) finish() {
	if f.timeout == 0 {
		f.timeout = defaultTimeout
	}
	f.cum = make([]float64, len(f.Errors))
	sum := 0.0
	for i, e := range f.Errors {
		sum += e.P
		f.cum[i] = sum
	}
}
