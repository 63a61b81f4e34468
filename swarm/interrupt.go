package swarm

import (
	"context"
	"errors"
)

// ErrAbandoned is why in-flight episodes stopped after a second interrupt.
var ErrAbandoned = errors.New("abandoned by a second interrupt")

type abandonKey struct{}

// WithAbandon returns a context that carries a second, harder stop: when
// ctx is cancelled a run stops starting agents and lets those in flight
// finish; when abandon closes too, it stops waiting for them (their calls
// are cancelled) and writes what finished. In-process episodes take
// microseconds and are never abandoned; over a transport an episode can
// wait seconds for a slow server.
func WithAbandon(ctx context.Context, abandon <-chan struct{}) context.Context {
	return context.WithValue(ctx, abandonKey{}, abandon)
}

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
