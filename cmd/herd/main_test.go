package main

import (
	"os"
	"testing"
)

// TestMain removes the binaries buildBinary built for the tests that need
// a real process.
func TestMain(m *testing.M) {
	code := m.Run()
	if binaries.dir != "" {
		_ = os.RemoveAll(binaries.dir)
	}
	os.Exit(code)
}
