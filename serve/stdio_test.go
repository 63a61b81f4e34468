package serve

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// stdioPeer is the client end of ServeStdio over pipes.
type stdioPeer struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func (p *stdioPeer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		p.t.Fatalf("write: %v", err)
	}
}

// recv reads one answer line.
func (p *stdioPeer) recv() map[string]any {
	p.t.Helper()
	type lineOrErr struct {
		line string
		err  error
	}
	ch := make(chan lineOrErr, 1)
	go func() {
		l, err := p.out.ReadString('\n')
		ch <- lineOrErr{l, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			p.t.Fatalf("read: %v", r.err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(r.line), &m); err != nil {
			p.t.Fatalf("answer is not JSON: %v: %q", err, r.line)
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("no answer within 10s")
		return nil
	}
}

// TestStdioSurvivesBadLines sends lines the SDK's own stdio transport would
// end the session on; each gets a JSON-RPC error, and the session goes on.
func TestStdioSurvivesBadLines(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(context.Background(), inR, outW) }()
	p := &stdioPeer{t: t, in: inW, out: bufio.NewReaderSize(outR, 1<<20)}

	wantError := func(m map[string]any, id any, code float64, text string) {
		t.Helper()
		e, _ := m["error"].(map[string]any)
		if m["id"] != id || e == nil || e["code"] != code || !strings.Contains(e["message"].(string), text) {
			t.Fatalf("want error %v %q for id %v, got %v", code, text, id, m)
		}
	}

	p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":`)
	wantError(p.recv(), 1.0, -32700, "not valid JSON")
	p.send(`hello`)
	wantError(p.recv(), nil, -32700, "not valid JSON")
	p.send(`{"hello":"world"}`)
	wantError(p.recv(), nil, -32600, "invalid request")
	p.send(`{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"name":"search_contacts","arguments":{"query":"` + strings.Repeat("z", MaxRequestBytes) + `"}}}`)
	wantError(p.recv(), "big", -32600, "larger than 1048576 bytes")
	p.send(`[{"jsonrpc":"2.0","id":3,"method":"ping"}]`)
	wantError(p.recv(), nil, -32600, "batches are not supported")
	p.send(``) // blank lines are skipped, not answered

	p.send(`{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := p.recv(); m["id"] != 10.0 || m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"get_contact","arguments":{"id":"c_0001"}}}`)
	m := p.recv()
	res, _ := m["result"].(map[string]any)
	if m["id"] != 11.0 || res == nil || res["isError"] == true || !strings.Contains(res["content"].([]any)[0].(map[string]any)["text"].(string), `"id":"c_0001"`) {
		t.Fatalf("get_contact: %v", m)
	}
	p.send(`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"nope","arguments":{}}}`)
	wantError(p.recv(), 12.0, -32602, `unknown tool "nope"`)

	if got := s.Sessions(); len(got) != 1 || got[0].ID != "stdio" || got[0].Calls != 1 {
		t.Fatalf("sessions: %+v", got)
	}

	// Closing stdin ends the session cleanly.
	inW.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not return after stdin closed")
	}
	if got := s.Sessions(); !got[0].Closed {
		t.Fatalf("stdio session not closed: %+v", got[0])
	}
}

// TestStdioStopsOnCancel: cancelling the context (SIGINT in herd serve) ends
// ServeStdio promptly even while stdin stays open.
func TestStdioStopsOnCancel(t *testing.T) {
	s := newTestServer(t, Options{Seed: 42})
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, io.Discard) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeStdio did not stop on cancel")
	}
}

func TestTopLevelID(t *testing.T) {
	for _, tc := range []struct {
		line string
		want any
	}{
		{`{"jsonrpc":"2.0","id":7,"method":"x"`, int64(7)},
		{`{"jsonrpc":"2.0","params":{"id":"inner"},"id":"outer"}`, "outer"},
		{`{"params":{"id":"inner"`, nil},
		{`{"id":1.5}`, nil},
		{`{"id":[7],"method":"x"}`, nil},
		{`[1,2]`, nil},
		{`nonsense`, nil},
	} {
		if got := topLevelID([]byte(tc.line)).Raw(); got != tc.want {
			t.Errorf("topLevelID(%s) = %v (%T), want %v", tc.line, got, got, tc.want)
		}
	}
}

func TestResponseID(t *testing.T) {
	for _, tc := range []struct {
		line string
		want any
		ok   bool
	}{
		{`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"{\"id\":\"c_1\"}"}]}}`, int64(4), true},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"m"}}`, "x", true},
		{`{"jsonrpc":"2.0","id":9,"method":"ping"}`, nil, false},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, nil, false},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"m"}}`, nil, false},
		{`{"jsonrpc":"2.0","id":{"n":4},"result":{}}`, nil, false},
		{`{"jsonrpc":"2.0","result":{},"id":4}`, nil, false},
	} {
		id, ok := responseID([]byte(tc.line))
		if ok != tc.ok || id.Raw() != tc.want {
			t.Errorf("responseID(%s) = %v, %v; want %v, %v", tc.line, id.Raw(), ok, tc.want, tc.ok)
		}
	}
}

// TestStdioAnswersBeforeEOF: requests still running when stdin ends are
// answered before the session closes.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	w := loadLedger(t)
	s := newTestServer(t, Options{World: w, Faults: "slow", MaxFaultWait: time.Second})
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"credit","arguments":{"id":"a_0001","amount":3}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_account","arguments":{"id":"a_0001"}}}`,
	}, "\n") + "\n"
	var out strings.Builder
	start := time.Now()
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	// The two calls were sent without waiting, so MCP lets the server run
	// them concurrently: both are answered, in either order.
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.Contains(out.String(), `"id":2,"result"`) || !strings.Contains(out.String(), `"id":3,"result"`) {
		t.Fatalf("want 3 answers:\n%s", out.String())
	}
	if took := time.Since(start); took < 40*time.Millisecond {
		t.Fatalf("took %v: the 40ms latency was not slept", took)
	}
}

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// The end of a stdio session is logged under its control plane name, as
// its opening is (the MCP session id is empty over stdio).
func TestStdioCloseLogsTheSession(t *testing.T) {
	var logs syncBuffer
	s := newTestServer(t, Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"
	if err := s.ServeStdio(context.Background(), strings.NewReader(in), io.Discard); err != nil {
		t.Fatal(err)
	}
	s.Close() // the watcher has logged by the time Close returns
	if got := logs.String(); !strings.Contains(got, `msg="session opened" session=stdio`) || !strings.Contains(got, `msg="session closed" session=stdio ended=closed`) {
		t.Fatalf("log:\n%s", got)
	}
}
