package serve

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

func loadLedger(t *testing.T) *engine.World {
	t.Helper()
	w, err := engine.LoadFile("testdata/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// timedCall calls a tool and returns how long it took for real.
func timedCall(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool, time.Duration) {
	t.Helper()
	start := time.Now()
	text, isErr := call(t, cs, tool, args)
	return text, isErr, time.Since(start)
}

// TestServedFaultsAreReal: a served world sleeps latencies and timeouts for
// real (capped by MaxFaultWait) and commits before a timeout_after_commit.
func TestServedFaultsAreReal(t *testing.T) {
	w := loadLedger(t)

	t.Run("latency", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "slow", MaxFaultWait: time.Second})
		cs := connectMemory(t, s, "m")
		if _, isErr, took := timedCall(t, cs, "get_account", map[string]any{"id": "a_0001"}); isErr || took < 40*time.Millisecond {
			t.Fatalf("call took %v (error %v), want at least the 40ms latency", took, isErr)
		}
	})

	t.Run("timeout waits, then fails", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "timeouts", MaxFaultWait: time.Second})
		cs := connectMemory(t, s, "m")
		text, isErr, took := timedCall(t, cs, "credit", map[string]any{"id": "a_0001", "amount": 5})
		if !isErr || errorCode(t, text) != "timeout" || took < 60*time.Millisecond {
			t.Fatalf("got %s after %v, want a timeout after at least 60ms", text, took)
		}
		if b := balance(t, s, "m", "a_0001"); b != 100 {
			t.Fatalf("a timed-out credit changed the balance to %d", b)
		}
	})

	t.Run("wait is capped", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "glacial", MaxFaultWait: 30 * time.Millisecond})
		cs := connectMemory(t, s, "m")
		_, isErr, took := timedCall(t, cs, "get_account", map[string]any{"id": "a_0001"})
		if isErr || took < 30*time.Millisecond || took > 5*time.Second {
			t.Fatalf("call took %v, want the 30ms cap, not the 10s latency", took)
		}
	})

	t.Run("timeout after commit", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "commit_timeouts", MaxFaultWait: time.Second})
		cs := connectMemory(t, s, "m")
		text, isErr, took := timedCall(t, cs, "credit", map[string]any{"id": "a_0002", "amount": 7})
		if !isErr || errorCode(t, text) != "timeout" || took < 30*time.Millisecond {
			t.Fatalf("got %s after %v, want a timeout after 30ms", text, took)
		}
		if b := balance(t, s, "m", "a_0002"); b != 107 {
			t.Fatalf("balance %d: the write should have landed before the timeout", b)
		}
		// The naive retry: the credit lands twice.
		call(t, cs, "credit", map[string]any{"id": "a_0002", "amount": 7})
		if b := balance(t, s, "m", "a_0002"); b != 114 {
			t.Fatalf("balance %d after a retry, want 114", b)
		}
	})

	t.Run("retry-after counts real waiting", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "limited"})
		cs := connectMemory(t, s, "m")
		text, _ := call(t, cs, "get_account", map[string]any{"id": "a_0001"})
		var e toolError
		if err := json.Unmarshal([]byte(text), &e); err != nil || e.Error.Code != "rate_limited" || e.Error.RetryAfterMS != 150 {
			t.Fatalf("want rate_limited with retry_after_ms 150, got %s", text)
		}
		call(t, cs, "get_account", map[string]any{"id": "a_0001"}) // too soon
		if n := ignoredRetryAfter(s, "m"); n != 1 {
			t.Fatalf("ignored retry-after %d times, want 1", n)
		}
		time.Sleep(150 * time.Millisecond)
		call(t, cs, "get_account", map[string]any{"id": "a_0001"}) // waited: limited again by the dice, not for ignoring
		if n := ignoredRetryAfter(s, "m"); n != 1 {
			t.Fatalf("a client that waited out retry-after was counted as ignoring it (%d)", n)
		}
	})

	t.Run("switching faults mid-session", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, MaxFaultWait: time.Second})
		cs := connectMemory(t, s, "m")
		if _, isErr := call(t, cs, "credit", map[string]any{"id": "a_0003", "amount": 1}); isErr {
			t.Fatal("credit failed with no faults")
		}
		if err := s.SetFaults("timeouts"); err != nil {
			t.Fatal(err)
		}
		if text, isErr := call(t, cs, "credit", map[string]any{"id": "a_0003", "amount": 1}); !isErr || errorCode(t, text) != "timeout" {
			t.Fatalf("after switching to timeouts: %s", text)
		}
		if err := s.SetFaults("nope"); err == nil {
			t.Fatal("SetFaults accepted an unknown profile")
		}
	})

	t.Run("a cancelled call stops waiting", func(t *testing.T) {
		s := newTestServer(t, Options{World: w, Faults: "glacial", MaxFaultWait: time.Minute})
		cs := connectMemory(t, s, "m")
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_account", Arguments: map[string]any{"id": "a_0001"}})
		if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
			t.Fatalf("cancelled call: %v after %v", err, time.Since(start))
		}
		// Close wakes calls still sleeping, so shutdown is prompt.
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_account", Arguments: map[string]any{"id": "a_0001"}})
		}()
		time.Sleep(50 * time.Millisecond)
		s.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Close did not end a call sleeping out a 10s latency")
		}
	})
}

func balance(t *testing.T, s *Server, id, account string) int64 {
	t.Helper()
	ws := s.sessions.lookup(id)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	r := ws.sess.Lookup("account", account)
	if r == nil {
		t.Fatalf("no account %s", account)
	}
	return r.Get("balance").(int64)
}

func ignoredRetryAfter(s *Server, id string) int {
	ws := s.sessions.lookup(id)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.sess.IgnoredRetryAfter()
}
