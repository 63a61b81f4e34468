package herdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
)

// requestTimeout bounds one control-plane request: the control plane
// answers from memory, so a slow answer means a stuck server.
const requestTimeout = 10 * time.Second

// maxControlAnswer bounds what the client reads from one answer (a world's
// state is a few hundred kilobytes).
const maxControlAnswer = 256 << 20

// Latest names the newest session: the one the agent under test opened
// last (for an in-process world, its one session).
const Latest = "latest"

// Control reads and resets a world's sessions: the control plane of a
// served world, or the same operations on an in-process world's session.
type Control struct {
	world   *engine.World
	backend controlBackend
}

// controlBackend is what differs between a served and an in-process world.
// Every method returns the bytes the control plane would: canonical state
// JSON, NDJSON journal.
type controlBackend interface {
	sessions(ctx context.Context) ([]serve.SessionInfo, error)
	state(ctx context.Context, session string) ([]byte, error)
	journal(ctx context.Context, session string) ([]byte, error)
	violations(ctx context.Context, session string) ([]engine.Violation, error)
	reset(ctx context.Context, session string, seed *uint64) error
	setFaults(ctx context.Context, profile string) error
}

// Sessions lists the world's sessions, oldest first.
func (c *Control) Sessions() ([]serve.SessionInfo, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.sessions(ctx)
}

// State reads a session's records ("latest" for the newest session).
func (c *Control) State(session string) (*State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	b, err := c.backend.state(ctx, session)
	if err != nil {
		return nil, err
	}
	return parseState(c.world, session, b)
}

// Journal reads a session's calls, in order.
func (c *Control) Journal(session string) ([]JournalEntry, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	b, err := c.backend.journal(ctx, session)
	if err != nil {
		return nil, err
	}
	return parseJournal(session, b)
}

// Violations checks the world's invariants on a session's state.
func (c *Control) Violations(session string) ([]engine.Violation, error) {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.violations(ctx, session)
}

// Reset puts every session back on the records of seed, with an empty
// journal and the clock at zero — a clean world for the next test case.
// (Sessions a served world opens later start on the seed it was started
// with.)
func (c *Control) Reset(seed uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	list, err := c.backend.sessions(ctx)
	if err != nil {
		return err
	}
	for _, s := range list {
		if err := c.backend.reset(ctx, s.ID, &seed); err != nil {
			return err
		}
	}
	return nil
}

// ResetSession puts one session back on the records of seed.
func (c *Control) ResetSession(session string, seed uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.reset(ctx, session, &seed)
}

// SetFaults switches the fault profile of every session (and, when
// served, of sessions opened later).
func (c *Control) SetFaults(profile string) error {
	ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
	defer cancel()
	return c.backend.setFaults(ctx, profile)
}

// httpControl is a served world's control plane, over HTTP.
type httpControl struct {
	base string // http://127.0.0.1:PORT
	hc   *http.Client
}

func newHTTPControl(base string) *httpControl {
	return &httpControl{base: base, hc: &http.Client{Timeout: requestTimeout}}
}

// do sends one request and returns the body of a 2xx answer; any other
// answer is an error carrying the control plane's message.
func (h *httpControl) do(ctx context.Context, method, path string, body any) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("control plane: %w", err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxControlAnswer))
	if err != nil {
		return nil, fmt.Errorf("control plane: %s %s: reading the answer: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(data))
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		return nil, fmt.Errorf("control plane: %s %s: %s: %s", method, path, resp.Status, msg)
	}
	return data, nil
}

func sessionPath(session, rest string) string {
	return "/control/sessions/" + url.PathEscape(session) + rest
}

func (h *httpControl) sessions(ctx context.Context) ([]serve.SessionInfo, error) {
	b, err := h.do(ctx, http.MethodGet, "/control/sessions", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Sessions []serve.SessionInfo `json:"sessions"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("control plane: GET /control/sessions: %w", err)
	}
	return list.Sessions, nil
}

func (h *httpControl) state(ctx context.Context, session string) ([]byte, error) {
	return h.do(ctx, http.MethodGet, sessionPath(session, "/state"), nil)
}

func (h *httpControl) journal(ctx context.Context, session string) ([]byte, error) {
	return h.do(ctx, http.MethodGet, sessionPath(session, "/journal"), nil)
}

func (h *httpControl) violations(ctx context.Context, session string) ([]engine.Violation, error) {
	b, err := h.do(ctx, http.MethodGet, sessionPath(session, "/invariants"), nil)
	if err != nil {
		return nil, err
	}
	var v struct {
		Violations []engine.Violation `json:"violations"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("control plane: invariants of %s: %w", session, err)
	}
	return v.Violations, nil
}

func (h *httpControl) reset(ctx context.Context, session string, seed *uint64) error {
	_, err := h.do(ctx, http.MethodPost, sessionPath(session, "/reset"), map[string]any{"seed": seed})
	return err
}

func (h *httpControl) setFaults(ctx context.Context, profile string) error {
	_, err := h.do(ctx, http.MethodPost, "/control/faults", map[string]string{"profile": profile})
	return err
}

// The in-process world answers the same questions from its one session.

func (l *localWorld) check(session string) error {
	if session != LocalSession && session != Latest {
		return fmt.Errorf("no session %q: an in-process world has one session, %q (or %q)", session, LocalSession, Latest)
	}
	return nil
}

func (l *localWorld) sessions(context.Context) ([]serve.SessionInfo, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return []serve.SessionInfo{{
		ID: LocalSession, Key: localKey, Seed: l.sess.Base().Seed(), Calls: l.sess.Calls(),
		Profile: l.sess.Profile().Name, Created: l.created,
	}}, nil
}

func (l *localWorld) state(_ context.Context, session string) ([]byte, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess.StateJSON(), nil
}

func (l *localWorld) journal(_ context.Context, session string) ([]byte, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	var b bytes.Buffer
	err := l.sess.WriteJournal(&b)
	return b.Bytes(), err
}

func (l *localWorld) violations(_ context.Context, session string) ([]engine.Violation, error) {
	if err := l.check(session); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess.CheckInvariants()
}

func (l *localWorld) reset(_ context.Context, session string, seed *uint64) error {
	if err := l.check(session); err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	base := l.base
	if seed != nil && *seed != base.Seed() {
		b, err := l.world.Seed(*seed)
		if err != nil {
			return err
		}
		base = b
	}
	l.base = base
	l.sess = base.NewSession(localKey, l.sess.Profile())
	return nil
}

func (l *localWorld) setFaults(_ context.Context, profile string) error {
	p := l.world.Profile(profile)
	if p == nil {
		return fmt.Errorf("world %s has no fault profile %q (it has %s)", l.world.Name, profile, profileNames(l.world))
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.profile = p
	l.sess.SetProfile(p)
	return nil
}
