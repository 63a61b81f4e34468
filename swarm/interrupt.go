package swarm

import (
	"context"
	"errors"
	"sync"
)

// ErrAbandoned is why in-flight episodes stopped: an interrupt came and
// its grace passed, or a second one came.
var ErrAbandoned = errors.New("abandoned after an interrupt")

type abandonKey struct{}

type stopperKey struct{}

// WithAbandon returns a context that carries a second, harder stop: when
// ctx is cancelled a run stops starting agents and lets those in flight
// finish; when abandon closes too, it stops waiting for them (their calls
// are cancelled) and writes what finished. In-process episodes take
// microseconds and are never abandoned; over a transport an episode can
// wait seconds for a slow server.
func WithAbandon(ctx context.Context, abandon <-chan struct{}) context.Context {
	return context.WithValue(ctx, abandonKey{}, abandon)
}

// Stopper is what a process's stop signals and the work they stop share.
// The signal handler (cmd/herd's) asks InFlight: when no run is in flight
// — a run loop that stops cleanly and writes what it finished, or a
// server that shuts down cleanly — there is nothing to save and the
// process exits at once; when one is, the handler cancels the run's
// context and, after a short grace or on the next signal, calls Abandon.
// The zero Stopper is not usable: make one with NewStopper.
type Stopper struct {
	mu        sync.Mutex
	runs      int
	abandon   chan struct{}
	abandoned bool
}

// NewStopper returns a Stopper with no run in flight.
func NewStopper() *Stopper { return &Stopper{abandon: make(chan struct{})} }

// WithStopper returns a context carrying s: Running marks work done under
// it as in flight, and runs under it abandon their in-flight work when
// s.Abandon is called.
func WithStopper(ctx context.Context, s *Stopper) context.Context {
	return WithAbandon(context.WithValue(ctx, stopperKey{}, s), s.abandon)
}

// Running marks a run in flight on the Stopper ctx carries until done is
// called; with none it does nothing. A command calls it where stopping
// starts to need care (a run loop begins, a server starts serving) and
// calls done once the work's results are written.
func Running(ctx context.Context) (done func()) {
	s, ok := ctx.Value(stopperKey{}).(*Stopper)
	if !ok || s == nil {
		return func() {}
	}
	s.mu.Lock()
	s.runs++
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.runs--
			s.mu.Unlock()
		})
	}
}

// InFlight reports whether a run is in flight (Running was called and its
// done was not).
func (s *Stopper) InFlight() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.runs > 0
}

// Abandon cuts short the work in flight: the calls of agents already
// started are cancelled, and runs write what finished. Calling it again
// does nothing.
func (s *Stopper) Abandon() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.abandoned {
		s.abandoned = true
		close(s.abandon)
	}
}

// Abandoned is closed once Abandon has been called.
func (s *Stopper) Abandoned() <-chan struct{} { return s.abandon }

// inflightContext is the context in-flight agents run under: not cancelled
// with ctx (they finish), but cancelled with cause ErrAbandoned when ctx
// carries an abandon channel that closes. stop releases it.
func inflightContext(ctx context.Context) (context.Context, context.CancelCauseFunc) {
	inflight, stop := context.WithCancelCause(context.WithoutCancel(ctx))
	if abandon, ok := ctx.Value(abandonKey{}).(<-chan struct{}); ok && abandon != nil {
		go func() {
			select {
			case <-abandon:
				stop(ErrAbandoned)
			case <-inflight.Done():
			}
		}()
	}
	return inflight, stop
}
