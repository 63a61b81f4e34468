package swarm

import (
	"sync/atomic"
	"time"
)

// startProgress reports progress (Config.Progress) until the returned
// function is called.
func (p *Plan) startProgress(done *atomic.Int64) func() {
	cfg := p.cfg
	if cfg.Progress == nil {
		return func() {}
	}
	stop := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		every := cfg.ProgressEvery
		if every <= 0 {
			every = time.Second
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				cfg.Progress(int(done.Load()), p.total)
			case <-stop:
				cfg.Progress(int(done.Load()), p.total)
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}
