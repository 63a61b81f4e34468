package herdtest

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// requestTimeout bounds one control-plane request: the control plane
// answers from memory, so a slow answer means a stuck server.
const requestTimeout = 10 * time.Second

// Latest names the newest session: the one the agent under test opened
// last (for an in-process world, its one session).
const Latest = "latest"

// Control reads and resets a world's sessions: the control plane of a
// served world, or the same operations on an in-process world's session.
type Control struct {
	world   *engine.World
	backend controlBackend
}

// controlBackend is what differs between a served and an in-process world:
// a served world's is the control plane's client (control.Client), an
// in-process world answers the same questions from its one session. Every
// method returns the bytes the control plane would: canonical state JSON,
// NDJSON journal.
type controlBackend interface {
	Sessions(ctx context.Context) ([]control.SessionInfo, error)
	State(ctx context.Context, session string) ([]byte, error)
	Journal(ctx context.Context, session string) ([]byte, error)
	Invariants(ctx context.Context, session string) ([]engine.Violation, error)
	ResetSeed(ctx context.Context, session string, seed uint64) error
	SetFaults(ctx context.Context, profile string) error
}

var (
	_ controlBackend = (*control.Client)(nil)
	_ controlBackend = (*localWorld)(nil)
)

// Sessions lists the world's sessions, oldest first.
func (c *Control) Sessions() ([]control.SessionInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.Sessions(ctx)
}

// State reads a session's records ("latest" for the newest session).
func (c *Control) State(session string) (*State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	b, err := c.backend.State(ctx, session)
	if err != nil {
		return nil, err
	}
	return parseState(c.world, session, b)
}

// Journal reads a session's calls, in order.
func (c *Control) Journal(session string) ([]JournalEntry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	b, err := c.backend.Journal(ctx, session)
	if err != nil {
		return nil, err
	}
	return parseJournal(session, b)
}

// Violations checks the world's invariants on a session's state.
func (c *Control) Violations(session string) ([]engine.Violation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.Invariants(ctx, session)
}

// Reset puts every session back on the records of seed, with an empty
// journal and the clock at zero — a clean world for the next test case.
// (Sessions a served world opens later start on the seed it was started
// with.)
func (c *Control) Reset(seed uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	list, err := c.backend.Sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		if err := c.backend.ResetSeed(ctx, s.ID, seed); err != nil {
			return err
		}
	}
	return nil
}

// ResetSession puts one session back on the records of seed.
func (c *Control) ResetSession(session string, seed uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.ResetSeed(ctx, session, seed)
}

// SetFaults switches the fault profile of every session (and, when
// served, of sessions opened later).
func (c *Control) SetFaults(profile string) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.SetFaults(ctx, profile)
}

// The in-process world answers the same questions from its one session.

func (l *localWorld) check(session string) error {
	if session != LocalSession && session != Latest {
		return fmt.Errorf("no session %q: an in-process world has one session, %q (or %q)", session, LocalSession, Latest)
	}
	return nil
}

func (l *localWorld) Sessions(context.Context) ([]control.SessionInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return []control.SessionInfo{{
		ID: LocalSession, Key: localKey, Seed: l.sess.Base().Seed(), Calls: l.sess.Calls(),
		Profile: l.sess.Profile().Name, Created: l.created,
	}}, nil
}

func (l *localWorld) State(_ context.Context, session string) ([]byte, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess.StateJSON(), nil
}

func (l *localWorld) Journal(_ context.Context, session string) ([]byte, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var b bytes.Buffer
	err := l.sess.WriteJournal(&b)
	return b.Bytes(), err
}

func (l *localWorld) Invariants(_ context.Context, session string) ([]engine.Violation, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess.CheckInvariants()
}

func (l *localWorld) ResetSeed(_ context.Context, session string, seed uint64) error {
	if err := l.check(session); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if seed != l.base.Seed() {
		base, err := l.base.World().Seed(seed)
		if err != nil {
			return err
		}
		l.base = base
	}
	l.sess = l.base.NewSession(localKey, l.sess.Profile())
	return nil
}

func (l *localWorld) SetFaults(_ context.Context, profile string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	p, err := l.base.World().FindProfile(profile)
	if err != nil {
		return err
	}
	l.sess.SetProfile(p)
	return nil
}
