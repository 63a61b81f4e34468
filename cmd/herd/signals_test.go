package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// signalHarness drives onSignals as main does, with a fake exit.
type signalHarness struct {
	sigs   chan os.Signal
	stop   *swarm.Stopper
	ctx    context.Context
	exited chan int
	errw   lockedBuffer
}

func newSignalHarness(grace time.Duration) *signalHarness {
	h := &signalHarness{sigs: make(chan os.Signal, 3), stop: swarm.NewStopper(), exited: make(chan int, 1)}
	ctx, cancel := context.WithCancelCause(context.Background())
	h.ctx = swarm.WithStopper(ctx, h.stop)
	go onSignals(h.sigs, h.stop, cancel, grace, &h.errw, func(code int) { h.exited <- code })
	return h
}

func (h *signalHarness) exitCode(t *testing.T, within time.Duration) int {
	t.Helper()
	select {
	case code := <-h.exited:
		return code
	case <-time.After(within):
		t.Fatalf("no exit within %v; stderr: %s", within, h.errw.String())
		return 0
	}
}

// With no run in flight (loading, linting, validating, reading), the first
// signal exits at once, 128 + its number.
func TestFirstSignalWithNoRunExitsAtOnce(t *testing.T) {
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		h := newSignalHarness(time.Hour)
		h.sigs <- c.sig
		if got := h.exitCode(t, 2*time.Second); got != c.code {
			t.Errorf("%v: exit %d, want %d", c.sig, got, c.code)
		}
		if h.ctx.Err() != nil {
			t.Errorf("%v: the context was cancelled instead of the process exiting", c.sig)
		}
	}
}

// With a run in flight the first signal cancels its context (cause: the
// signal, for the exit code), the work in flight is abandoned when the
// grace passes, and the next signal exits at once.
func TestFirstSignalStopsARunThenAbandonsItAfterTheGrace(t *testing.T) {
	h := newSignalHarness(100 * time.Millisecond)
	done := swarm.Running(h.ctx)
	defer done()
	abandoned := h.stop.Abandoned()
	h.sigs <- syscall.SIGTERM
	select {
	case <-h.ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the first signal did not cancel the run's context")
	}
	if code, ok := interruptCode(h.ctx); !ok || code != 143 {
		t.Fatalf("interruptCode %d %v, want 143", code, ok)
	}
	select {
	case <-abandoned:
	case <-time.After(2 * time.Second):
		t.Fatal("work in flight not abandoned after the grace")
	}
	select {
	case code := <-h.exited:
		t.Fatalf("exited %d before a second signal", code)
	default:
	}
	h.sigs <- syscall.SIGINT
	if got := h.exitCode(t, 2*time.Second); got != 143 {
		t.Errorf("exit %d after the last signal, want 143 (the first signal's)", got)
	}
}

// A second signal abandons at once, without waiting for the grace.
func TestSecondSignalAbandonsBeforeTheGrace(t *testing.T) {
	h := newSignalHarness(time.Hour)
	defer swarm.Running(h.ctx)()
	abandoned := h.stop.Abandoned()
	h.sigs <- syscall.SIGINT
	<-h.ctx.Done()
	h.sigs <- syscall.SIGINT
	select {
	case <-abandoned:
	case <-time.After(2 * time.Second):
		t.Fatal("the second signal did not abandon the work in flight")
	}
	h.sigs <- syscall.SIGINT
	if got := h.exitCode(t, 2*time.Second); got != 130 {
		t.Errorf("exit %d, want 130", got)
	}
}

// The signal tests below run the real binary: a signal's exit code and
// what the process wrote are only visible from outside it.

// startHerd starts the herd binary with args, stderr collected, stdin
// from in (nil: none).
func startHerd(t *testing.T, in *os.File, args ...string) (*exec.Cmd, *lockedBuffer, <-chan error) {
	t.Helper()
	cmd := exec.Command(herdBinary(t), args...)
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if in != nil {
		cmd.Stdin = in
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-done
		}
	})
	return cmd, &stderr, done
}

// signalAndWait sends sig and waits at most within for the process to
// end, returning its exit code and how long it took. ok is false when the
// process had ended before the signal (it was not slow enough to catch).
func signalAndWait(t *testing.T, cmd *exec.Cmd, done <-chan error, stderr *lockedBuffer, sig syscall.Signal, within time.Duration) (code int, took time.Duration, ok bool) {
	t.Helper()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode(), 0, false
	default:
	}
	sent := time.Now()
	if err := cmd.Process.Signal(sig); err != nil {
		if errors.Is(err, os.ErrProcessDone) {
			<-done
			return cmd.ProcessState.ExitCode(), 0, false
		}
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(within):
		t.Fatalf("herd did not stop within %v of %v:\n%s", within, sig, stderr.String())
	}
	return cmd.ProcessState.ExitCode(), time.Since(sent), true
}

// waitFor waits until stderr holds want (the process reached a phase).
func waitFor(t *testing.T, stderr *lockedBuffer, done <-chan error, want string, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(stderr.String(), want) {
		select {
		case <-done:
			t.Fatalf("herd ended before %q:\n%s", want, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %v:\n%s", want, within, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bigWorld writes a world with the scaffold's goal and tools plus n
// look-alike read tools: linting it takes seconds.
func bigWorld(t *testing.T, n int) string {
	t.Helper()
	src, err := os.ReadFile("testdata/retryafter.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var tools bytes.Buffer
	tools.WriteString("tools:\n")
	for i := range n {
		fmt.Fprintf(&tools, "  get_note_%d:\n    kind: get\n    record: note\n    descriptions: {clear: \"Fetch one note by id number %d from the store; read-only, changes nothing.\", ambiguous: \"Get note %d.\"}\n    params:\n      id: {type: str, required: true, description: \"Note id.\"}\n", i, i, i)
	}
	world := strings.Replace(string(src), "tools:\n", tools.String(), 1)
	path := filepath.Join(t.TempDir(), "big.yaml")
	if err := os.WriteFile(path, []byte(world), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var stopSignals = []struct {
	sig  syscall.Signal
	code int
}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}}

// herd lint of a big world exits on the first signal, 130 or 143.
func TestSignalStopsLintOfABigWorld(t *testing.T) {
	world := bigWorld(t, 1500)
	for _, c := range stopSignals {
		t.Run(c.sig.String(), func(t *testing.T) {
			cmd, stderr, done := startHerd(t, nil, "lint", world, "--format", "json")
			time.Sleep(300 * time.Millisecond) // loaded, and linting
			code, took, ok := signalAndWait(t, cmd, done, stderr, c.sig, 3*time.Second)
			if !ok {
				t.Skipf("herd lint finished (exit %d) before the signal: the world is not slow enough to lint on this machine", code)
			}
			if code != c.code || took > 2*time.Second {
				t.Errorf("exit %d %v after %v, want %d at once:\n%s", code, took, c.sig, c.code, stderr.String())
			}
		})
	}
}

// herd report reading a standard input that never ends exits on the
// first signal: a reader blocked in a read is no run in flight.
func TestSignalStopsAReportReadingStdin(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	defer r.Close()
	if _, err := w.WriteString(`{"schema": `); err != nil {
		t.Fatal(err)
	}
	cmd, stderr, done := startHerd(t, r, "report", "-")
	time.Sleep(300 * time.Millisecond)
	code, took, ok := signalAndWait(t, cmd, done, stderr, syscall.SIGTERM, 3*time.Second)
	if !ok || code != 143 || took > 2*time.Second {
		t.Errorf("exit %d (signalled %v) %v after SIGTERM, want 143 at once:\n%s", code, ok, took, stderr.String())
	}
}

// herd swarm exits on the first signal while it connects to its target,
// before its run loop: nothing has finished, and no results are written.
func TestSignalStopsASwarmBeforeItsLoop(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep command to stand for a server that never answers")
	}
	js := filepath.Join(t.TempDir(), "run.json")
	cmd, stderr, done := startHerd(t, nil, "swarm", "mcp+stdio:"+sleep+" 120", "--agents", "5", "--json", js)
	time.Sleep(500 * time.Millisecond) // waiting for an initialize answer that never comes
	code, took, ok := signalAndWait(t, cmd, done, stderr, syscall.SIGINT, 3*time.Second)
	if !ok || code != 130 || took > 2*time.Second {
		t.Errorf("exit %d (signalled %v) %v after SIGINT, want 130 at once:\n%s", code, ok, took, stderr.String())
	}
	if _, err := os.Stat(js); err == nil {
		t.Error("a results file was written though no episode ran")
	}
}

// A signal during the lint a finished swarm does before writing its
// results stops the lint, not the results: they are written, complete,
// and herd exits 130.
func TestSignalDuringASwarmsLintPhase(t *testing.T) {
	world := bigWorld(t, 1500)
	js := filepath.Join(t.TempDir(), "run.json")
	cmd, stderr, done := startHerd(t, nil, "swarm", world, "--agents", "20", "--variant", "clear,ambiguous",
		"--json", js, "--progress", "always")
	waitFor(t, stderr, done, "(100%)", 60*time.Second)
	code, took, ok := signalAndWait(t, cmd, done, stderr, syscall.SIGINT, 5*time.Second)
	if !ok {
		t.Skipf("herd swarm linted and finished (exit %d) before the signal: not slow enough to catch on this machine", code)
	}
	if code != 130 || took > 3*time.Second {
		t.Errorf("exit %d %v after SIGINT, want 130 within the lint's abandonment:\n%s", code, took, stderr.String())
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatalf("the finished run's results were not written: %v\n%s", err, stderr.String())
	}
	if res.Partial || res.Episodes != 40 {
		t.Errorf("partial %v, %d episodes: every episode had finished", res.Partial, res.Episodes)
	}
	if !strings.Contains(stderr.String(), "without the description lint") {
		t.Errorf("stderr does not say the lint was skipped:\n%s", stderr.String())
	}
}

// A transport run whose agents sleep out a world's retry-after of an
// hour stops within seconds of the first signal: the grace passes, the
// sleeps are abandoned, and what finished is written, marked partial.
func TestSignalStopsAgentsSleepingAnHourLongRetryAfter(t *testing.T) {
	for _, c := range stopSignals {
		t.Run(c.sig.String(), func(t *testing.T) {
			js := filepath.Join(t.TempDir(), "run.json")
			cmd, stderr, done := startHerd(t, nil, "swarm", "serve:testdata/retryafter.yaml", "--faults", "stall",
				"--agents", "40", "--json", js, "--progress", "always")
			waitFor(t, stderr, done, "episodes (", 60*time.Second)
			code, took, ok := signalAndWait(t, cmd, done, stderr, c.sig, 15*time.Second)
			if !ok || code != c.code {
				t.Fatalf("exit %d (signalled %v) after %v, want %d:\n%s", code, ok, c.sig, c.code, stderr.String())
			}
			t.Logf("stopped %v after %v", took, c.sig)
			res, err := report.ReadFile(js)
			if err != nil {
				t.Fatalf("no results: %v\n%s", err, stderr.String())
			}
			if !res.Partial || res.Episodes >= 40 {
				t.Errorf("partial %v with %d of 40 episodes", res.Partial, res.Episodes)
			}
			if res.Run.Agents != 40 {
				t.Errorf("run.agents %d, want the 40 planned", res.Run.Agents)
			}
		})
	}
}

// Without a signal, a world's retry-after of an hour is waited for at
// most the per-call timeout: the run ends in seconds.
func TestRetryAfterIsCappedByTheCallTimeout(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	cmd, stderr, done := startHerd(t, nil, "swarm", "serve:testdata/retryafter.yaml", "--faults", "stall",
		"--agents", "14", "--call-timeout", "1s", "--json", js, "--progress", "never")
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatalf("the run did not end within 60s: a retry-after of an hour was waited for:\n%s", stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	res, err := report.ReadFile(js)
	if err != nil || res.Partial || res.Episodes != 14 {
		t.Fatalf("results %v: %+v", err, res)
	}
}
