package swarm

import (
	"sync/atomic"
	"time"
)

// startProgress calls progress (Config.Progress) from one goroutine about
// every `every` (0: a second) with the episodes done so far and the total,
// and once more when the returned function stops it. A nil progress
// reports nothing.
func startProgress(progress func(done, total int), every time.Duration, total int, done *atomic.Int64) func() {
	if progress == nil {
		return func() {}
	}
	if every <= 0 {
		every = time.Second
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				progress(int(done.Load()), total)
			case <-stop:
				progress(int(done.Load()), total)
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}
