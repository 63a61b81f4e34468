package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/herdmcp"
	"github.com/herd-sh/herd/report"
)

// TestMCPStdioSmoke starts herd mcp as a subprocess and talks to it with
// the go-sdk client: the tools and their annotations, and a run whose
// counts and reproducing command are herd swarm's with the same seed.
func TestMCPStdioSmoke(t *testing.T) {
	bin := herdBinary(t)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--world", "mock:crm", "--world", "mock:shop", "--results-dir", dir, "--workers", "1", "--log-level", "warn")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "smoke", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to herd mcp: %v\n%s", err, stderr.String())
	}
	defer cs.Close()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tool := range tools.Tools {
		byName[tool.Name] = tool
	}
	for _, name := range []string{herdmcp.ToolListWorlds, herdmcp.ToolDescribeWorld, herdmcp.ToolLintWorld, herdmcp.ToolExplain, herdmcp.ToolListResults, herdmcp.ToolReadResults} {
		if tool := byName[name]; tool == nil || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("%s: missing, or not read-only: %+v", name, tool)
		}
	}
	for _, name := range []string{herdmcp.ToolRunSwarm, herdmcp.ToolCompare} {
		a := byName[name].Annotations
		if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s annotations %+v: want not read-only, not destructive, idempotent, closed world", name, a)
		}
	}

	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: herdmcp.ToolRunSwarm, Arguments: map[string]any{
		"world": "crm", "agents": 400, "seed": 11, "faults": "realistic",
		"mix": []map[string]any{{"persona": "hasty", "weight": 3}, {"persona": "careful", "weight": 1}}}})
	if err != nil {
		t.Fatal(err)
	}
	if r.IsError {
		t.Fatalf("run_swarm: %v", r.Content)
	}
	var out herdmcp.RunOutput
	data, _ := json.Marshal(r.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if out.Seed != 11 || filepath.Dir(out.ResultsFile) != dir {
		t.Fatalf("answer: seed %d, results %s (folder %s)", out.Seed, out.ResultsFile, dir)
	}
	got, err := report.ReadFile(out.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}

	// herd swarm with that seed: the same counts, the same command line.
	jsonFile := filepath.Join(t.TempDir(), "run.json")
	if code, _, stderr := runHerd(t, "swarm", "mock:crm", "--agents", "400", "--seed", "11", "--faults", "realistic",
		"--mix", "hasty=3,careful=1", "--json", jsonFile, "-q"); code != exitOK {
		t.Fatalf("herd swarm exit %d: %s", code, stderr)
	}
	want, err := report.ReadFile(jsonFile)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Counts, want.Counts) || len(got.Counts) == 0 {
		t.Errorf("counts differ from herd swarm's:\n mcp   %v\n swarm %v", got.Counts, want.Counts)
	}
	if out.Command != want.Run.Command {
		t.Errorf("command %q, herd swarm records %q", out.Command, want.Run.Command)
	}
	if got.Fingerprint() != want.Fingerprint() {
		t.Errorf("fingerprints differ: mcp %s, herd swarm %s", got.Fingerprint(), want.Fingerprint())
	}

	// The reported command itself replays the run.
	args := strings.Fields(strings.TrimPrefix(out.Command, "herd "))
	replayFile := filepath.Join(t.TempDir(), "replay.json")
	if code, _, stderr := runHerd(t, append(args, "--json", replayFile, "-q")...); code != exitOK {
		t.Fatalf("%s: exit %d: %s", out.Command, code, stderr)
	}
	if replayed, err := report.ReadFile(replayFile); err != nil || !slices.Equal(replayed.Counts, got.Counts) {
		t.Errorf("running %q gave other counts (%v)", out.Command, err)
	}
}

// TestMCPTypeScriptClient: the official TypeScript SDK client lists and
// calls herd mcp's tools over stdio (testdata/mcpclient/client.mjs).
func TestMCPTypeScriptClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client test needs Node.js")
	}
	sdkDir := os.Getenv("HERD_NPM_DIR")
	if sdkDir == "" {
		home, _ := os.UserHomeDir()
		sdkDir = filepath.Join(home, ".cache", "herd-npm")
	}
	if _, err := os.Stat(filepath.Join(sdkDir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Skipf("@modelcontextprotocol/sdk is not installed in %s: npm install --prefix %q @modelcontextprotocol/sdk", sdkDir, sdkDir)
	}
	bin := herdBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	script, _ := filepath.Abs(filepath.Join("testdata", "mcpclient", "client.mjs"))
	cmd := exec.CommandContext(ctx, node, script, sdkDir, bin, t.TempDir())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
	}
	var seen struct {
		Tools  map[string]*mcp.ToolAnnotations `json:"tools"`
		Worlds []string                        `json:"worlds"`
		Run    struct {
			IsError  bool   `json:"isError"`
			Seed     uint64 `json:"seed"`
			Command  string `json:"command"`
			Episodes int    `json:"episodes"`
			Text     string `json:"text"`
		} `json:"run"`
		Refused struct {
			IsError bool   `json:"isError"`
			Text    string `json:"text"`
		} `json:"refused"`
		Resource uint64 `json:"resource"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &seen); err != nil {
		t.Fatalf("client output %q: %v", stdout.String(), err)
	}
	if len(seen.Tools) != 9 || seen.Tools[herdmcp.ToolRunSwarm] == nil || seen.Tools[herdmcp.ToolRunSwarm].ReadOnlyHint || !seen.Tools[herdmcp.ToolListWorlds].ReadOnlyHint {
		t.Errorf("tools as the TypeScript client saw them: %s", stdout.String())
	}
	if !slices.Equal(seen.Worlds, []string{"crm"}) {
		t.Errorf("worlds %v", seen.Worlds)
	}
	if seen.Run.IsError || seen.Run.Seed != 5 || seen.Run.Episodes != 300 || seen.Run.Command != "herd swarm mock:crm --agents 300 --seed 5" || !strings.Contains(seen.Run.Text, "seed 5") {
		t.Errorf("run as the TypeScript client saw it: %+v", seen.Run)
	}
	if !seen.Refused.IsError || !strings.Contains(seen.Refused.Text, "cap of 5,000") || !strings.Contains(seen.Refused.Text, "--max-agents") {
		t.Errorf("over the cap: %+v", seen.Refused)
	}
	if seen.Resource != 5 {
		t.Errorf("resource's seed %d, want 5", seen.Resource)
	}
}

func TestMCPRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--max-agents", "0"},
		{"--max-agents", "99999999"},
		{"--max-run-time", "0s"},
		{"--max-runs", "0"},
		{"--token", "x"},
		{"--allow-remote"},
		{"--http", "0.0.0.0:0"},
		{"--descriptions", filepath.Join(dir, "missing.yaml")},
		{"--descriptions", "../x=" + filepath.Join(dir, "a.yaml")},
		{"--world", "mock:nope"},
		{"--server", "far=http://example.com/mcp"},
		{"--server", "nameless"},
		{"--server", "w=mock:crm"},
		{"--log-level", "loud"},
	} {
		code, _, stderr := runHerd(t, append([]string{"mcp", "--results-dir", dir}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "herd:") {
			t.Errorf("herd mcp %v: exit %d, want %d: %s", args, code, exitUsage, stderr)
		}
	}
}

// TestMCPStdioEndsWithStdin: a client that closes stdin ends the server
// cleanly (exit 0), whatever it had asked.
func TestMCPStdioEndsWithStdin(t *testing.T) {
	code, stdout, stderr := herdInProcess(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n",
		"mcp", "--world", "mock:crm", "--results-dir", t.TempDir())
	if code != exitOK || strings.Contains(stdout, "level=") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe to read while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
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

// TestMCPOverHTTP serves herd mcp on a loopback port, with a token, and
// runs a swarm through the go-sdk's Streamable HTTP client, progress
// notifications included; the server stops when its context ends.
func TestMCPOverHTTP(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	o := &mcpOptions{worlds: []string{"mock:crm"}, resultsDir: t.TempDir(), maxAgents: 10_000, maxRunTime: time.Minute, maxRuns: 1,
		workers: 1, http: "127.0.0.1:0", token: "s3cret", tokenSet: true, logLevel: "warn"}
	done := make(chan error, 1)
	go func() { done <- runMCP(ctx, &streams{in: strings.NewReader(""), out: &stdout, err: &stderr}, o) }()
	var url string
	for deadline := time.Now().Add(10 * time.Second); url == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		url = strings.TrimSpace(stdout.String())
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") {
		t.Fatalf("printed URL %q (stderr %s)", url, stderr.String())
	}
	client := &http.Client{Transport: bearer{"s3cret"}, Timeout: time.Minute}
	progressed := make(chan struct{}, 100)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
			select {
			case progressed <- struct{}{}:
			default:
			}
		}}).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client}, nil)
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParams{Name: herdmcp.ToolRunSwarm, Arguments: map[string]any{"world": "crm", "agents": 3000, "seed": 2}}
	params.SetProgressToken("p")
	r, err := cs.CallTool(ctx, params)
	if err != nil || r.IsError {
		t.Fatalf("run over HTTP: %v %v", err, r)
	}
	if len(progressed) == 0 {
		t.Error("no progress notification reached the HTTP client")
	}
	cs.Close()
	// Without the token: refused.
	resp, err := http.Post(url, "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: status %d, want 401", resp.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("runMCP: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("herd mcp --http did not stop with its context")
	}
}

// bearer adds a bearer token to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPLintServer lints a configured external server's tool list
// (testdata/mcpserver over stdio).
func TestMCPLintServer(t *testing.T) {
	bin := testServer(t)
	o := &mcpOptions{resultsDir: t.TempDir(), maxAgents: 100, maxRunTime: time.Minute, maxRuns: 1,
		servers: []string{"weather=mcp+stdio:" + bin}}
	cfg, err := o.config()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := herdmcp.New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: herdmcp.ToolLintServer, Arguments: map[string]any{"server": "weather"}})
	if err != nil {
		t.Fatal(err)
	}
	var md string
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			md += tc.Text
		}
	}
	if r.IsError || !strings.Contains(md, "get_weather") || !strings.Contains(md, "create_note") {
		t.Errorf("lint_server: isError %v\n%s", r.IsError, md)
	}
}
