package target

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/serve"
)

// servedEpisode is one episode run by hand on a served crm world: its local
// session (for Settle) and its served one.
type servedEpisode struct {
	local  *engine.Session
	remote personas.RemoteSession
	target string
}

func openServed(t *testing.T, r personas.Remote, b *engine.Base, key uint64) servedEpisode {
	t.Helper()
	goal := b.World().Goals[0]
	local := b.NewSession(key, nil)
	attempt, err := goal.Begin(local, 0)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := r.Open(personas.Episode{Base: b, Goal: goal, Seed: key}, attempt, 0)
	if err != nil {
		t.Fatal(err)
	}
	return servedEpisode{local: local, remote: rs, target: attempt.Target.ID()}
}

// settleAsync settles an episode whose journal comes with its connection's
// next reset: Settle waits for it.
func settleAsync(e servedEpisode) <-chan error {
	done := make(chan error, 1)
	go func() { done <- e.remote.Settle(e.local); e.remote.Close() }()
	return done
}

// An episode's reset rides on its first call; an episode that makes no call
// (or ends before its first) still resets the served session through the
// control plane, so the previous episode on the connection gets its journal
// and the empty episode is judged on its own fresh state, not on what the
// one before left.
func TestEpisodesWithoutCallsStillReset(t *testing.T) {
	w, b := seededCRM(t, 42)
	opts := Options{MaxConns: 1}
	local, err := serve.StartLocal(serve.Options{World: w, Seed: 42})
	if err != nil {
		t.Fatal(err)
	}
	srv := HerdHTTP(local.URL, w, engine.NoFaults, NewHTTPClient(opts), opts)
	srv.OnClose(local.Close)
	defer srv.Close()
	ctx := context.Background()
	parked := make(chan struct{}, 1)
	now, deferred := srv.Remote(ctx, nil), srv.RemoteDeferred(ctx, nil, func() { parked <- struct{}{} })

	// The first episode settled has its served state compared: a warm-up,
	// so the next ones park their journals.
	warm := openServed(t, now, b, 1)
	warm.remote.Call("get_contact", map[string]any{"id": warm.target})
	if err := warm.remote.Settle(warm.local); err != nil {
		t.Fatal(err)
	}
	warm.remote.Close()

	busy := openServed(t, deferred, b, 2)
	busy.remote.Call("get_contact", map[string]any{"id": busy.target})
	busy.remote.Call("archive_contact", map[string]any{"id": busy.target})
	busyDone := settleAsync(busy)
	within(t, parked)

	empty := openServed(t, now, b, 3) // takes busy's connection
	if err := empty.remote.Settle(empty.local); err != nil {
		t.Fatalf("an episode without calls: %v", err)
	}
	if err := within(t, busyDone); err != nil {
		t.Fatalf("the episode before it: %v", err)
	}
	if busy.local.Calls() != 2 || empty.local.Calls() != 0 {
		t.Errorf("replayed calls: %d and %d, want 2 and 0", busy.local.Calls(), empty.local.Calls())
	}
	state, err := empty.remote.(*Session).c.ctl.State(ctx, empty.remote.(*Session).c.id)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(state), empty.local.StateJSON()) {
		t.Errorf("the served state after an empty episode is not its fresh state")
	}
	empty.remote.Close()

	// An episode closed before its first call, and one whose first call
	// names a tool the world lacks (so it never goes out), hand the parked
	// journal on.
	for key, end := range map[uint64]func(e servedEpisode){
		4: func(e servedEpisode) { e.remote.Close() },
		5: func(e servedEpisode) {
			if r := e.remote.Call("no_such_tool", nil); r.Err == nil || e.remote.Settle(e.local) == nil {
				t.Errorf("a call of a tool the world lacks: %+v", r)
			}
			e.remote.Close()
		},
	} {
		busy = openServed(t, deferred, b, key*10)
		busy.remote.Call("get_contact", map[string]any{"id": busy.target})
		busyDone = settleAsync(busy)
		within(t, parked)
		end(openServed(t, now, b, key))
		if err := within(t, busyDone); err != nil || busy.local.Calls() != 1 {
			t.Fatalf("case %d: the episode before: %v, %d calls replayed", key, err, busy.local.Calls())
		}
	}
}

// within receives from ch, or fails the test after 10 s: a hand-off that
// never comes must fail, not hang until go test's timeout.
func within[T any](t *testing.T, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing came within 10s")
		panic("unreachable")
	}
}

// A first result that came back but is not a herd answer still carries the
// reset's answer: the previous episode gets its journal; only the episode
// whose result it was is void.
func TestBadFirstResultStillHandsTheJournalOn(t *testing.T) {
	parked := make(chan journalResult, 1)
	s := &Session{w: &Served{name: "test"}, target: "c_0001", parked: parked,
		reset: &control.Reset{Seed: 42, Key: 7, Goal: "hide_contact", ReturnJournal: true}}
	rmeta := mcp.Meta{control.ResetMeta: map[string]any{
		"seed": "42", "key": "7", "goal": "hide_contact", "target": "c_0001",
		"journal": []any{map[string]any{"tool": "get_contact", "args": map[string]any{"id": "c_0001"}, "at_ms": 0.0, "ok": true}},
	}}
	if err := s.resetAnswered(rmeta, errors.New("result is not a JSON object")); err != nil {
		t.Fatal(err)
	}
	r := within(t, parked)
	if r.err != nil || len(r.calls) != 1 || r.calls[0].Tool != "get_contact" || r.calls[0].Args["id"] != "c_0001" {
		t.Errorf("the previous episode got %+v", r)
	}
}
