package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/herd-sh/herd/control"
)

// A JSON-RPC batch before initialize is refused with an invalid-request
// error and opens no session, whatever it holds and whatever protocol
// header comes with it: no MCP version allows one there.
func TestBatchBeforeInitializeIsRefused(t *testing.T) {
	s := newTestServer(t, Options{Seed: 1})
	base := startHTTP(t, s)
	m := &rawMCP{t: t, hc: pooledClient(""), url: base + control.MCPPath}
	init := func(id int) map[string]any {
		return map[string]any{"jsonrpc": "2.0", "id": id, "method": "initialize", "params": map[string]any{
			"protocolVersion": "2025-03-26", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}}}
	}
	batch, _ := json.Marshal([]any{init(1), init(2)})
	for _, header := range []string{"", "2025-03-26", "2025-11-25"} {
		code, body, h := m.post(append([]byte("  \n"), batch...), func(r *http.Request) {
			r.Header.Del("MCP-Protocol-Version")
			if header != "" {
				r.Header.Set("MCP-Protocol-Version", header)
			}
		})
		if code != http.StatusBadRequest || h.Get("Mcp-Session-Id") != "" {
			t.Fatalf("version header %q: status %d, session %q: %s", header, code, h.Get("Mcp-Session-Id"), body)
		}
		a := decodeAnswer(t, body)
		if a.Error == nil || a.Error.Code != -32600 || !strings.Contains(a.Error.Message, "batch before initialize") {
			t.Fatalf("version header %q: want JSON-RPC error -32600 about the batch, got %s", header, body)
		}
	}
	if n := len(s.sessions.list()); n != 0 {
		t.Fatalf("%d sessions opened by refused batches", n)
	}
	// A single initialize still opens a session.
	m.handshake()
}

// Host names are case-insensitive: "LOCALHOST" is loopback on /mcp as it
// is on /control.
func TestUppercaseLocalhostIsLoopbackOnEveryPath(t *testing.T) {
	s := newTestServer(t, Options{Seed: 1})
	base := startHTTP(t, s)
	port := base[strings.LastIndex(base, ":")+1:]
	m := &rawMCP{t: t, hc: pooledClient(""), url: base + control.MCPPath}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "0"}}})
	for _, host := range []string{"LOCALHOST:" + port, "LocalHost:" + port} {
		code, body, _ := m.post(b, func(r *http.Request) { r.Host = host })
		if code != http.StatusOK {
			t.Errorf("POST /mcp with Host %s: %d %s", host, code, body)
		}
		req, _ := http.NewRequest(http.MethodGet, base+"/control/world", nil)
		req.Host = host
		resp, err := m.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET /control/world with Host %s: %d", host, resp.StatusCode)
		}
	}
	// And a name that is not loopback is still refused on /mcp.
	code, body, _ := m.post(b, func(r *http.Request) { r.Host = "LOCALHOST.evil.example:" + port })
	if code != http.StatusForbidden {
		t.Errorf("Host LOCALHOST.evil.example: %d %s", code, body)
	}
}
