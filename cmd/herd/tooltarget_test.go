package main

import (
	"context"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes content to name in a temp dir and returns its path.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func exitCodeOf(err error) int {
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return -1
}

func TestLoadToolListReadsEverySavedForm(t *testing.T) {
	const tools = `[{"name": "read_graph", "description": "Read the whole graph.", "inputSchema": {"type": "object"},
		"annotations": {"readOnlyHint": true}}, {"name": "delete_entities", "inputSchema": {"type": "object", "properties": {"names": {"type": "array"}}}}]`
	for _, form := range []struct{ name, content string }{
		{"bare array", tools},
		{"result object", `{"tools": ` + tools + `, "nextCursor": ""}`},
		{"JSON-RPC response", `{"jsonrpc": "2.0", "id": 1, "result": {"tools": ` + tools + `}}`},
	} {
		t.Run(form.name, func(t *testing.T) {
			path := writeFile(t, "tools.json", form.content)
			tl, err := loadToolList(context.Background(), path, &toolTargetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if tl.Kind != toolsFromFile || tl.World != nil || tl.Server.Name != "tools.json" {
				t.Errorf("source: kind %v, world %v, server %+v", tl.Kind, tl.World, tl.Server)
			}
			if len(tl.Tools) != 2 || tl.Tools[0].Name != "read_graph" || tl.Tools[1].Name != "delete_entities" {
				t.Fatalf("tools: %+v", tl.Tools)
			}
			if a := tl.Tools[0].Annotations; a == nil || !a.ReadOnlyHint || a.DestructiveHint != nil {
				t.Errorf("annotations as sent (destructiveHint absent): %+v", a)
			}
			if tl.Tools[1].Annotations != nil {
				t.Errorf("a tool without annotations got some: %+v", tl.Tools[1].Annotations)
			}
			if s, ok := tl.Tools[1].InputSchema.(map[string]any); !ok || s["properties"] == nil {
				t.Errorf("input schema: %#v", tl.Tools[1].InputSchema)
			}
		})
	}
}

func TestLoadToolListRefusesBadFiles(t *testing.T) {
	many := "[" + strings.Repeat(`{"name": "t"},`, 5)
	many = many[:len(many)-1] + "]"
	for _, c := range []struct{ name, content, want string }{
		{"error response", `{"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}}`, "JSON-RPC error response (-32601: Method not found)"},
		{"result without tools", `{"jsonrpc": "2.0", "id": 1, "result": {}}`, `no "tools" list`},
		{"not an array", `{"tools": {"name": "x"}}`, "want an array of tools"},
		{"nameless tool", `[{"description": "x"}]`, "tool 1 has no name"},
		{"repeated name", `[{"name": "a"}, {"name": "a"}]`, `tool "a" is listed twice`},
		{"over the cap", many, "lists 5 tools, more than the limit of 3 (raise it with --max-tools)"},
		{"broken JSON", `{"tools": [`, "not a tools/list result"},
		{"empty", ``, "empty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := writeFile(t, "tools.json", c.content)
			_, err := loadToolList(context.Background(), path, &toolTargetOptions{maxTools: 3})
			if err == nil || exitCodeOf(err) != exitUsage || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v (exit %d), want exit 2 naming %s and %q", err, exitCodeOf(err), path, c.want)
			}
		})
	}
	if _, err := loadToolList(context.Background(), filepath.Join(t.TempDir(), "missing.json"), &toolTargetOptions{}); err == nil || exitCodeOf(err) != exitUsage {
		t.Errorf("a missing file: %v", err)
	}
}

func TestLoadToolListReadsAWorld(t *testing.T) {
	tl, err := loadToolList(context.Background(), "mock:crm", &toolTargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Kind != toolsFromWorld || tl.World == nil || tl.Server.Name != "crm" || len(tl.Tools) != len(tl.World.Tools) {
		t.Fatalf("world: %+v", tl)
	}
	for _, tool := range tl.Tools {
		if tool.Annotations == nil || tool.Annotations.DestructiveHint == nil || tool.InputSchema == nil || tool.Description == "" {
			t.Errorf("tool %s is not spelled out as served: %+v", tool.Name, tool)
		}
	}
	_, err = loadToolList(context.Background(), "mock:crm", &toolTargetOptions{maxTools: 2})
	if err == nil || exitCodeOf(err) != exitUsage || !strings.Contains(err.Error(), "more than the limit of 2") {
		t.Errorf("a world over the cap: %v", err)
	}
	if _, err := loadToolList(context.Background(), "mock:nope", &toolTargetOptions{}); exitCodeOf(err) != exitUsage {
		t.Errorf("an unknown world: %v", err)
	}
}

func TestLoadToolListFromServers(t *testing.T) {
	srv := httptest.NewServer(externalTestHandler())
	defer srv.Close()
	tl, err := loadToolList(context.Background(), srv.URL+"/mcp", &toolTargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Kind != toolsFromServer || tl.Server.Name != "lookup-server" || tl.Server.Version != "0.1.0" || len(tl.Tools) != 1 || tl.Tools[0].Name != "lookup" {
		t.Errorf("over HTTP: server %+v, tools %d", tl.Server, len(tl.Tools))
	}

	// A host that is not loopback is refused before anything is contacted.
	_, err = loadToolList(context.Background(), "http://mcp.example.com/mcp", &toolTargetOptions{})
	if exitCodeOf(err) != exitUsage || !strings.Contains(err.Error(), "--allow-host") {
		t.Errorf("a public host: %v (exit %d)", err, exitCodeOf(err))
	}
	// Nothing listening: unreachable, exit 3.
	dead := httptest.NewServer(externalTestHandler())
	deadURL := dead.URL + "/mcp"
	dead.Close()
	if _, err := loadToolList(context.Background(), deadURL, &toolTargetOptions{}); exitCodeOf(err) != exitUnreachable {
		t.Errorf("a closed port: %v (exit %d), want 3", err, exitCodeOf(err))
	}

	bin := testServer(t)
	tl, err = loadToolList(context.Background(), "mcp+stdio:"+bin, &toolTargetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tl.Kind != toolsFromServer || !strings.HasPrefix(tl.Server.Name, "testserver-") || len(tl.Tools) < 3 {
		t.Errorf("over stdio: server %+v, %d tools", tl.Server, len(tl.Tools))
	}
	_, err = loadToolList(context.Background(), "mcp+stdio:"+bin, &toolTargetOptions{maxTools: 2})
	if exitCodeOf(err) != exitUsage || !strings.Contains(err.Error(), "more than 2 tools") {
		t.Errorf("a server over the cap: %v (exit %d)", err, exitCodeOf(err))
	}
	if _, err := loadToolList(context.Background(), "mcp+stdio:/no/such/server", &toolTargetOptions{}); exitCodeOf(err) != exitUnreachable {
		t.Errorf("a command that does not start: %v (exit %d), want 3", err, exitCodeOf(err))
	}
}
