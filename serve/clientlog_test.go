package serve

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// TestLoggingSetLevel: the server declares the logging capability (and
// where its control plane is), accepts logging/setLevel, and sends the
// client what happens to its session at the levels it asked for, nothing
// before it asks.
func TestLoggingSetLevel(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42, Faults: "hostile", ControlURL: "http://127.0.0.1:1/control"})
	var mu sync.Mutex
	var got []*mcp.LoggingMessageParams
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "0"}, &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) {
			mu.Lock()
			got = append(got, req.Params)
			mu.Unlock()
		},
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := s.Connect(ctx, st, "mem"); err != nil {
		t.Fatal(err)
	}
	// The protocol the Inspector speaks, where logging/setLevel sets the
	// session's level (from 2026-07-28 each request carries its own).
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	caps := cs.InitializeResult().Capabilities
	if caps.Logging == nil {
		t.Fatal("no logging capability declared")
	}
	raw, _ := json.Marshal(caps.Experimental[control.Capability])
	if string(raw) != `{"url":"http://127.0.0.1:1/control"}` {
		t.Fatalf("control plane announced as %s", raw)
	}
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(got)
	}
	calls := func(n int) {
		for i := range n {
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0001", "n": i}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	calls(5) // bad argument "n": every call is a refused one
	time.Sleep(20 * time.Millisecond)
	if n := count(); n != 0 {
		t.Fatalf("%d log messages before any logging/setLevel", n)
	}

	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "notice"}); err != nil {
		t.Fatalf("logging/setLevel: %v", err)
	}
	calls(3)
	deadline := time.Now().Add(5 * time.Second)
	for count() < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	mu.Lock()
	for _, m := range got {
		d, _ := m.Data.(map[string]any)
		if m.Logger != "herd" || (m.Level != "notice" && m.Level != "warning") || d["session"] != "mem" || d["tool"] != "get_contact" || d["ok"] != false {
			t.Errorf("log message %+v", m)
		}
	}
	n := len(got)
	mu.Unlock()
	if n != 3 {
		t.Fatalf("%d log messages for 3 refused calls at notice", n)
	}

	// At error, a refused call (notice) or a fault (warning) is not sent.
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "error"}); err != nil {
		t.Fatal(err)
	}
	calls(3)
	time.Sleep(20 * time.Millisecond)
	if c := count(); c != n {
		t.Fatalf("%d more log messages at level error", c-n)
	}
}
