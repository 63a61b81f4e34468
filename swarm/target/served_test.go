package target

import (
	"bytes"
	"context"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
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
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(42)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{MaxConns: 1}
	srv, err := StartServe(w, ServeOptions{Seed: 42, Faults: "none"}, NewHTTPClient(opts), opts)
	if err != nil {
		t.Fatal(err)
	}
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
	<-parked

	empty := openServed(t, now, b, 3) // takes busy's connection
	if err := empty.remote.Settle(empty.local); err != nil {
		t.Fatalf("an episode without calls: %v", err)
	}
	if err := <-busyDone; err != nil {
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

	// An episode closed before its first call hands the parked journal on.
	busy = openServed(t, deferred, b, 4)
	busy.remote.Call("get_contact", map[string]any{"id": busy.target})
	busyDone = settleAsync(busy)
	<-parked
	openServed(t, now, b, 5).remote.Close()
	if err := <-busyDone; err != nil || busy.local.Calls() != 1 {
		t.Fatalf("the episode before one closed unused: %v, %d calls replayed", err, busy.local.Calls())
	}
}
