package personas

import (
	"encoding/json"
	"maps"
	"reflect"
	"testing"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
)

// loopback is a Remote served by a second in-process session of the same
// base, seen the way an MCP client sees a served world: no injected fault
// and no commit shows in a result. Settle replays the agent's calls and
// waits into the local session, which then holds what the served one does.
type loopback struct{}

func (loopback) Open(ep Episode, _ *engine.Attempt, rnd uint64) (RemoteSession, error) {
	served := ep.Base.NewSession(ep.Seed, ep.Profile)
	if _, err := ep.Goal.Begin(served, rnd); err != nil {
		return nil, err
	}
	return &loopbackSession{served: served}, nil
}

// loopbackOp is one call (tool set) or one wait.
type loopbackOp struct {
	tool  string
	args  map[string]any
	sleep time.Duration
}

type loopbackSession struct {
	served *engine.Session
	ops    []loopbackOp
}

func (s *loopbackSession) Call(tool string, args map[string]any) engine.Result {
	s.ops = append(s.ops, loopbackOp{tool: tool, args: maps.Clone(args)})
	res := s.served.Call(tool, args)
	res.Fault, res.Committed = "", false // neither crosses the wire
	return res
}

func (s *loopbackSession) Sleep(d time.Duration) {
	s.ops = append(s.ops, loopbackOp{sleep: d})
	s.served.Sleep(d)
}

func (s *loopbackSession) Elapsed() time.Duration { return s.served.Elapsed() }
func (s *loopbackSession) Calls() int             { return s.served.Calls() }
func (s *loopbackSession) Close()                 {}

func (s *loopbackSession) Settle(local *engine.Session) error {
	for _, op := range s.ops {
		if op.tool == "" {
			local.Sleep(op.sleep)
			continue
		}
		local.Call(op.tool, op.args)
	}
	return nil
}

// An episode against a served world ends with the outcome and trace it has
// in-process: settle restores from the served journal what the wire hid
// (faults, commits, so duplicated writes) and rewrites the trace's result
// lines, keeping the note of arguments spoiled on purpose.
func TestRemoteEpisodeMatchesInProcess(t *testing.T) {
	var faulted, duplicated, hostile int
	for _, world := range []string{"crm", "payments", "shop", "email", "files"} {
		w := loadWorld(t, world)
		base := seedBase(t, w)
		m := newModel(t, w, w.Variants[len(w.Variants)-1]) // the vaguer wording: more wrong tools, more multi-step episodes
		pack := Builtin().Personas
		for i := 0; i < 300; i++ {
			ep := Episode{Base: base, Profile: w.Profile("hostile"), Persona: pack[i%len(pack)], Goal: w.Goals[i%len(w.Goals)],
				Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
			want, err := m.Run(ep)
			if err != nil {
				t.Fatal(err)
			}
			ep.Remote = loopback{}
			got, err := m.Run(ep)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				served, _ := json.Marshal(got)
				local, _ := json.Marshal(want)
				t.Fatalf("%s seed %d: served\n%s\nin-process\n%s", world, ep.Seed, served, local)
			}
			if len(got.Faults) > 0 {
				faulted++
			}
			if got.Duplicated > 0 {
				duplicated++
			}
			if got.Hostile > 0 && len(got.Faults) > 0 {
				hostile++
			}
		}
	}
	// The comparison means something only if the wire hid something.
	if faulted < 50 || duplicated == 0 || hostile == 0 {
		t.Fatalf("episodes with faults %d, with duplicated writes %d, hostile with faults %d: too few to test settle", faulted, duplicated, hostile)
	}
	t.Logf("%d episodes met faults, %d duplicated a write, %d were hostile and met faults", faulted, duplicated, hostile)
}
