package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Every loader refuses, promptly, an input that is not a regular file: a
// FIFO (which blocked the loader until someone wrote to it) and /dev/zero
// (read until memory ran out).
func TestInputsAreRegularFilesOnly(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	inputs := []string{fifo}
	if _, err := os.Stat("/dev/zero"); err == nil {
		inputs = append(inputs, "/dev/zero")
	}
	for _, in := range inputs {
		for _, args := range [][]string{
			{"validate", in},
			{"inspect", in},
			{"report", in},
			{"lint", "mock:crm", "--descriptions", in},
			{"swarm", "mock:crm", "--agents", "2", "--personas", in},
		} {
			start := time.Now()
			code, _, errOut := herdInProcess(t, "", args...)
			if took := time.Since(start); took > 5*time.Second {
				t.Errorf("%v: refused after %s", args, took)
			}
			if code != exitUsage || !strings.Contains(errOut, "not a regular file") || !strings.Contains(errOut, in) {
				t.Errorf("%v: exit %d, stderr %q", args, code, errOut)
			}
		}
	}
}
