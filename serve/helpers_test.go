package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// crmPath is the CRM world the tests serve.
const crmPath = "../worlds/crm.yaml"

var (
	crmOnce  sync.Once
	crmWorld *engine.World
	crmErr   error
)

// loadCRM compiles the CRM world once per test binary: it is immutable and
// safe to share.
func loadCRM(t testing.TB) *engine.World {
	t.Helper()
	crmOnce.Do(func() { crmWorld, crmErr = engine.LoadFile(crmPath) })
	if crmErr != nil {
		t.Fatalf("load %s: %v", crmPath, crmErr)
	}
	return crmWorld
}

// testLogger sends server logs to the test log when -v is set, and nowhere
// otherwise.
func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() && os.Getenv("HERD_SERVE_TEST_LOGS") != "" {
		return slog.New(slog.NewTextHandler(tbWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type tbWriter struct{ t testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func newTestServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.World == nil {
		opts.World = loadCRM(t)
	}
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	if opts.MaxFaultWait == 0 {
		opts.MaxFaultWait = time.Millisecond
	}
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "herd-test", Version: "0"}, nil)
}

// connectMemory opens an MCP session to s over the SDK's in-memory transport.
func connectMemory(t testing.TB, s *Server, name string) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, name); err != nil {
		t.Fatalf("server connect: %v", err)
	}
	cs, err := newClient().Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// startHTTP serves s on 127.0.0.1 (a free port) until the test ends and
// returns the base URL.
func startHTTP(t testing.TB, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeListener(ctx, ln, s.Handler()) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("ServeListener: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("server did not stop within 10s")
		}
	})
	return "http://" + ln.Addr().String()
}

// pooledClient is an HTTP client for many concurrent MCP sessions: a large
// idle pool, so sessions reuse connections instead of leaving thousands of
// sockets in TIME-WAIT. token, when set, is sent as a bearer token.
func pooledClient(token string) *http.Client {
	tr := &http.Transport{
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     30 * time.Second,
	}
	var rt http.RoundTripper = tr
	if token != "" {
		rt = bearer{token: token, next: tr}
	}
	return &http.Client{Transport: rt, Timeout: 30 * time.Second}
}

type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTP opens an MCP session over Streamable HTTP. The protocol
// version is pinned: the SDK client otherwise first tries a newer,
// sessionless version that a stateful server turns down, costing a round
// trip per session.
func connectHTTP(t testing.TB, base string, hc *http.Client) *mcp.ClientSession {
	t.Helper()
	cs, err := dialHTTP(base, hc)
	if err != nil {
		t.Fatalf("connect %s: %v", base, err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// crmSessionHTTP starts a crm server on seed 42 and opens one MCP session
// over HTTP: the client, the session, and the session's control plane URL
// (…/control/sessions/{id}).
func crmSessionHTTP(t testing.TB) (*http.Client, *mcp.ClientSession, string) {
	t.Helper()
	base := startHTTP(t, newTestServer(t, Options{Seed: 42}))
	hc := pooledClient("")
	cs := connectHTTP(t, base, hc)
	return hc, cs, base + "/control/sessions/" + cs.ID()
}

func dialHTTP(base string, hc *http.Client) (*mcp.ClientSession, error) {
	tr := &mcp.StreamableClientTransport{Endpoint: base + control.MCPPath, HTTPClient: hc, DisableStandaloneSSE: true, MaxRetries: -1}
	return newClient().Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
}

// call calls a tool and returns the result's text; a protocol error fails
// the test.
func call(t testing.TB, cs *mcp.ClientSession, tool string, args map[string]any) (text string, isError bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("call %s(%v): %v", tool, args, err)
	}
	return resultText(t, res), res.IsError
}

func resultText(t testing.TB, res *mcp.CallToolResult) string {
	t.Helper()
	if len(res.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(res.Content))
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("want text content, got %T", res.Content[0])
	}
	return tc.Text
}

// engineText is what the server should answer for an engine result.
func engineText(t testing.TB, res engine.Result) (string, bool) {
	t.Helper()
	r := toolResult(&res)
	return r.Content[0].(*mcp.TextContent).Text, r.IsError
}

// errorCode reads the code from an error result's JSON.
func errorCode(t testing.TB, text string) string {
	t.Helper()
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(text), &e); err != nil {
		t.Fatalf("error result is not JSON: %v: %s", err, text)
	}
	if e.Error.Code == "" || e.Error.Message == "" {
		t.Fatalf("error result lacks code or message: %s", text)
	}
	return e.Error.Code
}

// getBody GETs a URL and returns status and body.
func getBody(t testing.TB, hc *http.Client, url string) (int, []byte) {
	t.Helper()
	return doBody(t, hc, http.MethodGet, url, nil)
}

func doBody(t testing.TB, hc *http.Client, method, url string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

// sessionKey finds a session's engine key on the control plane.
func sessionKey(t testing.TB, hc *http.Client, base, id string) uint64 {
	t.Helper()
	code, body := getBody(t, hc, base+"/control/sessions/"+id)
	if code != http.StatusOK {
		t.Fatalf("GET session %s: %d %s", id, code, body)
	}
	var info control.SessionInfo
	if err := json.Unmarshal(body, &info); err != nil {
		t.Fatal(err)
	}
	return info.Key
}

// journalLine is one line of GET .../journal.
type journalLine struct {
	Seq  int            `json:"seq"`
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	AtMS float64        `json:"at_ms"`
	OK   bool           `json:"ok"`
}

func parseJournal(t testing.TB, b []byte) []journalLine {
	t.Helper()
	var out []journalLine
	dec := json.NewDecoder(bytes.NewReader(b))
	for {
		var l journalLine
		err := dec.Decode(&l)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("journal: %v", err)
		}
		out = append(out, l)
	}
}

// toolCall is one call a test client made.
type toolCall struct {
	tool string
	args map[string]any
}

// replay runs calls in-process on a fresh session with the served session's
// key and profile, starting each call when the served journal says it began
// (a served session's clock also moves with real time). It returns the
// session and each call's result.
func replay(t testing.TB, base *engine.Base, key uint64, profile *engine.FaultProfile, calls []toolCall, journal []journalLine) (*engine.Session, []engine.Result) {
	t.Helper()
	if len(journal) != len(calls) {
		t.Fatalf("journal has %d calls, client made %d", len(journal), len(calls))
	}
	s := base.NewSession(key, profile)
	results := make([]engine.Result, len(calls))
	for i, c := range calls {
		if journal[i].Tool != c.tool {
			t.Fatalf("journal call %d is %s, client called %s", i, journal[i].Tool, c.tool)
		}
		at := time.Duration(math.Round(journal[i].AtMS * 1e6))
		if at%time.Millisecond != 0 {
			t.Fatalf("journal call %d starts at %v, not on a whole millisecond", i, at)
		}
		if at < s.Elapsed() {
			t.Fatalf("journal call %d began at %v, before the replay's clock (%v)", i, at, s.Elapsed())
		}
		s.Sleep(at - s.Elapsed())
		results[i] = s.Call(c.tool, c.args)
	}
	return s, results
}

// openContact returns the first contact that is neither archived nor locked.
func openContact(t testing.TB, b *engine.Base) string {
	t.Helper()
	for _, r := range b.Records(b.World().Type("contact")) {
		if r.Get("locked") == false && r.Get("archived") == false {
			return r.ID()
		}
	}
	t.Fatal("no open contact")
	return ""
}
