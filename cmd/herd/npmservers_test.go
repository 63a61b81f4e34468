package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
		"everything-http":     startEverythingHTTP(t, bin),
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

// startEverythingHTTP starts server-everything's Streamable HTTP mode on
// a free loopback port and returns its /mcp URL; the test ends it.
func startEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "node", filepath.Join(bin, "mcp-server-everything"), "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
	})
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("server-everything streamableHttp did not listen on %s within 20s", addr)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return "http://" + addr + "/mcp"
}
