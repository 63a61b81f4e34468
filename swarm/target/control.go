package target

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
)

// maxControlAnswer bounds what a client reads from a control plane answer:
// a state or journal of one episode is kilobytes; a world's whole state a
// few megabytes.
const maxControlAnswer = 64 << 20

// Control is a client of a herd server's control plane (docs/serve.md):
// the swarm's, and herdtest's for a served world. Its methods are safe for
// concurrent use.
type Control struct {
	base string // http://HOST:PORT/control
	hc   *http.Client
}

// NewControl returns a client of the control plane at base
// (http://HOST:PORT/control). hc carries any auth header.
func NewControl(base string, hc *http.Client) *Control {
	return &Control{base: strings.TrimSuffix(base, "/"), hc: hc}
}

// WorldInfo is what GET /control/world says about the served world: the
// server's own document type, so client and server cannot disagree on it.
type WorldInfo = serve.WorldDoc

// World reads GET /control/world.
func (c *Control) World(ctx context.Context) (WorldInfo, error) {
	var w WorldInfo
	b, err := c.do(ctx, http.MethodGet, "/world", nil)
	if err != nil {
		return w, err
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return w, fmt.Errorf("control plane %s/world: not a herd world document: %v", c.base, err)
	}
	if w.World == "" || w.Hash == "" {
		return w, fmt.Errorf("control plane %s/world: not a herd world document (no world name or hash)", c.base)
	}
	return w, nil
}

// Reset is the body of POST /control/sessions/{id}/reset.
type Reset struct {
	Seed uint64 `json:"seed"`
	Key  uint64 `json:"key"`
	Goal string `json:"goal,omitempty"`
	Rnd  uint64 `json:"rnd"`
	// ReturnJournal asks for the journal the reset drops (ResetAnswer.Journal).
	ReturnJournal bool `json:"return_journal,omitempty"`
}

// ResetAnswer is what a reset answers: the session and the attempt begun.
type ResetAnswer struct {
	ID     string `json:"id"`
	Key    uint64 `json:"key"`
	Seed   uint64 `json:"seed"`
	Goal   string `json:"goal"`
	Target string `json:"target"`
	// Journal is the session's journal before the reset, a line a value
	// (with Reset.ReturnJournal; nil from a herd too old to send it).
	Journal []json.RawMessage `json:"journal"`
}

// meta is r as a tool call's _meta carries it (serve.ResetMeta).
func (r Reset) meta() serve.MetaReset {
	return serve.MetaReset{
		Seed: strconv.FormatUint(r.Seed, 10), Key: strconv.FormatUint(r.Key, 10),
		Goal: r.Goal, Rnd: strconv.FormatUint(r.Rnd, 10), ReturnJournal: r.ReturnJournal,
	}
}

// metaResetAnswer is a result's _meta[serve.ResetMeta], read.
type metaResetAnswer struct {
	Goal, Target string
	Journal      []servedCall
}

// readMetaReset reads the answer to the reset asked in a call's _meta from
// the result's _meta (as the SDK decoded it), checking it is that reset's.
func readMetaReset(meta mcp.Meta, asked *Reset) (metaResetAnswer, error) {
	var a metaResetAnswer
	v, ok := meta[serve.ResetMeta]
	if !ok {
		return a, fmt.Errorf("the answer has no _meta %q (is this herd too old to reset with a call?)", serve.ResetMeta)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return a, fmt.Errorf("_meta %q: want an object, got %T", serve.ResetMeta, v)
	}
	str := func(name string) string { s, _ := m[name].(string); return s }
	seed, key := str("seed"), str("key")
	if seed != strconv.FormatUint(asked.Seed, 10) || key != strconv.FormatUint(asked.Key, 10) {
		return a, fmt.Errorf("_meta %q: asked for seed %d key %d, got seed %q key %q", serve.ResetMeta, asked.Seed, asked.Key, seed, key)
	}
	a.Goal, a.Target = str("goal"), str("target")
	if asked.ReturnJournal {
		j, ok := m["journal"]
		if !ok {
			return a, fmt.Errorf("_meta %q: no journal in the answer", serve.ResetMeta)
		}
		var err error
		if a.Journal, err = callsFromMeta(j); err != nil {
			return a, fmt.Errorf("_meta %q: %w", serve.ResetMeta, err)
		}
	}
	return a, nil
}

// Reset starts session id over: seed, key and the goal's attempt.
func (c *Control) Reset(ctx context.Context, id string, r Reset) (ResetAnswer, error) {
	var a ResetAnswer
	body, _ := json.Marshal(r)
	b, err := c.do(ctx, http.MethodPost, sessionPath(id, "/reset"), body)
	if err != nil {
		return a, err
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return a, fmt.Errorf("control plane reset of session %s: %v", id, err)
	}
	if a.Key != r.Key || a.Seed != r.Seed {
		return a, fmt.Errorf("control plane reset of session %s: asked for seed %d key %d, got seed %d key %d (is this herd too old to reset by key?)", id, r.Seed, r.Key, a.Seed, a.Key)
	}
	if r.ReturnJournal && a.Journal == nil {
		return a, fmt.Errorf("control plane reset of session %s: no journal in the answer (is this herd too old to return it?)", id)
	}
	return a, nil
}

// ResetSeed starts session id over on the records of seed, under its own
// key and with no goal begun: a clean world for a test's next case.
func (c *Control) ResetSeed(ctx context.Context, id string, seed uint64) error {
	body, _ := json.Marshal(map[string]uint64{"seed": seed})
	_, err := c.do(ctx, http.MethodPost, sessionPath(id, "/reset"), body)
	return err
}

// Sessions lists the server's sessions, oldest first.
func (c *Control) Sessions(ctx context.Context) ([]serve.SessionInfo, error) {
	b, err := c.do(ctx, http.MethodGet, "/sessions", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Sessions []serve.SessionInfo `json:"sessions"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("control plane %s/sessions: %v", c.base, err)
	}
	return list.Sessions, nil
}

// Journal reads session id's journal (NDJSON).
func (c *Control) Journal(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, sessionPath(id, "/journal"), nil)
}

// State reads session id's records (canonical JSON).
func (c *Control) State(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, sessionPath(id, "/state"), nil)
}

// Changes reads what session id changed (canonical JSON, docs/serve.md).
func (c *Control) Changes(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, sessionPath(id, "/changes"), nil)
}

// Invariants checks the world's invariants on session id's records.
func (c *Control) Invariants(ctx context.Context, id string) ([]engine.Violation, error) {
	b, err := c.do(ctx, http.MethodGet, sessionPath(id, "/invariants"), nil)
	if err != nil {
		return nil, err
	}
	var v struct {
		Violations []engine.Violation `json:"violations"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("control plane: invariants of session %s: %v", id, err)
	}
	return v.Violations, nil
}

func sessionPath(id, rest string) string { return "/sessions/" + url.PathEscape(id) + rest }

// SetFaults switches the server's fault profile.
func (c *Control) SetFaults(ctx context.Context, profile string) error {
	body, _ := json.Marshal(map[string]string{"profile": profile})
	_, err := c.do(ctx, http.MethodPost, "/faults", body)
	return err
}

func (c *Control) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("control plane %s %s: %w", method, c.base+path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxControlAnswer))
	if err != nil {
		return nil, fmt.Errorf("control plane %s %s: reading the answer: %w", method, c.base+path, err)
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Error string `json:"error"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		if len(msg) > 300 {
			msg = strings.ToValidUTF8(msg[:300], "") + "…" // not half a character
		}
		return nil, fmt.Errorf("control plane %s %s: %s: %s", method, c.base+path, resp.Status, msg)
	}
	return b, nil
}
