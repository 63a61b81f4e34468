package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readProfile checks that path holds a CPU profile as runtime/pprof writes
// it (a gzipped protocol buffer) and returns its decompressed size.
func readProfile(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the profile was not written: %v", err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s is not a gzipped profile: %v", path, err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s does not decompress: %v", path, err)
	}
	return len(raw)
}

func TestCPUProfileFlagWritesAProfile(t *testing.T) {
	dir := t.TempDir()
	t.Run("swarm", func(t *testing.T) {
		p := filepath.Join(dir, "swarm.pprof")
		code, _, stderr := runHerd(t, "swarm", "mock:crm", "--agents", "300", "--quiet", "--cpuprofile", p)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if n := readProfile(t, p); n == 0 {
			t.Fatal("the profile is empty")
		}
	})
	t.Run("serve", func(t *testing.T) {
		// Over stdio with nothing on stdin, herd serve starts and stops at
		// once: the profile is still closed and complete.
		p := filepath.Join(dir, "serve.pprof")
		code, _, stderr := runHerd(t, "serve", "mock:crm", "--log-level", "error", "--cpuprofile", p)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if n := readProfile(t, p); n == 0 {
			t.Fatal("the profile is empty")
		}
	})
}

func TestCPUProfileFlagRefusesAnUnwritablePath(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no-such-folder", "p.pprof")
	for _, args := range [][]string{
		{"swarm", "mock:crm", "--agents", "10", "--quiet", "--cpuprofile", p},
		{"serve", "mock:crm", "--cpuprofile", p},
	} {
		code, _, stderr := runHerd(t, args...)
		if code != 2 || !strings.Contains(stderr, "--cpuprofile") || !strings.Contains(stderr, "no-such-folder") {
			t.Errorf("herd %s: exit %d, stderr %q; want exit 2 naming --cpuprofile and the path", args[0], code, stderr)
		}
	}
}

// The flag is for measuring herd itself: it is not in the help a user reads.
func TestCPUProfileFlagIsHidden(t *testing.T) {
	for _, cmd := range []string{"swarm", "serve"} {
		code, stdout, stderr := runHerd(t, cmd, "--help")
		if code != 0 {
			t.Fatalf("herd %s --help: exit %d: %s", cmd, code, stderr)
		}
		if strings.Contains(stdout+stderr, "cpuprofile") {
			t.Errorf("herd %s --help lists --cpuprofile", cmd)
		}
	}
}
