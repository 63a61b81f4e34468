package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The npm reference MCP servers are found by npmServers (npmservers_test.go):
// $HERD_NPM_SERVERS is the npm prefix they are installed in (.ci/run does it
// where Node is present).

// Against the npm reference servers — everything over stdio and over
// Streamable HTTP, filesystem on a scratch folder, memory and sequential
// thinking — herd swarm and a 10-second load run each finish with exit 0
// or 1 (a threshold's verdict), never 3: the long-running tool, the
// servers' log lines on stdout and the ids they rightly refuse no longer
// end or spoil a run.
func TestExternalNPMReferenceServers(t *testing.T) {
	binDir := npmServers(t)
	bin := func(name string) string { return filepath.Join(binDir, name) }
	scratch := t.TempDir()
	if err := os.WriteFile(filepath.Join(scratch, "notes.txt"), []byte("alpha\nbeta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(scratch, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	memory := filepath.Join(t.TempDir(), "memory.jsonl")
	targets := []struct{ name, target string }{
		{"everything", "mcp+stdio:" + bin("mcp-server-everything")},
		{"everything-http", startEverythingHTTP(t, bin("mcp-server-everything"))},
		{"filesystem", "mcp+stdio:" + bin("mcp-server-filesystem") + " " + scratch},
		{"memory", "mcp+stdio:env MEMORY_FILE_PATH=" + memory + " " + bin("mcp-server-memory")},
		{"sequential-thinking", "mcp+stdio:" + bin("mcp-server-sequential-thinking")},
	}
	for _, tc := range targets {
		t.Run(tc.name, func(t *testing.T) {
			for _, run := range [][]string{
				{"--agents", "120", "--allow-writes"},
				{"--rate", "50", "--duration", "10s", "--call-timeout", "15s", "--allow-writes"},
			} {
				js := filepath.Join(t.TempDir(), "run.json")
				start := time.Now()
				code, _, errOut := runHerd(t, append(append([]string{"swarm", tc.target}, run...), "--json", js, "--progress", "never")...)
				if code != 0 && code != 1 {
					t.Fatalf("%v: exit %d, want 0 or 1:\n%s", run, code, errOut)
				}
				res := readRunJSON(t, js)
				if res.Timing == nil || res.Timing.Stopped == "" || res.Timing.Server == nil {
					t.Fatalf("%v: no stop reason or server section: %+v", run, res.Timing)
				}
				if strings.HasPrefix(tc.target, "mcp+stdio:") && res.Timing.Server.Processes == 0 {
					t.Errorf("%v: the pool size is not reported", run)
				}
				for k, n := range classesOf(res) {
					if strings.HasSuffix(k, ":hung") || strings.HasSuffix(k, ":crashed") {
						t.Errorf("%v: %s %d", run, k, n)
					}
				}
				t.Logf("%v: exit %d in %.1fs, %d episodes, stopped %s", run, code, time.Since(start).Seconds(), res.Episodes, res.Timing.Stopped)
			}
		})
	}
}

// startEverythingHTTP starts server-everything's Streamable HTTP mode on a
// free loopback port (a preload keeps it off other interfaces) and returns
// its MCP URL; the server is stopped when the test ends.
func startEverythingHTTP(t *testing.T, bin string) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	preload, err := filepath.Abs("testdata/npm/loopback.cjs")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", "-r", preload, bin, "streamableHttp")
	cmd.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "listening on port") {
				close(ready)
				break
			}
		}
		for sc.Scan() { // keep draining, so the server never blocks on stderr
		}
	}()
	select {
	case <-ready:
	case <-time.After(20 * time.Second):
		t.Fatal("server-everything over HTTP did not say it was listening within 20s")
	}
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port)
}
