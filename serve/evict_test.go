package serve

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/control"
)

// abandon opens a session over plain HTTP as a client that never sends
// DELETE does (the TypeScript SDK's close(), the Inspector): initialize,
// initialized, one tool call, then nothing. It returns the session id.
func abandon(t *testing.T, hc *http.Client, base string) string {
	t.Helper()
	m := &rawMCP{t: t, hc: hc, url: base + control.MCPPath}
	code, body, h := m.post([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"abandoner","version":"0"}}}`), nil)
	if code != http.StatusOK {
		t.Fatalf("initialize: %d %s", code, body)
	}
	m.sid = h.Get("Mcp-Session-Id")
	if m.sid == "" {
		t.Fatal("initialize answered no session id")
	}
	if code, body, _ := m.post([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), nil); code != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", code, body)
	}
	code, body = m.rpc("tools/call", map[string]any{"name": "get_contact", "arguments": map[string]any{"id": "c_0001"}})
	if code != http.StatusOK || !strings.Contains(body, `"c_0001"`) {
		t.Fatalf("tools/call: %d %s", code, body)
	}
	return m.sid
}

// TestAbandonedSessionsAreEvicted: 2,000 clients one after another, each
// opening a session and leaving without DELETE, against 100 sessions at
// most: every one is served, the idlest session making room each time.
func TestAbandonedSessionsAreEvicted(t *testing.T) {
	clients, max := 2000, 100
	if raceDetector {
		clients = 300
	}
	s := newTestServer(t, Options{Seed: 42, MaxSessions: max})
	base := startHTTP(t, s)
	hc := pooledClient("")
	start := time.Now()
	var ids []string
	for i := range clients {
		id := abandon(t, hc, base)
		if i < 3 {
			ids = append(ids, id)
		}
	}
	t.Logf("%d connect-and-abandon clients against --max-sessions %d in %v", clients, max, time.Since(start).Round(time.Millisecond))
	var doc control.WorldDoc
	mustJSON(t, hc, base+"/control/world", &doc)
	n := doc.Sessions
	if n == nil || n.Live > max || n.Evicted != clients-max || n.Kept > 2*max {
		t.Fatalf("session counts: %+v, want at most %d live, %d evicted, at most %d kept", n, max, clients-max, 2*max)
	}
	// The oldest were evicted and then pushed out of the kept ones.
	if code, _ := getBody(t, hc, base+"/control/sessions/"+ids[0]); code != http.StatusNotFound {
		t.Fatalf("the first abandoned session is still kept (%d)", code)
	}
	var list struct{ Sessions []control.SessionInfo }
	mustJSON(t, hc, base+"/control/sessions", &list)
	ended := 0
	for _, info := range list.Sessions {
		switch info.Ended {
		case "evicted":
			ended++
			if info.Calls != 1 || !info.Closed {
				t.Fatalf("evicted session %s: %+v", info.ID, info)
			}
		case "":
		default:
			t.Fatalf("session %s ended %q, want evicted", info.ID, info.Ended)
		}
	}
	if ended != max {
		t.Fatalf("%d evicted sessions kept, want %d", ended, max)
	}
}

// TestIdleTimeout: a session with no request for the idle timeout is closed
// (its world stays readable, counted as timed out); one whose request is
// still in flight is not, however long it takes.
func TestIdleTimeout(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42, IdleTimeout: 150 * time.Millisecond})
	base := startHTTP(t, s)
	hc := pooledClient("")
	idle := abandon(t, hc, base)
	busy := abandon(t, hc, base)
	wb := s.sessions.lookup(busy)
	wb.begin(time.Now()) // as if a call were still running
	waitClosed(t, hc, base, idle)
	var info control.SessionInfo
	mustJSON(t, hc, base+"/control/sessions/"+idle, &info)
	if info.Ended != "idle" || info.Calls != 1 {
		t.Fatalf("idle session: %+v", info)
	}
	time.Sleep(300 * time.Millisecond)
	mustJSON(t, hc, base+"/control/sessions/"+busy, &info)
	if info.Closed {
		t.Fatalf("a session with a request in flight was timed out: %+v", info)
	}
	wb.done(time.Now())
	waitClosed(t, hc, base, busy)
	var doc control.WorldDoc
	mustJSON(t, hc, base+"/control/world", &doc)
	if n := doc.Sessions; n == nil || n.TimedOut != 2 || n.Evicted != 0 || n.Live != 0 {
		t.Fatalf("session counts: %+v", n)
	}
	// Its world answers as before: the end state is still there to assert on.
	if code, body := getBody(t, hc, base+"/control/sessions/"+idle+"/journal"); code != http.StatusOK || strings.Count(string(body), "\n") != 1 {
		t.Fatalf("journal of the timed-out session: %d %s", code, body)
	}
}

// TestEndedSessionsKeptByEndOrder: once more sessions have ended than are
// kept, the ones that ended first go — not the first created: a session
// kept open for hours that has just ended is the one a test reads next.
func TestEndedSessionsKeptByEndOrder(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42, MaxSessions: 2})
	ended := func(name string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			if ws := s.sessions.lookup(name); ws != nil && ws.closed.Load() {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("session %s not ended after 5s", name)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	long := connectMemory(t, s, "long")
	x := connectMemory(t, s, "x")
	_ = x.Close()
	ended("x")
	y := connectMemory(t, s, "y")
	_ = y.Close()
	ended("y")
	_ = long.Close()
	ended("long")
	var names []string
	for _, info := range s.Sessions() {
		names = append(names, info.ID)
	}
	if strings.Join(names, ",") != "long,y" {
		t.Fatalf("kept %v, want long and y (x ended first)", names)
	}
}
