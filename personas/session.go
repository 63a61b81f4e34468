package personas

import (
	"time"

	"github.com/herd-sh/herd/engine"
)

// Session is the world an agent talks to. An in-process *engine.Session is
// one (virtual time: Sleep only moves a clock); a world served over MCP is
// another (every call crosses a transport, Sleep really waits). The agent
// needs nothing else of it, so the same personas play either.
type Session interface {
	Call(tool string, args map[string]any) engine.Result
	Sleep(d time.Duration)
	Elapsed() time.Duration
	Calls() int
}

var _ Session = (*engine.Session)(nil)

// Remote opens the sessions of a world served elsewhere, one per episode.
// An episode with a Remote still keeps a local engine session on the same
// base and key, with the goal's attempt begun on it: that is where the end
// state is judged, so outcome classes mean exactly what they mean
// in-process.
type Remote interface {
	// Open starts the episode's served session: on the base seed of
	// ep.Base, with session key ep.Seed, and with the goal's attempt begun
	// as attempt was locally (Goal.Begin with rnd), so that a goal's other
	// actor writes there too. It checks, by the time the episode settles,
	// that the served attempt has the same target as attempt.
	Open(ep Episode, attempt *engine.Attempt, rnd uint64) (RemoteSession, error)
}

// RemoteSession is one episode's served session.
type RemoteSession interface {
	Session
	// Settle brings the served session's end state into local — the
	// episode's local session, untouched since Goal.Begin — so that local
	// then holds what the served one holds: records, clock, call count,
	// journal (with the faults and commits the agent could not see over
	// the wire) and error tallies. An error means the served world could
	// not be read or did not agree with itself.
	Settle(local *engine.Session) error
	// Close ends the episode's use of the session (it may be reused).
	Close()
}

// settle corrects, after a remote episode, the books the agent kept from
// what it saw on the wire with what the served world recorded: which calls
// met an injected fault (a timeout_after_commit looks like any timeout to
// a client) and which writes committed (so which were duplicated). The
// journal of local is the served session's, call for call.
func (a *agent) settle(local *engine.Session) {
	j := local.Journal()
	a.out.Faults = a.out.Faults[:0]
	a.out.Duplicated = 0
	commits, action := 0, int32(-1)
	for i := range j {
		e := &j[i]
		r := &e.Result
		if r.Fault != "" {
			a.out.Faults = append(a.out.Faults, FaultEvent{Tool: e.Tool, Kind: r.Fault})
		}
		if i < len(a.remoteCalls) && a.remoteCalls[i].action != action {
			action, commits = a.remoteCalls[i].action, 0
		}
		if t := a.m.world.Tool(e.Tool); t != nil && t.Writes() && r.Committed && !r.Replayed {
			commits++
			if commits > 1 {
				a.out.Duplicated++
			}
		}
	}
	if a.trace == nil {
		return
	}
	k := 0
	for si := range a.trace.Steps {
		st := &a.trace.Steps[si]
		if st.Tool == "" {
			continue // a wait, a note or giving up: not a call
		}
		if k >= len(j) || k >= len(a.remoteCalls) {
			break
		}
		st.Result = describeResult(&j[k].Result, a.remoteCalls[k].hostile)
		k++
	}
}
