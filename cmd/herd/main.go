// Command herd is a swarm load tester and agent-readiness reporter for
// tool-using AI agents. This package only parses flags and wires packages
// together; every command lives in its own file with an options struct and
// a run function that tests call directly.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	os.Exit(code)
}
