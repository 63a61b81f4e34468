// Command herd is a swarm load tester and agent-readiness reporter for
// tool-using AI agents. This package only parses flags and wires packages
// together; every command lives in its own file with an options struct and
// a run function that tests call directly.
package main

import (
	"context"
	"errors"
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

// interrupted is the cause of a context cancelled by a signal: a run that
// stops for it exits 128 + the signal's number, as a shell reports a
// process the signal killed (130 for Ctrl-C, 143 for SIGTERM), so a stopped
// run never looks like one that passed.
type interrupted struct{ sig syscall.Signal }

func (i interrupted) Error() string { return "interrupted by " + i.sig.String() }

// exitCode is the code a run stopped by the signal exits with.
func (i interrupted) exitCode() int { return 128 + int(i.sig) }

// interruptCode is the exit code of a run whose context a signal
// cancelled, and false when no signal did.
func interruptCode(ctx context.Context) (int, bool) {
	var i interrupted
	if errors.As(context.Cause(ctx), &i) {
		return i.exitCode(), true
	}
	return 0, false
}

// interrupts turns SIGINT/SIGTERM into two stops: the first cancels ctx (a
// run stops starting agents, lets those in flight finish and writes its
// results); the second closes abandon (a run stops waiting for in-flight
// work and writes what finished); a third exits at once.
func interrupts(parent context.Context) (context.Context, <-chan struct{}) {
	ctx, cancel := context.WithCancelCause(parent)
	abandon := make(chan struct{})
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		first := interrupted{sig: syscall.SIGINT}
		if s, ok := (<-sigs).(syscall.Signal); ok {
			first.sig = s
		}
		cancel(first)
		<-sigs
		fmt.Fprintln(os.Stderr, "herd: second interrupt: abandoning work in flight (once more to exit at once)")
		close(abandon)
		<-sigs
		os.Exit(first.exitCode())
	}()
	return ctx, abandon
}
