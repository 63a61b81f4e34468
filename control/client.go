package control

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

	"github.com/herd-sh/herd/engine"
)

// MaxAnswer bounds what a client reads from a control plane answer:
// a state or journal of one episode is kilobytes; a world's whole state a
// few megabytes.
const MaxAnswer = 64 << 20

// Client is a client of a herd server's control plane (docs/serve.md):
// the swarm's, and herdtest's for a served world. Its methods are safe for
// concurrent use.
type Client struct {
	base string // http://HOST:PORT/control
	hc   *http.Client
}

// NewClient returns a client of the control plane at base
// (http://HOST:PORT/control). hc carries any auth header.
func NewClient(base string, hc *http.Client) *Client {
	return &Client{base: strings.TrimSuffix(base, "/"), hc: hc}
}

// URL is the control plane next to an MCP endpoint: /control on the same
// scheme and host.
func URL(mcpURL *url.URL) string {
	u := url.URL{Scheme: mcpURL.Scheme, Host: mcpURL.Host, Path: Path}
	return u.String()
}

// World reads GET /control/world.
func (c *Client) World(ctx context.Context) (WorldDoc, error) {
	var w WorldDoc
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

// Reset starts session id over: seed, key and the goal's attempt.
func (c *Client) Reset(ctx context.Context, id string, r Reset) (ResetAnswer, error) {
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
func (c *Client) ResetSeed(ctx context.Context, id string, seed uint64) error {
	body, _ := json.Marshal(map[string]uint64{"seed": seed})
	_, err := c.do(ctx, http.MethodPost, sessionPath(id, "/reset"), body)
	return err
}

// Sessions lists the server's sessions, oldest first.
func (c *Client) Sessions(ctx context.Context) ([]SessionInfo, error) {
	b, err := c.do(ctx, http.MethodGet, "/sessions", nil)
	if err != nil {
		return nil, err
	}
	var list struct {
		Sessions []SessionInfo `json:"sessions"`
	}
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("control plane %s/sessions: %v", c.base, err)
	}
	return list.Sessions, nil
}

// Journal reads session id's journal (NDJSON): the calls it holds, the
// latest ones once its journal limit has dropped older ones (JournalTail
// says how many).
func (c *Client) Journal(ctx context.Context, id string) ([]byte, error) {
	b, _, err := c.JournalTail(ctx, id)
	return b, err
}

// JournalTail reads session id's journal (NDJSON) and how many older calls
// its journal limit dropped (0 from a herd too old to say).
func (c *Client) JournalTail(ctx context.Context, id string) (ndjson []byte, dropped int, err error) {
	b, h, err := c.doHeader(ctx, http.MethodGet, sessionPath(id, "/journal"), nil)
	if err != nil {
		return nil, 0, err
	}
	if v := h.Get(JournalDroppedHeader); v != "" {
		if dropped, err = strconv.Atoi(v); err != nil || dropped < 0 {
			return nil, 0, fmt.Errorf("control plane: journal of session %s: header %s is %q, want a count", id, JournalDroppedHeader, v)
		}
	}
	return b, dropped, nil
}

// State reads session id's records (canonical JSON).
func (c *Client) State(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, sessionPath(id, "/state"), nil)
}

// Changes reads what session id changed (canonical JSON, docs/serve.md).
func (c *Client) Changes(ctx context.Context, id string) ([]byte, error) {
	return c.do(ctx, http.MethodGet, sessionPath(id, "/changes"), nil)
}

// Invariants checks the world's invariants on session id's records.
func (c *Client) Invariants(ctx context.Context, id string) ([]engine.Violation, error) {
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
func (c *Client) SetFaults(ctx context.Context, profile string) error {
	body, _ := json.Marshal(map[string]string{"profile": profile})
	_, err := c.do(ctx, http.MethodPost, "/faults", body)
	return err
}

func (c *Client) do(ctx context.Context, method, path string, body []byte) ([]byte, error) {
	b, _, err := c.doHeader(ctx, method, path, body)
	return b, err
}

// doHeader is do with the answer's header.
func (c *Client) doHeader(ctx context.Context, method, path string, body []byte) ([]byte, http.Header, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("control plane %s %s: %w", method, c.base+path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	if err != nil {
		return nil, nil, fmt.Errorf("control plane %s %s: reading the answer: %w", method, c.base+path, err)
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
		return nil, nil, fmt.Errorf("control plane %s %s: %s: %s", method, c.base+path, resp.Status, msg)
	}
	return b, resp.Header, nil
}
