package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
)

const (
	memoryToolsFixture = "../../scaffold/testdata/server-memory.tools.json"
	petstoreFixture    = "../../scaffold/testdata/petstore.yaml"
)

// herd new --from a saved tools/list and from an OpenAPI document writes a
// world that herd validate accepts and herd swarm runs, exit 0.
func TestNewFromWritesAWorldThatRuns(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ from, name, world string }{
		{memoryToolsFixture, "", "server_memory"},
		{petstoreFixture, filepath.Join(dir, "pets"), "pets"},
	} {
		args := []string{"new", "--from", c.from}
		if c.name != "" {
			args = append(args, c.name)
		}
		path := filepath.Join(dir, c.world+".yaml")
		if c.name == "" {
			args = append(args, "-o", path)
		}
		code, out, errOut := runHerd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		if !strings.Contains(out, "wrote "+path+" (world "+c.world+")") || !strings.Contains(out, "--variant yours,rewrite") {
			t.Errorf("%v printed:\n%s", args, out)
		}
		if code, out, errOut := runHerd(t, "validate", path); code != 0 || !strings.Contains(out, "ok") {
			t.Errorf("validate %s: exit %d %s %s", path, code, out, errOut)
		}
		if code, _, errOut := runHerd(t, "swarm", path, "--agents", "100", "--seed", "1", "--progress", "never"); code != 0 {
			t.Errorf("swarm %s: exit %d: %s", path, code, errOut)
		}
		// Never overwritten.
		if code, _, errOut := runHerd(t, args...); code != exitUsage || !strings.Contains(errOut, "already exists") {
			t.Errorf("second %v: exit %d: %s", args, code, errOut)
		}
	}
}

func TestNewFromRefusals(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"new", "--from", "mock:crm", "x", "-o", "-"}, "is a herd world already"},
		{[]string{"new", "--from", memoryToolsFixture, "Bad-Name!", "-o", "-"}, "must be lower case letters"},
		{[]string{"new", "--from", filepath.Join(t.TempDir(), "missing.json"), "-o", "-"}, "missing.json"},
		{[]string{"new"}, "accepts 1 arg"},
		{[]string{"new", "a", "b"}, "accepts 1 arg"},
	}
	for _, c := range cases {
		code, _, errOut := runHerd(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// herd descriptions of a server writes a file that fits the world drafted
// from it: --as names a new variant, which swarm runs paired.
func TestDescriptionsOfAServerFitItsWorld(t *testing.T) {
	dir := t.TempDir()
	world := filepath.Join(dir, "memory.yaml")
	if code, _, errOut := runHerd(t, "new", "--from", memoryToolsFixture, world); code != 0 {
		t.Fatalf("new: %s", errOut)
	}
	code, out, errOut := runHerd(t, "descriptions", memoryToolsFixture, "--as", "rewrite")
	if code != 0 {
		t.Fatalf("descriptions: exit %d: %s", code, errOut)
	}
	w, err := engine.LoadFile(world)
	if err != nil {
		t.Fatal(err)
	}
	d, err := lint.ParseDescriptionsFile("rewrite.yaml", []byte(out), w)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(d.New) != 1 || d.New[0].Name != "rewrite" || d.Texts["rewrite"]["delete_entities"] != w.Tool("delete_entities").Description("yours") {
		t.Fatalf("descriptions: new %+v, delete_entities %q", d.New, d.Texts["rewrite"]["delete_entities"])
	}
	file := filepath.Join(dir, "rewrite.yaml")
	if err := os.WriteFile(file, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	// The same texts under two names: a paired run finds no difference.
	code, out, errOut = runHerd(t, "swarm", world, "--agents", "140", "--variant", "yours,rewrite", "--descriptions", file, "--progress", "never")
	if code != 0 || !strings.Contains(out, "yours → rewrite") {
		t.Fatalf("paired swarm: exit %d\n%s\n%s", code, out, errOut)
	}
	if strings.Contains(out, "<0.001") {
		t.Errorf("identical texts differ significantly:\n%s", out)
	}
}

func TestDescriptionsOfAWorldVariant(t *testing.T) {
	code, out, errOut := runHerd(t, "descriptions", "mock:crm", "--variant", "ambiguous")
	if code != 0 || !strings.Contains(out, "delete_contact:\n  ambiguous: \"Remove a contact from the list.\"") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"descriptions", "mock:crm", "--variant", "shiny"}, `--variant: world crm has no variant "shiny"`},
		{[]string{"descriptions", "mock:crm", "--as", "Bad"}, `--as: variant name "Bad"`},
		{[]string{"descriptions", memoryToolsFixture, "--variant", "clear"}, "is not a herd world"},
	} {
		if code, _, errOut := runHerd(t, c.args...); code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// The npm reference server, live over stdio, when it is installed:
// new --from drafts the same world as from its saved tool list.
func TestNewFromLiveServerMemory(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the live server-memory test needs it (the saved tool list is tested without it)")
	}
	script := serverMemoryScript()
	if script == "" {
		t.Skip("@modelcontextprotocol/server-memory is not installed (npm install --prefix DIR @modelcontextprotocol/server-memory, and set " + npmServersEnv + "=DIR; .ci/run does)")
	}
	dir := t.TempDir()
	live, saved := filepath.Join(dir, "live.yaml"), filepath.Join(dir, "saved.yaml")
	t.Setenv("MEMORY_FILE_PATH", filepath.Join(dir, "memory.jsonl"))
	if code, _, errOut := runHerd(t, "new", "--from", "mcp+stdio:"+node+" "+script, "memory", "-o", live); code != 0 {
		t.Fatalf("live: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runHerd(t, "new", "--from", memoryToolsFixture, "memory", "-o", saved); code != 0 {
		t.Fatalf("saved: exit %d: %s", code, errOut)
	}
	a, _ := os.ReadFile(live)
	b, _ := os.ReadFile(saved)
	// The header names the target; everything after it is the same world.
	if strip(a) != strip(b) {
		t.Errorf("the live server's draft differs from the saved list's (has the server changed? re-record scaffold/testdata/server-memory.tools.json)")
	}
}

func strip(b []byte) string {
	s := string(b)
	if i := strings.Index(s, "\nworld:"); i >= 0 {
		s = s[i:]
	}
	// The description names the server's version (the saved file has none).
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "description:") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// serverMemoryScript finds server-memory's entry point under the npm
// prefix .ci/run installs the reference servers in ($HERD_NPM_SERVERS).
func serverMemoryScript() string {
	d := os.Getenv(npmServersEnv)
	if d == "" {
		return ""
	}
	p := filepath.Join(d, "node_modules", "@modelcontextprotocol", "server-memory", "dist", "index.js")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// --call-read-only calls the tools that are safe to call — read-only,
// closed-world, no required argument — once each, and reads the record
// types their answers list; it never calls a tool that may write.
func TestNewFromCallsReadOnlyTools(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: "2.0.0"}, nil)
	no := false
	var deletes atomic.Int32
	srv.AddTool(&mcp.Tool{
		Name: "list_invoices", Description: "List the open invoices.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: &no},
		InputSchema: map[string]any{"type": "object"},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{
			Text: `{"invoices": [{"id": "in_1", "customer": "Ada Lovelace", "total": 1200, "status": "open"}]}`}}}, nil
	})
	srv.AddTool(&mcp.Tool{
		Name: "delete_invoice", Description: "Delete an invoice.",
		InputSchema: map[string]any{"type": "object", "properties": map[string]any{"invoice_id": map[string]any{"type": "string"}}},
	}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		deletes.Add(1)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "deleted"}}}, nil
	})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true}))
	defer hs.Close()

	code, out, errOut := runHerd(t, "new", "--from", hs.URL+"/mcp", "--call-read-only", "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "called list_invoices once") || deletes.Load() != 0 {
		t.Errorf("stderr %q, delete_invoice called %d times", errOut, deletes.Load())
	}
	w, err := engine.Parse("billing.yaml", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	inv := w.Type("invoice")
	if inv == nil || inv.Field("customer") == nil || inv.Field("total") == nil {
		t.Fatalf("no invoice type with customer and total from the answer:\n%s", out)
	}
	// Without the flag nothing is called, and the answer's fields are unknown.
	code, out, errOut = runHerd(t, "new", "--from", hs.URL+"/mcp", "-o", "-")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if w, err := engine.Parse("billing.yaml", []byte(out)); err != nil || w.Type("invoice") != nil && w.Type("invoice").Field("customer") != nil {
		t.Errorf("without --call-read-only the answer was read (err %v)", err)
	}
	// A saved list cannot be called.
	if code, _, errOut := runHerd(t, "new", "--from", memoryToolsFixture, "--call-read-only", "-o", "-"); code != exitUsage || !strings.Contains(errOut, "not a live server") {
		t.Errorf("--call-read-only on a file: exit %d %s", code, errOut)
	}
}
