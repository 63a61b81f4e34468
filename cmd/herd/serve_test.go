package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/worlds"
)

func mcpClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "herd-cmd-test", Version: "0"}, nil)
}

// lineLog collects a process's stderr and lets a test wait for a line.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	added chan struct{}
}

func newLineLog(r io.Reader) *lineLog {
	l := &lineLog{added: make(chan struct{}, 1)}
	go func() {
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			l.mu.Lock()
			l.lines = append(l.lines, sc.Text())
			l.mu.Unlock()
			select {
			case l.added <- struct{}{}:
			default:
			}
		}
	}()
	return l
}

// wait returns the first submatch of re in a line, waiting up to 20s.
func (l *lineLog) wait(t *testing.T, re *regexp.Regexp) string {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		l.mu.Lock()
		for _, line := range l.lines {
			if m := re.FindStringSubmatch(line); m != nil {
				l.mu.Unlock()
				return m[1]
			}
		}
		l.mu.Unlock()
		select {
		case <-l.added:
		case <-deadline:
			t.Fatalf("no line matching %s in stderr:\n%s", re, l.String())
		}
	}
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// TestServeStdioProcess runs herd serve as a subprocess and talks MCP to it
// over its stdin and stdout, as Claude Code or the Inspector would.
func TestServeStdioProcess(t *testing.T) {
	bin := herdBinary(t)
	cmd := exec.Command(bin, "serve", "mock:crm", "--seed", "7", "--variant", "ambiguous", "--control", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := newLineLog(stderr)
	ctx := context.Background()
	cs, err := mcpClient().Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, logs)
	}

	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != len(w.Tools) {
		t.Fatalf("%d tools listed, world has %d", len(tools.Tools), len(w.Tools))
	}
	for _, lt := range tools.Tools {
		if lt.Description != w.Tool(lt.Name).Description("ambiguous") {
			t.Errorf("%s: description %q is not the ambiguous variant", lt.Name, lt.Description)
		}
	}

	// Success: the seeded record of seed 7.
	base, err := w.Seed(7)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0003"}})
	if err != nil || res.IsError {
		t.Fatalf("get_contact: %v %v", err, res)
	}
	want, _ := json.Marshal(base.Records(w.Type("contact"))[2].Map())
	if got := res.Content[0].(*mcp.TextContent).Text; got != string(want) {
		t.Fatalf("get_contact:\n got %s\nwant %s", got, want)
	}
	// A business error and a bad argument are tool errors.
	for _, tc := range []struct {
		args map[string]any
		code string
	}{
		{map[string]any{"id": "c_0999"}, `"code":"not_found"`},
		{map[string]any{"id": true}, `"code":"invalid_argument"`},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: tc.args})
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, tc.code) {
			t.Fatalf("get_contact(%v): %v %+v, want isError with %s", tc.args, err, res, tc.code)
		}
	}
	// An unknown tool is a protocol error.
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}})
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || werr.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("unknown tool: %v", err)
	}

	// The control plane next to stdio sees the session.
	control := logs.wait(t, regexp.MustCompile(`url=(http://127\.0\.0\.1:\d+)/control`))
	resp, err := http.Get(control + "/control/sessions/stdio")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var info struct {
		Key   uint64
		Seed  uint64
		Calls int
	}
	if err := json.Unmarshal(body, &info); err != nil || info.Seed != 7 || info.Calls != 3 {
		t.Fatalf("control plane: %s", body)
	}

	// Closing stdin ends the server with exit 0.
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("herd serve exited with %v\nstderr:\n%s", cmd.ProcessState, logs)
	}
}

// TestServeHTTPProcess runs herd serve --http as a subprocess: the URL comes
// on stdout, the token guards /mcp and /control, and SIGTERM stops it with
// exit 0.
func TestServeHTTPProcess(t *testing.T) {
	bin := herdBinary(t)
	cmd := exec.Command(bin, "serve", "mock:crm", "--http", "127.0.0.1:0", "--token", "t0k", "--faults", "realistic")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	logs := newLineLog(stderr)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-exited
		}
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("no URL on stdout: %v\nstderr:\n%s", err, logs)
	}
	url := strings.TrimSpace(line)
	if !regexp.MustCompile(`^http://127\.0\.0\.1:\d+/mcp$`).MatchString(url) {
		t.Fatalf("stdout says %q", url)
	}
	base := strings.TrimSuffix(url, "/mcp")

	hc := &http.Client{Transport: bearerTransport{"t0k"}, Timeout: 10 * time.Second}
	ctx := context.Background()
	cs, err := mcpClient().Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, logs)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search_contacts", Arguments: map[string]any{"query": "a"}})
	if err != nil {
		t.Fatalf("search: %v", err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if !json.Valid([]byte(text)) {
		t.Fatalf("search answered %q", text)
	}

	// Without the token: 401, on both /mcp and /control.
	for _, path := range []string{"/mcp", "/control/sessions"} {
		resp, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without token: %d", path, resp.StatusCode)
		}
	}
	resp, err := hc.Get(base + "/control/sessions/" + cs.ID() + "/journal")
	if err != nil {
		t.Fatal(err)
	}
	journal, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(journal, []byte(`"tool":"search_contacts"`)) {
		t.Fatalf("journal: %s", journal)
	}
	_ = cs.Close()

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("herd serve did not stop within 15s of SIGTERM\nstderr:\n%s", logs)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM\nstderr:\n%s", code, logs)
	}
}

type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestServeStdioInProcess pipes requests through run(): stdout must carry
// only JSON-RPC answers, one per request with an id, even for bad lines;
// logs go to stderr.
func TestServeStdioInProcess(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"archive_contact","arguments":{"id":"c_0001"}}}`,
		`not json at all`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get_contact","arguments":{"id":"c_0001","extra":1}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"world://crm/schema"}}`,
	}, "\n") + "\n"
	code, stdout, stderr := herdInProcess(t, in, "serve", "mock:crm", "--max-fault-wait", "0")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	ids := map[float64]bool{}
	for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
		var m struct {
			JSONRPC string   `json:"jsonrpc"`
			ID      *float64 `json:"id"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil || m.JSONRPC != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", line)
		}
		if m.ID != nil {
			ids[*m.ID] = true
		}
	}
	for _, id := range []float64{1, 2, 3, 4} {
		if !ids[id] {
			t.Errorf("no answer to request %v in:\n%s", id, stdout)
		}
	}
	if !strings.Contains(stdout, `unknown argument \\\"extra\\\"`) {
		t.Errorf("extra argument not reported:\n%s", stdout)
	}
	if !strings.Contains(stderr, "serving world crm") || !strings.Contains(stderr, "not valid JSON") {
		t.Errorf("stderr lacks the log:\n%s", stderr)
	}
}

func TestServeBadFlags(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serve"}, "accepts 1 arg"},
		{[]string{"serve", "mock:nowhere"}, "nowhere"},
		{[]string{"serve", "/no/such/world.yaml"}, "no such file"},
		{[]string{"serve", "mock:crm", "--http", "0.0.0.0:8931"}, "--http: address \"0.0.0.0:8931\" is not loopback"},
		{[]string{"serve", "mock:crm", "--http", "127.0.0.1:http"}, "--http: address"},
		{[]string{"serve", "mock:crm", "--control", "10.0.0.1:1"}, "--control: address \"10.0.0.1:1\" is not loopback"},
		{[]string{"serve", "mock:crm", "--http", busy.Addr().String()}, "address already in use"},
		{[]string{"serve", "mock:crm", "--variant", "terse"}, `--variant: world crm has no variant "terse" (it has clear, ambiguous)`},
		{[]string{"serve", "mock:crm", "--faults", "chaos"}, `--faults: world crm has no fault profile "chaos"`},
		{[]string{"serve", "mock:crm", "--max-sessions", "0"}, "--max-sessions: must be at least 1"},
		{[]string{"serve", "mock:crm", "--idle-timeout", "-1s"}, "--idle-timeout: must not be negative"},
		{[]string{"serve", "mock:crm", "--journal-limit", "-1"}, "--journal-limit: must not be negative"},
		{[]string{"serve", "mock:crm", "--max-fault-wait", "-1s"}, "--max-fault-wait: must not be negative"},
		{[]string{"serve", "mock:crm", "--log-level", "loud"}, "--log-level"},
		{[]string{"serve", "mock:crm", "--token", ""}, "--token: must not be empty"},
		{[]string{"serve", "mock:crm", "--seed", "-3"}, "invalid argument"},
	} {
		code, _, stderr := herdInProcess(t, "", tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("herd %s: exit %d, stderr %q; want exit 2 and %q", strings.Join(tc.args, " "), code, stderr, tc.want)
		}
	}
}
