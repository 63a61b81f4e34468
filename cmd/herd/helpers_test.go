package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// runHerd runs herd in-process with args and empty standard input, and
// returns its exit code and what it printed.
func runHerd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return herdInProcess(t, "", args...)
}

// herdInProcess is runHerd with stdin as standard input.
func herdInProcess(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// binaries holds the programs tests build (once per test process) into
// one temp dir, which TestMain removes.
var binaries struct {
	mu    sync.Mutex
	dir   string
	built map[string]string // package → binary
	err   map[string]error  // package → why it did not build
}

// buildBinary builds the Go package pkg (relative to this one) as name,
// once per test process, and returns the binary's path.
func buildBinary(t *testing.T, pkg, name string) string {
	t.Helper()
	binaries.mu.Lock()
	defer binaries.mu.Unlock()
	if p, ok := binaries.built[pkg]; ok {
		return p
	}
	if err := binaries.err[pkg]; err != nil {
		t.Fatalf("building %s: %v", pkg, err)
	}
	if binaries.dir == "" {
		dir, err := os.MkdirTemp("", "herd-bin-")
		if err != nil {
			t.Fatal(err)
		}
		binaries.dir = dir
		binaries.built, binaries.err = map[string]string{}, map[string]error{}
	}
	path := filepath.Join(binaries.dir, name)
	if out, err := exec.Command("go", "build", "-o", path, pkg).CombinedOutput(); err != nil {
		binaries.err[pkg] = err
		t.Fatalf("building %s: %v\n%s", pkg, err, out)
	}
	binaries.built[pkg] = path
	return path
}

// herdBinary is the herd binary, for tests that need a real process
// (signals, stdio). Building it takes seconds: -short skips such tests.
func herdBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the herd binary")
	}
	return buildBinary(t, ".", "herd")
}

// testServer is testdata/mcpserver, an MCP server that is not herd.
func testServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a test MCP server")
	}
	return buildBinary(t, "./testdata/mcpserver", "mcpserver")
}
