package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/lint"
)

// npmServersEnv names the folder the npm reference MCP servers are
// installed in (npm install --prefix DIR @modelcontextprotocol/server-…);
// .ci/run sets it where Node is present.
const npmServersEnv = "HERD_NPM_SERVERS"

// npmServers returns the folder of node_modules/.bin with the reference
// servers, or skips the test saying what is missing.
func npmServers(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts Node servers")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the npm reference servers cannot run (.ci/run installs them where Node is present)")
	}
	dir := os.Getenv(npmServersEnv)
	if dir == "" {
		t.Skipf("$%s is not set: install the servers with npm install --prefix DIR @modelcontextprotocol/server-everything @modelcontextprotocol/server-filesystem @modelcontextprotocol/server-memory @modelcontextprotocol/server-sequential-thinking, then set %s=DIR", npmServersEnv, npmServersEnv)
	}
	bin := filepath.Join(dir, "node_modules", ".bin")
	for _, s := range []string{"mcp-server-everything", "mcp-server-filesystem", "mcp-server-memory", "mcp-server-sequential-thinking"} {
		if _, err := os.Stat(filepath.Join(bin, s)); err != nil {
			t.Skipf("$%s=%s has no %s: %v", npmServersEnv, dir, s, err)
		}
	}
	return bin
}

// The reference servers, over stdio and (server-everything) Streamable
// HTTP: lint and inspect finish with 0 or 1, never 3; no read-only tool
// draws a destructive finding; every tool has an effect class and a
// token count.
func TestNPMReferenceServers(t *testing.T) {
	bin := npmServers(t)
	scratch := t.TempDir()
	if err := os.WriteFile(filepath.Join(scratch, "notes.txt"), []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	targets := map[string]string{
		"everything":          "mcp+stdio:node " + filepath.Join(bin, "mcp-server-everything") + " stdio",
		"filesystem":          "mcp+stdio:node " + filepath.Join(bin, "mcp-server-filesystem") + " " + scratch,
		"memory":              "mcp+stdio:env MEMORY_FILE_PATH=" + memory + " node " + filepath.Join(bin, "mcp-server-memory"),
		"sequential-thinking": "mcp+stdio:node " + filepath.Join(bin, "mcp-server-sequential-thinking"),
		"everything-http":     startEverythingHTTP(t, filepath.Join(bin, "mcp-server-everything")),
	}
	for name, target := range targets {
		t.Run(name, func(t *testing.T) {
			code, js, errOut := runHerd(t, "inspect", target, "--format", "json")
			if code != exitOK {
				t.Fatalf("inspect: exit %d: %s", code, errOut)
			}
			saved := writeFile(t, "tools.json", js)
			readOnly := readOnlyTools(t, saved)
			code, out, errOut := runHerd(t, "inspect", target)
			if code != exitOK || !strings.Contains(out, "TOOLS") {
				t.Errorf("inspect (text): exit %d: %s", code, errOut)
			}
			code, doc, errOut := lintJSON(t, target)
			if code != exitOK && code != exitThreshold {
				t.Fatalf("lint: exit %d, want 0 or 1: %s", code, errOut)
			}
			checkServerLint(t, doc, readOnly)
			r := doc.Reports[0]
			t.Logf("%s: %d tools, %d tokens (%s), %s; exit %d", name, len(r.Tools), r.Tokens.Total, r.Tokens.Encoding, r.Counts, code)
			for _, ts := range r.Tools {
				if ts.Effect == lint.EffectUnknown {
					t.Logf("  %s: unknown effect", ts.Tool)
				}
			}
		})
	}
}
