package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress shows how far a run is: mpb bars when stderr is a terminal (mpb
// draws nothing otherwise), a plain line a second when it is not (CI logs),
// nothing with --progress never.
type progress struct {
	w       io.Writer
	mode    string // "bar", "line", "none"
	total   int
	every   time.Duration
	started time.Time

	mu   sync.Mutex
	p    *mpb.Progress
	bar  *mpb.Bar
	last int
}

func newProgress(w io.Writer, flag string, total int) *progress {
	pr := &progress{w: w, total: total, every: time.Second, started: time.Now()}
	switch {
	case flag == "never":
		pr.mode = "none"
	case flag == "auto" && isTerminal(w):
		pr.mode = "bar"
		pr.every = 100 * time.Millisecond
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(48), mpb.WithRefreshRate(100*time.Millisecond))
		pr.bar = pr.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name("episodes "), decor.CountersNoUnit("%d / %d")),
			mpb.AppendDecorators(decor.Percentage(), decor.Name(" "), decor.AverageSpeed(0, "%.0f/s")),
		)
	default:
		pr.mode = "line"
	}
	return pr
}

// update is called about every pr.every with the episodes finished.
func (pr *progress) update(done, total int) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	switch pr.mode {
	case "bar":
		pr.bar.IncrBy(done - pr.last)
	case "line":
		if done == pr.last && done != total {
			return
		}
		secs := time.Since(pr.started).Seconds()
		fmt.Fprintf(pr.w, "herd: %d/%d episodes (%.0f%%) in %.1fs, %.0f/s\n", done, total, 100*float64(done)/float64(max(total, 1)), secs, float64(done)/max(secs, 1e-9))
	}
	pr.last = done
}

// finish stops the bars (they must be gone before the summary prints).
func (pr *progress) finish() {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if pr.mode == "bar" {
		if !pr.bar.Completed() {
			pr.bar.Abort(false)
		}
		pr.p.Wait()
	}
}
