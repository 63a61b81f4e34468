package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/herd-sh/herd/control"
)

// rawMCP speaks Streamable HTTP by hand, so tests can send what a proper
// client never would.
type rawMCP struct {
	t     *testing.T
	hc    *http.Client
	url   string
	token string
	sid   string
	next  int
}

// post sends body with the headers a client sends; edit may change them.
func (m *rawMCP) post(body []byte, edit func(*http.Request)) (int, string, http.Header) {
	m.t.Helper()
	req, err := http.NewRequest(http.MethodPost, m.url, bytes.NewReader(body))
	if err != nil {
		m.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	if m.token != "" {
		req.Header.Set("Authorization", "Bearer "+m.token)
	}
	if m.sid != "" {
		req.Header.Set("Mcp-Session-Id", m.sid)
	}
	if edit != nil {
		edit(req)
	}
	resp, err := m.hc.Do(req)
	if err != nil {
		m.t.Fatalf("POST: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// rpc sends one JSON-RPC request and returns the status and body.
func (m *rawMCP) rpc(method string, params any) (int, string) {
	m.t.Helper()
	m.next++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.next, "method": method, "params": params})
	if err != nil {
		m.t.Fatal(err)
	}
	code, body, _ := m.post(b, nil)
	return code, body
}

// handshake initializes a session.
func (m *rawMCP) handshake() {
	m.t.Helper()
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"},
	}})
	code, body, h := m.post(b, func(r *http.Request) { r.Header.Del("MCP-Protocol-Version") })
	if code != http.StatusOK {
		m.t.Fatalf("initialize: %d %s", code, body)
	}
	m.sid = h.Get("Mcp-Session-Id")
	if m.sid == "" {
		m.t.Fatal("initialize: no Mcp-Session-Id")
	}
	code, body, _ = m.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil)
	if code != http.StatusAccepted {
		m.t.Fatalf("initialized: %d %s", code, body)
	}
}

// toolCall calls a tool and decodes the JSON-RPC answer.
func (m *rawMCP) toolCall(name string, args any) rpcAnswer {
	m.t.Helper()
	code, body := m.rpc("tools/call", map[string]any{"name": name, "arguments": args})
	if code != http.StatusOK {
		m.t.Fatalf("tools/call %s: HTTP %d %s", name, code, body)
	}
	return decodeAnswer(m.t, body)
}

type rpcAnswer struct {
	Result *struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	} `json:"result"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func decodeAnswer(t *testing.T, body string) rpcAnswer {
	t.Helper()
	var a rpcAnswer
	if err := json.Unmarshal([]byte(body), &a); err != nil {
		t.Fatalf("answer is not JSON-RPC: %v: %s", err, body)
	}
	return a
}

// TestBadInput sends malformed and hostile requests over HTTP. Each gets the
// right kind of error, and the server keeps serving the same session.
func TestBadInput(t *testing.T) {
	const token = "tok-123"
	s := newTestServer(t, Options{Seed: 42, Token: token})
	base := startHTTP(t, s)
	m := &rawMCP{t: t, hc: pooledClient(""), url: base + control.MCPPath, token: token}
	m.handshake()

	call := func(name string, args any) func(*testing.T) (int, string) {
		return func(t *testing.T) (int, string) {
			m.next++
			b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.next, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
			code, body, _ := m.post(b, nil)
			return code, body
		}
	}
	raw := func(body string, edit func(*http.Request)) func(*testing.T) (int, string) {
		return func(t *testing.T) (int, string) {
			code, b, _ := m.post([]byte(body), edit)
			return code, b
		}
	}
	huge := strings.Repeat("x", 2*MaxRequestBytes)
	big := strings.Repeat("y", 200_000)

	cases := []struct {
		name string
		send func(*testing.T) (int, string)
		// want: HTTP status, and then one of: a tool error code, a
		// JSON-RPC error code, or text in a plain HTTP error body.
		status   int
		toolCode string
		rpcCode  int
		contains string
	}{
		{"wrong type", call("get_contact", map[string]any{"id": 42}), 200, "invalid_argument", 0, `argument \"id\": want a string, got a number`},
		{"wrong type enum", call("list_contacts", map[string]any{"stage": true}), 200, "invalid_argument", 0, `argument \"stage\"`},
		{"missing required", call("search_contacts", map[string]any{}), 200, "invalid_argument", 0, `missing required argument \"query\"`},
		{"extra field", call("get_contact", map[string]any{"id": "c_0001", "force": true}), 200, "invalid_argument", 0, `unknown argument \"force\"`},
		{"out of range", call("list_contacts", map[string]any{"limit": 0}), 200, "invalid_argument", 0, "below the minimum"},
		{"nested object", call("get_contact", map[string]any{"id": map[string]any{"$ne": ""}}), 200, "invalid_argument", 0, "got an object"},
		{"huge string under the body limit", call("search_contacts", map[string]any{"query": big}), 200, "invalid_argument", 0, "too long"},
		{"body over 1 MiB", call("search_contacts", map[string]any{"query": huge}), 413, "", 0, fmt.Sprintf("request body exceeds %d bytes", MaxRequestBytes)},
		{"arguments not an object", call("get_contact", []any{"c_0001"}), 200, "", -32602, "arguments must be a JSON object"},
		{"unknown tool", call("drop_table", map[string]any{}), 200, "", -32602, `unknown tool \"drop_table\"`},
		{"unknown method", raw(`{"jsonrpc":"2.0","id":99,"method":"tools/explode","params":{}}`, nil), 400, "", 0, "tools/explode"},
		{"invalid JSON", raw(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`, nil), 400, "", 0, "malformed payload"},
		{"not JSON-RPC", raw(`{"hello":"world"}`, nil), 400, "", 0, "malformed payload"},
		{"empty body", raw(``, nil), 400, "", 0, "non-empty body"},
		{"wrong session id", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Header.Set("Mcp-Session-Id", "not-a-session") }), 404, "", 0, "session not found"},
		{"no token", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Header.Del("Authorization") }), 401, "", 0, "send Authorization: Bearer"},
		{"bad token", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Header.Set("Authorization", "Bearer guess") }), 401, "", 0, "wrong bearer token"},
		{"foreign Origin", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Header.Set("Origin", "https://evil.example") }), 403, "", 0, `Origin "https://evil.example" is not allowed`},
		{"rebound Host", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Host = "evil.example:80" }), 403, "", 0, "not loopback"},
		{"wrong content type", raw(`{"jsonrpc":"2.0","id":5,"method":"tools/list"}`, func(r *http.Request) { r.Header.Set("Content-Type", "text/plain") }), 415, "", 0, "application/json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			m.t = t
			status, body := tc.send(t)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %.300s", status, tc.status, body)
			}
			switch {
			case tc.toolCode != "":
				a := decodeAnswer(t, body)
				if a.Result == nil || !a.Result.IsError || len(a.Result.Content) != 1 {
					t.Fatalf("want an isError tool result, got %.300s", body)
				}
				if got := errorCode(t, a.Result.Content[0].Text); got != tc.toolCode {
					t.Fatalf("tool error %q, want %q: %s", got, tc.toolCode, a.Result.Content[0].Text)
				}
				if string(a.Result.StructuredContent) != a.Result.Content[0].Text {
					t.Fatalf("structuredContent %s differs from text %s", a.Result.StructuredContent, a.Result.Content[0].Text)
				}
			case tc.rpcCode != 0:
				a := decodeAnswer(t, body)
				if a.Error == nil || a.Error.Code != tc.rpcCode {
					t.Fatalf("want JSON-RPC error %d, got %.300s", tc.rpcCode, body)
				}
			}
			if !strings.Contains(body, tc.contains) {
				t.Fatalf("answer lacks %q: %.300s", tc.contains, body)
			}
			// The server, and this very session, keep serving.
			a := m.toolCall("get_contact", map[string]any{"id": "c_0002"})
			if a.Result == nil || a.Result.IsError {
				t.Fatalf("session broken after %s: %+v", tc.name, a)
			}
		})
	}
	m.t = t

	// Only calls that reached a tool are in the journal: tool errors count,
	// protocol errors do not.
	ws := s.sessions.lookup(m.sid)
	var wantCalls int
	for _, tc := range cases {
		if tc.toolCode != "" {
			wantCalls++
		}
	}
	wantCalls += len(cases) // one good call after each case
	if got := ws.info().Calls; got != wantCalls {
		t.Fatalf("engine saw %d calls, want %d", got, wantCalls)
	}
}

// TestGuardAllowsRemoteWhenAsked: with AllowRemote, a non-loopback Host is
// served, and an Origin equal to it is accepted; a third-party origin is not.
func TestGuardAllowsRemoteWhenAsked(t *testing.T) {
	s := newTestServer(t, Options{Seed: 1, AllowRemote: true, Token: "t"})
	base := startHTTP(t, s)
	hc := pooledClient("t")
	for _, tc := range []struct {
		host, origin string
		want         int
	}{
		{"herd.internal:8931", "", 200},
		{"herd.internal:8931", "http://herd.internal:8931", 200},
		{"herd.internal:8931", "http://localhost:6274", 200},
		{"herd.internal:8931", "https://evil.example", 403},
	} {
		req, _ := http.NewRequest(http.MethodGet, base+"/control/world", nil)
		req.Host = tc.host
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host %s Origin %q: %d, want %d", tc.host, tc.origin, resp.StatusCode, tc.want)
		}
	}
}

func TestCheckListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		want   string
		err    string
	}{
		{"127.0.0.1:8931", false, "127.0.0.1:8931", ""},
		{":8931", false, "127.0.0.1:8931", ""},
		{"8931", false, "127.0.0.1:8931", ""},
		{"localhost:0", false, "localhost:0", ""},
		{"[::1]:8931", false, "[::1]:8931", ""},
		{"127.0.0.2:1", false, "127.0.0.2:1", ""},
		{"0.0.0.0:8931", false, "", "not loopback"},
		{"192.168.1.5:8931", false, "", "AllowRemote: address \"192.168.1.5:8931\" is not loopback"},
		{"example.com:80", false, "", "not loopback"},
		{"0.0.0.0:8931", true, "0.0.0.0:8931", ""},
		{"127.0.0.1", false, "", "want HOST:PORT"},
		{"127.0.0.1:", false, "", "no port"},
	} {
		got, err := CheckListenAddr(tc.addr, tc.remote)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("CheckListenAddr(%q, %v) = %q, %v; want error %q", tc.addr, tc.remote, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("CheckListenAddr(%q, %v) = %q, %v; want %q", tc.addr, tc.remote, got, err, tc.want)
		}
	}
}

// TestCORSForLoopbackPages: a page on a loopback origin (the MCP Inspector)
// gets its preflight answered without a token and CORS headers on answers;
// a foreign page gets neither.
func TestCORSForLoopbackPages(t *testing.T) {
	s := newTestServer(t, Options{Seed: 1, Token: "t"})
	base := startHTTP(t, s)
	hc := pooledClient("")
	for _, tc := range []struct {
		origin string
		want   int
	}{{"http://localhost:6274", http.StatusNoContent}, {"https://evil.example", http.StatusForbidden}} {
		req, _ := http.NewRequest(http.MethodOptions, base+control.MCPPath, nil)
		req.Header.Set("Origin", tc.origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type, mcp-session-id, authorization")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		allow := resp.Header.Get("Access-Control-Allow-Origin")
		if resp.StatusCode != tc.want || (tc.want == http.StatusNoContent) != (allow == tc.origin) {
			t.Errorf("preflight from %s: %d, Allow-Origin %q", tc.origin, resp.StatusCode, allow)
		}
	}
	// The real request still needs the token, and carries CORS headers.
	req, _ := http.NewRequest(http.MethodGet, base+"/control/world", nil)
	req.Header.Set("Origin", "http://127.0.0.1:6274")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("Access-Control-Allow-Origin") != "http://127.0.0.1:6274" {
		t.Fatalf("tokenless request from a loopback page: %d, Allow-Origin %q", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"))
	}
}
