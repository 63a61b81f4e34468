// Command herd is a swarm load tester and agent-readiness reporter for
// tool-using AI agents. This package only parses flags and wires packages
// together; every command lives in its own file with an options struct and
// a run function that tests call directly.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/herd-sh/herd/swarm"
)

func main() {
	ctx, abandon := interrupts(context.Background())
	ctx = swarm.WithAbandon(ctx, abandon)
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// interrupts turns SIGINT/SIGTERM into two stops: the first cancels ctx (a
// run stops starting agents, lets those in flight finish and writes its
// results); the second closes abandon (a run stops waiting for in-flight
// work and writes what finished); a third exits at once.
func interrupts(parent context.Context) (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancel(parent)
	abandon := make(chan struct{})
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sigs
		cancel()
		<-sigs
		fmt.Fprintln(os.Stderr, "herd: second interrupt: abandoning work in flight (once more to exit at once)")
		close(abandon)
		<-sigs
		os.Exit(130)
	}()
	return ctx, abandon
}
