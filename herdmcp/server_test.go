package herdmcp

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

// testCommands render command lines as the herd command does in shape;
// cmd/herd's tests check the real renderer.
var testCommands = Commands{
	Swarm: func(s swarm.ReplaySpec, variants []string) string {
		return fmt.Sprintf("herd swarm %s --agents %d --seed %d --mix %q --faults %s --variant %s --descriptions %q goals=%v",
			s.World, s.Agents, s.Seed, s.Mix, s.Faults, strings.Join(variants, ","), s.Descriptions, s.Goals)
	},
	Replay: func(s swarm.ReplaySpec) string { return fmt.Sprintf("herd replay %s --agent %d", s.World, s.Agent) },
}

func testConfig(t *testing.T) Config {
	t.Helper()
	return Config{Worlds: []string{"mock:crm", "mock:shop"}, ResultsDir: t.TempDir(), Workers: 1, Commands: testCommands,
		Caps: CapNames{MaxAgents: "--max-agents", MaxRunTime: "--max-run-time", MaxRuns: "--max-runs", Worlds: "--world", Descriptions: "--descriptions"}}
}

// connect starts a server with cfg and returns a client session on it.
func connect(t *testing.T, cfg Config, copts *mcp.ClientOptions) (*Server, *mcp.ClientSession) {
	t.Helper()
	srv, err := New(cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return srv, cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res
}

func textOf(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func decode[T any](t *testing.T, r *mcp.CallToolResult) T {
	t.Helper()
	var out T
	data, err := json.Marshal(r.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	return out
}

// forbiddenName matches a property name that would let a caller aim the
// server at something of its own choosing.
var forbiddenName = regexp.MustCompile(`(?i)url|uri|host|path|file|dir|folder|addr|endpoint|command|target|port`)

// forbiddenFormats are JSON Schema formats of locations.
var forbiddenFormats = []string{"uri", "uri-reference", "iri", "iri-reference", "uri-template", "hostname", "idn-hostname", "ipv4", "ipv6", "email"}

// walkProperties calls fn for every property of a schema, nested ones too.
func walkProperties(schema map[string]any, at string, fn func(at, name string, prop map[string]any)) {
	if props, ok := schema["properties"].(map[string]any); ok {
		for name, p := range props {
			pm, _ := p.(map[string]any)
			fn(at, name, pm)
			walkProperties(pm, at+"."+name, fn)
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		walkProperties(items, at+"[]", fn)
	}
	if ap, ok := schema["additionalProperties"].(map[string]any); ok {
		walkProperties(ap, at+"{}", fn)
	}
}

func TestNoToolTakesALocation(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 9 {
		t.Fatalf("%d tools, want 9", len(tools.Tools))
	}
	props := 0
	for _, tool := range tools.Tools {
		data, _ := json.Marshal(tool.InputSchema)
		var schema map[string]any
		if err := json.Unmarshal(data, &schema); err != nil {
			t.Fatal(err)
		}
		if schema["additionalProperties"] != false {
			t.Errorf("%s: input schema allows properties it does not declare: %s", tool.Name, data)
		}
		walkProperties(schema, tool.Name, func(at, name string, p map[string]any) {
			props++
			if forbiddenName.MatchString(name) {
				t.Errorf("%s: property %q names a location", at, name)
			}
			if f, _ := p["format"].(string); slices.Contains(forbiddenFormats, f) {
				t.Errorf("%s.%s: format %q is a location", at, name, f)
			}
			if ap, ok := p["additionalProperties"]; ok && ap != false {
				t.Errorf("%s.%s: takes free-form keys", at, name)
			}
		})
	}
	if props < 20 {
		t.Fatalf("only %d properties walked: the walk is broken", props)
	}
}

func TestAnnotations(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	writes := []string{ToolRunSwarm, ToolCompare}
	for _, tool := range tools.Tools {
		a := tool.Annotations
		if tool.Name == ToolLintServer {
			// It reaches a configured external server: open world, read-only.
			if a == nil || !a.ReadOnlyHint || a.OpenWorldHint == nil || !*a.OpenWorldHint {
				t.Errorf("%s: want readOnly and openWorld: %+v", tool.Name, a)
			}
			continue
		}
		if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint {
			t.Errorf("%s: openWorldHint must be false (it touches only in-process worlds): %+v", tool.Name, a)
			continue
		}
		if slices.Contains(writes, tool.Name) {
			if a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || !a.IdempotentHint {
				t.Errorf("%s writes a results document, deletes nothing, same args same run: want readOnly false, destructive false, idempotent true; got %+v", tool.Name, a)
			}
			continue
		}
		if !a.ReadOnlyHint {
			t.Errorf("%s only reads: want readOnlyHint true", tool.Name)
		}
	}
}

func TestAgentsOverCapIsAToolErrorNamingIt(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxAgents = 500
	_, cs := connect(t, cfg, nil)
	for tool, args := range map[string]map[string]any{
		ToolRunSwarm: {"world": "crm", "agents": 501},
		ToolCompare:  {"world": "crm", "agents": 501, "baseline": "clear", "candidate": "ambiguous"},
	} {
		r := call(t, cs, tool, args)
		msg := textOf(r)
		if !r.IsError || !strings.Contains(msg, "cap of 500") || !strings.Contains(msg, "--max-agents") {
			t.Errorf("%s with 501 agents over a cap of 500: isError %v, %q", tool, r.IsError, msg)
		}
	}
	if entries, _ := os.ReadDir(cfg.ResultsDir); len(entries) != 0 {
		t.Errorf("a refused run wrote %d files", len(entries))
	}
}

func TestUnconfiguredWorldListsTheConfigured(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	for tool, args := range map[string]map[string]any{
		ToolRunSwarm: {"world": "payments"}, ToolDescribeWorld: {"world": "payments"}, ToolLintWorld: {"world": "payments"},
		ToolExplain: {"world": "payments", "goal": "x"}, ToolCompare: {"world": "payments", "baseline": "a", "candidate": "b"},
	} {
		r := call(t, cs, tool, args)
		msg := textOf(r)
		if !r.IsError || !strings.Contains(msg, `"payments" is not configured`) || !strings.Contains(msg, "crm (mock:crm), shop (mock:shop)") || !strings.Contains(msg, "--world") {
			t.Errorf("%s on an unconfigured world: isError %v, %q", tool, r.IsError, msg)
		}
	}
	// Nor by a path or a reference of its own.
	for _, w := range []string{"../worlds/payments.yaml", "mock:payments", "/etc/passwd"} {
		if r := call(t, cs, ToolDescribeWorld, map[string]any{"world": w}); !r.IsError {
			t.Errorf("world %q was accepted", w)
		}
	}
}

func TestUnconfiguredDescriptionsAreRefused(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	r := call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "descriptions": "../../etc/passwd"})
	if msg := textOf(r); !r.IsError || !strings.Contains(msg, "none is") || !strings.Contains(msg, "--descriptions") {
		t.Errorf("isError %v, %q", r.IsError, msg)
	}
}

// TestRunMatchesInProcess: a run through the tool has the seed it says
// and the same counts as the library run with that seed.
func TestRunMatchesInProcess(t *testing.T) {
	cfg := testConfig(t)
	srv, cs := connect(t, cfg, nil)
	r := call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "agents": 400, "seed": 11,
		"mix":        []map[string]any{{"persona": "hasty", "weight": 3}, {"persona": "careful", "weight": 1}},
		"thresholds": []string{"harmful<50%"}})
	if r.IsError {
		t.Fatal(textOf(r))
	}
	out := decode[RunOutput](t, r)
	if out.Seed != 11 || out.Agents != 400 || out.Partial || out.Episodes != 400 || out.Verdict == "" {
		t.Fatalf("answer %+v", out)
	}
	for _, want := range []string{"seed 11", "replay:  herd swarm mock:crm --agents 400 --seed 11 --mix \"hasty=3,careful=1\"", "VERDICT", "read_results " + out.RunID, out.ResultsFile} {
		if !strings.Contains(textOf(r), want) {
			t.Errorf("answer text lacks %q:\n%s", want, textOf(r))
		}
	}
	if filepath.Dir(out.ResultsFile) != srv.ResultsDir() {
		t.Errorf("results written to %s, not the results folder %s", out.ResultsFile, srv.ResultsDir())
	}
	saved, err := report.ReadFile(out.ResultsFile)
	if err != nil {
		t.Fatal(err)
	}

	w, _ := worlds.Resolve("mock:crm")
	pack := personas.Builtin()
	plan, err := swarm.NewPlan(swarm.Config{World: w, WorldRef: "mock:crm", Seed: 11, Agents: 400, Workers: 1,
		Mix: []swarm.MixEntry{{Persona: pack.Get("hasty"), Weight: 3}, {Persona: pack.Get("careful"), Weight: 1}}})
	if err != nil {
		t.Fatal(err)
	}
	want, err := plan.Run(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(saved.Counts, want.Counts) || len(saved.Counts) == 0 {
		t.Errorf("counts differ from the in-process run:\n got %v\nwant %v", saved.Counts, want.Counts)
	}
	total := 0
	for _, o := range out.Outcomes {
		total += o.N
	}
	if total != 400 {
		t.Errorf("outcomes sum to %d, want 400", total)
	}

	// The same request is the same run: same id, same counts.
	again := decode[RunOutput](t, call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "agents": 400, "seed": 11,
		"mix":        []map[string]any{{"persona": "hasty", "weight": 3}, {"persona": "careful", "weight": 1}},
		"thresholds": []string{"harmful<50%"}}))
	if again.RunID != out.RunID || !slices.Equal(again.Outcomes, out.Outcomes) {
		t.Errorf("the same request gave run %s %v, then %s %v", out.RunID, out.Outcomes, again.RunID, again.Outcomes)
	}

	// Saved, listed, readable as a resource and as Markdown.
	md := call(t, cs, ToolReadResults, map[string]any{"run_id": out.RunID})
	if md.IsError || !strings.Contains(textOf(md), "crm") || !strings.Contains(textOf(md), "|") {
		t.Errorf("read_results: %s", textOf(md))
	}
	rr, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: out.Resource})
	if err != nil {
		t.Fatal(err)
	}
	if doc, err := report.Decode([]byte(rr.Contents[0].Text)); err != nil || !slices.Equal(doc.Counts, saved.Counts) {
		t.Errorf("resource %s: %v", out.Resource, err)
	}
	list, err := cs.ListResources(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(list.Resources, func(r *mcp.Resource) bool { return r.URI == out.Resource }) {
		t.Errorf("resources/list lacks %s", out.Resource)
	}
	lr := decode[SavedRuns](t, call(t, cs, ToolListResults, map[string]any{}))
	if len(lr.Runs) != 1 || lr.Runs[0].RunID != out.RunID || lr.Runs[0].Seed != 11 {
		t.Errorf("list_results: %+v", lr)
	}
	// Only run ids are read, never a path.
	for _, id := range []string{"../" + out.RunID, out.ResultsFile, "crm-ZZZ"} {
		if r := call(t, cs, ToolReadResults, map[string]any{"run_id": id}); !r.IsError {
			t.Errorf("read_results %q was accepted", id)
		}
	}
}

func TestRunWithoutSeedGetsTheWorldsAndSaysSo(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	r := call(t, cs, ToolRunSwarm, map[string]any{"world": "shop", "agents": 100})
	if r.IsError {
		t.Fatal(textOf(r))
	}
	w, _ := worlds.Resolve("mock:shop")
	out := decode[RunOutput](t, r)
	if out.Seed != w.DefaultSeed || !strings.Contains(out.Command, fmt.Sprintf("--seed %d", w.DefaultSeed)) || !strings.Contains(textOf(r), fmt.Sprintf("seed %d", w.DefaultSeed)) {
		t.Errorf("seed %d, command %q", out.Seed, out.Command)
	}
}

func TestCompareWordings(t *testing.T) {
	cfg := testConfig(t)
	file := filepath.Join(t.TempDir(), "better.yaml")
	if err := os.WriteFile(file, []byte("archive_contact:\n  better: \"Hide a contact from the active list but keep it and its history. Reversible.\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg.Descriptions = []NamedFile{{Name: "mine", Path: file}}
	_, cs := connect(t, cfg, nil)
	r := call(t, cs, ToolCompare, map[string]any{"world": "crm", "baseline": "clear", "candidate": "ambiguous", "agents": 600, "seed": 3})
	if r.IsError {
		t.Fatal(textOf(r))
	}
	out := decode[RunOutput](t, r)
	if len(out.Comparisons) == 0 || out.Episodes != 1200 {
		t.Fatalf("%d comparisons, %d episodes", len(out.Comparisons), out.Episodes)
	}
	significant := false
	for _, c := range out.Comparisons {
		if c.A != "clear" || c.B != "ambiguous" {
			t.Errorf("comparison %+v is not clear vs ambiguous", c)
		}
		significant = significant || c.Significant
	}
	if !significant {
		t.Errorf("the ambiguous wording of mock:crm changes nothing significantly at 600 agents:\n%s", textOf(r))
	}
	if !strings.Contains(textOf(r), "clear vs ambiguous") || !strings.Contains(textOf(r), "McNemar") {
		t.Errorf("answer text:\n%s", textOf(r))
	}
	// A variant the configured file defines can be the candidate.
	r = call(t, cs, ToolCompare, map[string]any{"world": "crm", "baseline": "clear", "candidate": "better", "descriptions": "mine", "agents": 300})
	if r.IsError {
		t.Fatal(textOf(r))
	}
	if out := decode[RunOutput](t, r); !strings.Contains(out.Command, "--descriptions \""+file+"\"") {
		t.Errorf("command %q does not name the descriptions file", out.Command)
	}
	if r := call(t, cs, ToolCompare, map[string]any{"world": "crm", "baseline": "clear", "candidate": "clear"}); !r.IsError {
		t.Error("comparing a wording with itself was accepted")
	}
}

// TestCancelledRunStopsAndReportsWhatFinished cancels a run once its
// first progress notification arrives: the run stops, and what finished
// is saved, marked partial.
func TestCancelledRunStopsAndReportsWhatFinished(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxAgents = swarm.MaxAgents
	var once sync.Once
	progressed := make(chan float64, 1)
	_, cs := connect(t, cfg, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		once.Do(func() { progressed <- req.Params.Total })
	}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		params := &mcp.CallToolParams{Name: ToolRunSwarm, Arguments: map[string]any{"world": "crm", "agents": swarm.MaxAgents}}
		params.SetProgressToken("run-1")
		_, err := cs.CallTool(ctx, params)
		errc <- err
	}()
	select {
	case total := <-progressed:
		if total != float64(swarm.MaxAgents) {
			t.Errorf("progress total %v, want %d", total, swarm.MaxAgents)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no progress notification in 30s")
	}
	cancel()
	if err := <-errc; err == nil {
		t.Fatal("the cancelled call returned no error")
	}
	// The run stops and saves what finished.
	var runs []savedRun
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if runs, _ = (resultsStore{dir: cfg.ResultsDir}).list(); len(runs) > 0 {
			break
		}
	}
	if len(runs) != 1 {
		t.Fatalf("%d runs saved after the cancel", len(runs))
	}
	res, err := resultsStore{dir: cfg.ResultsDir}.load(runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Partial || res.Episodes == 0 || res.Episodes >= swarm.MaxAgents {
		t.Errorf("partial %v with %d episodes, want a partial run of some of %d", res.Partial, res.Episodes, swarm.MaxAgents)
	}
	if took := time.Since(start); took > 60*time.Second {
		t.Errorf("the cancelled run took %s to stop", took)
	}
	md := call(t, cs, ToolReadResults, map[string]any{"run_id": runs[0].ID})
	if md.IsError || !strings.Contains(strings.ToLower(textOf(md)), "partial") {
		t.Errorf("the saved partial run does not read as partial:\n%s", textOf(md))
	}
}

func TestRunTimeCapStopsARun(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxAgents = swarm.MaxAgents
	cfg.MaxRunTime = 300 * time.Millisecond
	_, cs := connect(t, cfg, nil)
	r := call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "agents": swarm.MaxAgents})
	out := decode[RunOutput](t, r)
	if !r.IsError || !out.Partial || !strings.Contains(out.Stopped, "cap of 300ms") || !strings.Contains(out.Stopped, "--max-run-time") {
		t.Errorf("isError %v, partial %v, stopped %q", r.IsError, out.Partial, out.Stopped)
	}
	if out.Episodes == 0 || out.Episodes >= out.Planned || !strings.Contains(textOf(r), "PARTIAL") {
		t.Errorf("%d of %d episodes; text:\n%.300s", out.Episodes, out.Planned, textOf(r))
	}
}

func TestOneRunAtATime(t *testing.T) {
	cfg := testConfig(t)
	cfg.MaxAgents = swarm.MaxAgents
	cfg.MaxRunTime = 3 * time.Second
	srv, cs := connect(t, cfg, nil)
	srv.runs <- struct{}{} // a run is going
	r := call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "agents": 10})
	if msg := textOf(r); !r.IsError || !strings.Contains(msg, "at most 1 at once") || !strings.Contains(msg, "--max-runs") {
		t.Errorf("isError %v, %q", r.IsError, msg)
	}
	<-srv.runs
	if r := call(t, cs, ToolRunSwarm, map[string]any{"world": "crm", "agents": 10}); r.IsError {
		t.Errorf("after the run ended: %s", textOf(r))
	}
}

func TestReadingTools(t *testing.T) {
	_, cs := connect(t, testConfig(t), nil)
	lw := decode[WorldList](t, call(t, cs, ToolListWorlds, map[string]any{}))
	if len(lw.Worlds) != 2 || lw.Worlds[0].Name != "crm" || lw.Worlds[1].Ref != "mock:shop" || lw.MaxAgents != DefaultMaxAgents {
		t.Errorf("list_worlds: %+v", lw)
	}
	d := call(t, cs, ToolDescribeWorld, map[string]any{"world": "crm", "variant": "ambiguous"})
	if d.IsError || !strings.Contains(textOf(d), `"variant": "ambiguous"`) || !strings.Contains(textOf(d), "archive_contact") {
		t.Errorf("describe_world: %.300s", textOf(d))
	}
	l := call(t, cs, ToolLintWorld, map[string]any{"world": "crm", "variants": []string{"ambiguous"}})
	if lo := decode[LintOutput](t, l); l.IsError || lo.Counts.Errors+lo.Counts.Warnings == 0 || !slices.Equal(lo.Variants, []string{"ambiguous"}) ||
		len(lo.Tokens) != 1 || lo.Tokens[0].Total <= 0 || !strings.Contains(textOf(l), "tokens") {
		t.Errorf("lint_world: %+v %s", lo, textOf(l))
	}
	e := call(t, cs, ToolExplain, map[string]any{"world": "crm", "goal": "hide_contact", "persona": "careful"})
	if e.IsError || !strings.Contains(textOf(e), "persona careful") || !strings.Contains(textOf(e), "archive_contact") {
		t.Errorf("explain_choice: %s", textOf(e))
	}
	if e := call(t, cs, ToolExplain, map[string]any{"world": "crm", "goal": "nope"}); !e.IsError || !strings.Contains(textOf(e), "hide_contact") {
		t.Errorf("explain_choice of an unknown goal: %s", textOf(e))
	}
}

// TestHTTPKeepsServesRules: the HTTP endpoint refuses a foreign Host or
// Origin and a missing token, as herd serve does.
func TestHTTPKeepsServesRules(t *testing.T) {
	srv, err := New(testConfig(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler(HTTPOptions{Token: "s3cret"}))
	defer ts.Close()
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	do := func(host, origin, token string) int {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+MCPPath, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := ts.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, c := range []struct {
		host, origin, token string
		want                int
	}{
		{"", "", "s3cret", http.StatusOK},
		{"", "", "", http.StatusUnauthorized},
		{"", "", "wrong", http.StatusUnauthorized},
		{"evil.example:80", "", "s3cret", http.StatusForbidden},
		{"", "https://evil.example", "s3cret", http.StatusForbidden},
	} {
		if got := do(c.host, c.origin, c.token); got != c.want {
			t.Errorf("host %q origin %q token %q: status %d, want %d", c.host, c.origin, c.token, got, c.want)
		}
	}
}

func TestConfigRefusals(t *testing.T) {
	base := testConfig(t)
	for name, mut := range map[string]func(*Config){
		"no results folder": func(c *Config) { c.ResultsDir = "" },
		"no renderers":      func(c *Config) { c.Commands = Commands{} },
		"cap above swarm's": func(c *Config) { c.MaxAgents = swarm.MaxAgents + 1 },
		"unknown world":     func(c *Config) { c.Worlds = []string{"mock:nope"} },
		"same world twice":  func(c *Config) { c.Worlds = []string{"mock:crm", "mock:crm"} },
		"bad name":          func(c *Config) { c.Descriptions = []NamedFile{{Name: "../x", Path: "x.yaml"}} },
	} {
		cfg := base
		mut(&cfg)
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for in, want := range map[string]NamedFile{"mine.yaml": {"mine", "mine.yaml"}, "x=dir/a.yaml": {"x", "dir/a.yaml"}} {
		if got, err := ParseNamedFile(in); err != nil || got != want {
			t.Errorf("ParseNamedFile(%q) = %+v, %v", in, got, err)
		}
	}
	if _, err := ParseNamedFile("../a=b.yaml"); err == nil {
		t.Error("a name with a path in it was accepted")
	}
}

func TestPanicFailsOneRequestOnly(t *testing.T) {
	srv, cs := connect(t, testConfig(t), nil)
	srv.MCP().AddTool(&mcp.Tool{Name: "boom", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		panic("a bug")
	})
	if _, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "boom"}); err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Errorf("a panicking handler: %v", err)
	}
	if r := call(t, cs, ToolListWorlds, map[string]any{}); r.IsError {
		t.Errorf("after the panic: %s", textOf(r))
	}
}

func TestLintServer(t *testing.T) {
	cfg := testConfig(t)
	var asked []string
	cfg.Servers = []NamedFile{{Name: "notes", Path: "mcp+stdio:notes-server"}}
	cfg.ListServerTools = func(_ context.Context, target string) (string, []lint.Tool, error) {
		asked = append(asked, target)
		return "notes-server", []lint.Tool{{Name: "delete_note", Description: "Deletes."}, {Name: "get_note", Description: "Get a note by id."}}, nil
	}
	_, cs := connect(t, cfg, nil)
	r := call(t, cs, ToolLintServer, map[string]any{"server": "notes"})
	lo := decode[LintOutput](t, r)
	if r.IsError || lo.World != "notes-server" || lo.Counts.Errors+lo.Counts.Warnings == 0 || !strings.Contains(textOf(r), "delete_note") ||
		len(lo.Tokens) != 1 || lo.Tokens[0].Total <= 0 {
		t.Errorf("lint_server: %+v\n%s", lo, textOf(r))
	}
	if !slices.Equal(asked, []string{"mcp+stdio:notes-server"}) {
		t.Errorf("reached %v, want the configured target only", asked)
	}
	r = call(t, cs, ToolLintServer, map[string]any{"server": "mcp+stdio:rm -rf /"})
	if msg := textOf(r); !r.IsError || !strings.Contains(msg, "the configured ones are notes") || len(asked) != 1 {
		t.Errorf("an unconfigured server: isError %v, %q, reached %v", r.IsError, msg, asked)
	}
	if lw := decode[WorldList](t, call(t, cs, ToolListWorlds, map[string]any{})); !slices.Equal(lw.Servers, []string{"notes"}) {
		t.Errorf("list_worlds servers %v", lw.Servers)
	}
}
