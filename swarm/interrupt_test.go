package swarm

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestInflightContextOutlivesTheFirstStopNotTheSecond(t *testing.T) {
	abandon := make(chan struct{})
	parent, cancel := context.WithCancel(context.Background())
	inflight, stop := inflightContext(WithAbandon(parent, abandon))
	defer stop(nil)

	cancel() // first interrupt: in-flight work goes on
	select {
	case <-inflight.Done():
		t.Fatal("in-flight context cancelled by the first interrupt")
	case <-time.After(20 * time.Millisecond):
	}
	close(abandon) // second interrupt
	select {
	case <-inflight.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("in-flight context not cancelled by the second interrupt")
	}
	if !errors.Is(context.Cause(inflight), ErrAbandoned) {
		t.Fatalf("cause %v, want ErrAbandoned", context.Cause(inflight))
	}
}
