package swarm

import (
	"sync/atomic"
	"time"

	"github.com/herd-sh/herd/engine"
)

// Progress is how far a run is, as its progress callback (Config.Progress)
// sees it.
type Progress struct {
	Done    int // episodes finished
	Total   int // episodes planned
	Harmful int // of the finished, those that ended harmful
	Started int // agents started (over a transport: as many as the pacer let in)
}

// tally is what the run loop counts for the progress callback, from every
// worker at once.
type tally struct {
	done, harmful, started atomic.Int64
}

// finished counts an agent's episodes (one per variant) once it is judged.
func (t *tally) finished(r *AgentResult, variants int) {
	harmful := 0
	for _, o := range r.Outcomes[:variants] {
		if o.Severity == engine.SeverityHarmful {
			harmful++
		}
	}
	// done first, harmful after, and read the other way round: a reader
	// never sees a harmful episode that done does not count yet.
	t.done.Add(int64(variants))
	t.harmful.Add(int64(harmful))
}

func (t *tally) progress(total int) Progress {
	h := t.harmful.Load() // before done: see finished
	return Progress{Done: int(t.done.Load()), Total: total, Harmful: int(h), Started: int(t.started.Load())}
}

// startProgress calls progress (Config.Progress) from one goroutine about
// every `every` (0: a second) with how far the run is, and once more when
// the returned function stops it. A nil progress reports nothing.
func startProgress(progress func(Progress), every time.Duration, total int, t *tally) func() {
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
		tk := time.NewTicker(every)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				progress(t.progress(total))
			case <-stop:
				progress(t.progress(total))
				return
			}
		}
	}()
	return func() {
		close(stop)
		<-finished
	}
}
