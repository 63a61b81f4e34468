package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMain removes the herd binary that herdBinary builds (once per test
// process, into a temp dir) for the tests that need a real process.
func TestMain(m *testing.M) {
	code := m.Run()
	if herdBinPath != "" {
		_ = os.RemoveAll(filepath.Dir(herdBinPath))
	}
	os.Exit(code)
}
