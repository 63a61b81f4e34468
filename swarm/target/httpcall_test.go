package target

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// A call made without the SDK's client reads every kind of answer a
// Streamable HTTP server gives — a JSON body, an SSE stream with other
// messages first, JSON-RPC errors, HTTP failures, garbage, silence — and
// classes each as the SDK's client path does.
func TestHTTPCallsClassifyAnswers(t *testing.T) {
	type seen struct {
		session, version, method string
		id                       int64
		args                     map[string]any
		meta                     map[string]any
	}
	var mu sync.Mutex // the handler runs on the server's goroutines
	var last seen
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     int64  `json:"id"`
			Method string `json:"method"`
			Params struct {
				Meta map[string]any `json:"_meta"`
				Name string         `json:"name"`
				Args map[string]any `json:"arguments"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(body, &req); err != nil {
			http.Error(w, "bad request body: "+err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		last = seen{r.Header.Get("Mcp-Session-Id"), r.Header.Get("Mcp-Protocol-Version"), req.Method, req.ID, req.Params.Args, req.Params.Meta}
		mu.Unlock()
		answer := func(result string) string {
			return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, req.ID, result)
		}
		ok := answer(`{"content":[{"type":"text","text":"{\"id\":\"c_0001\"}"}],"structuredContent":{"id":"c_0001"},"_meta":{"k":"v"}}`)
		switch req.Params.Name {
		case "json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, ok)
		case "sse":
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hello"}}`)
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", ok)
		case "tool_error":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, answer(`{"content":[{"type":"text","text":"{\"error\":{\"code\":\"not_found\"}}"}],"isError":true}`))
		case "rpc_error":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32602,"message":"unknown tool"}}`, req.ID)
		case "refused":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"error":{"code":-32600,"message":"bad session header"}}`, req.ID)
		case "gone":
			http.Error(w, "session not found", http.StatusNotFound)
		case "busy":
			http.Error(w, "too many sessions", http.StatusServiceUnavailable)
		case "garbage":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, "not json")
		case "wrong_id":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)
		case "silent":
			<-r.Context().Done()
		}
	}))
	defer srv.Close()
	h := newHTTPCallsOf(srv.Client(), srv.URL, "S1", ProtocolVersion)
	for _, c := range []struct {
		tool string
		want Class
	}{
		{"json", ClassOK}, {"sse", ClassOK}, {"tool_error", ClassToolError},
		{"rpc_error", ClassProtocol}, {"refused", ClassProtocol}, {"wrong_id", ClassProtocol},
		{"gone", ClassTransport}, {"busy", ClassTransport}, {"garbage", ClassMalformed}, {"silent", ClassTimeout},
	} {
		a, class, err := h.call(context.Background(), 200*time.Millisecond, c.tool, map[string]any{"id": "c_0001"}, map[string]any{"sh.herd/reset": map[string]any{"seed": "1"}})
		if class != c.want {
			t.Errorf("%s: class %s (%v), want %s", c.tool, class, err, c.want)
			continue
		}
		if (err == nil) != (c.want == ClassOK || c.want == ClassToolError) {
			t.Errorf("%s: error %v", c.tool, err)
		}
		if c.want == ClassOK {
			if sc, _ := a.structured().(map[string]any); sc["id"] != "c_0001" || a.Meta["k"] != "v" {
				t.Errorf("%s: structured %s, meta %v", c.tool, a.Structured, a.Meta)
			}
			if text, err := a.text(); err != nil || string(text) != `{"id":"c_0001"}` {
				t.Errorf("%s: text %q, %v", c.tool, text, err)
			}
		}
	}
	mu.Lock()
	if last.session != "S1" || last.version != ProtocolVersion || last.method != "tools/call" || last.id != firstCallID+10 ||
		last.args["id"] != "c_0001" || last.meta["sh.herd/reset"] == nil {
		t.Errorf("the last request was %+v", last)
	}
	mu.Unlock()
	// A stopped run is not the server's fault.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, class, _ := h.call(ctx, time.Second, "json", nil, nil); class != ClassCancelled {
		t.Errorf("a cancelled call: class %s, want cancelled", class)
	}
	if _, class, err := h.call(context.Background(), time.Second, "gone", nil, nil); !strings.Contains(fmt.Sprint(err), "S1") || class != ClassTransport {
		t.Errorf("a lost session: %s %v", class, err)
	}
}
