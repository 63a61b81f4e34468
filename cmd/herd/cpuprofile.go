package main

import (
	"fmt"
	"io"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// addCPUProfileFlag adds the hidden --cpuprofile FILE flag to a
// long-running command (herd serve, herd swarm): a load test's figures are
// only as good as the account of where its CPU went, on the server and on
// the client, and `go tool pprof` reads the file. It is hidden because it
// is for whoever measures herd itself, not part of setting up a test
// (docs/cli.md, "Profiling herd itself").
func addCPUProfileFlag(cmd *cobra.Command, path *string) {
	f := cmd.Flags()
	f.StringVar(path, "cpuprofile", "", "write a CPU profile of the whole command to FILE (for go tool pprof)")
	_ = f.MarkHidden("cpuprofile") // cannot fail: the flag was just added
}

// startCPUProfile starts profiling the process into path (nothing when path
// is empty) and returns what stops it and closes the file; a file that
// could not be written in full is said on errw. The file is created before
// anything runs, so a path that cannot be written is a usage error at the
// start, not a profile lost at the end.
func startCPUProfile(path string, errw io.Writer) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, usageErrf("--cpuprofile: %v", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, usageErrf("--cpuprofile %s: %v", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			fmt.Fprintf(errw, "herd: --cpuprofile %s: %v\n", path, err)
		}
	}, nil
}
