// Command herd is a swarm load tester and agent-readiness reporter for
// tool-using AI agents. This package only parses flags and wires packages
// together; every command lives in its own file with an options struct and
// a run function that tests call directly.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/herd-sh/herd/swarm"
)

func main() {
	stop := swarm.NewStopper()
	ctx, cancel := context.WithCancelCause(context.Background())
	ctx = swarm.WithStopper(ctx, stop)
	sigs := make(chan os.Signal, 3)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go onSignals(sigs, stop, cancel, abandonGrace, os.Stderr, os.Exit)
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// abandonGrace is how long a run's in-flight work may go on after the
// first interrupt before it is abandoned: long enough for in-process
// agents and quick calls to finish (their episodes are kept), short enough
// that an agent sleeping out a server's retry-after, or a call to a server
// that hangs, does not hold the process.
const abandonGrace = 2 * time.Second

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

// onSignals is the one place where SIGINT and SIGTERM become stops; main
// runs it on its own goroutine. The first signal exits at once (128 + its
// number) when no run is in flight (stop.InFlight): loading, linting,
// validating, reading, a server starting — there is nothing finished to
// save. When a run is in flight it cancels the run's context with cause
// interrupted (the run stops starting agents and lets those in flight
// finish), then abandons the work still in flight (stop.Abandon: the run
// writes what finished) when grace has passed or the next signal comes,
// whichever is first. Any signal after that exits at once.
func onSignals(sigs <-chan os.Signal, stop *swarm.Stopper, cancel context.CancelCauseFunc, grace time.Duration, errw io.Writer, exit func(int)) {
	first := interrupted{sig: syscall.SIGINT}
	if s, ok := (<-sigs).(syscall.Signal); ok {
		first.sig = s
	}
	if !stop.InFlight() {
		fmt.Fprintf(errw, "herd: %v\n", first)
		exit(first.exitCode())
		return
	}
	cancel(first)
	fmt.Fprintf(errw, "herd: %v: no new agent starts; work still in flight is abandoned in %v (again to abandon it now, a third time to exit at once)\n", first, grace)
	timer := time.NewTimer(grace)
	select {
	case <-timer.C:
	case <-sigs:
		timer.Stop()
		fmt.Fprintln(errw, "herd: second interrupt: abandoning work in flight (once more to exit at once)")
	}
	stop.Abandon()
	<-sigs
	exit(first.exitCode())
}
