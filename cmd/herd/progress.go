package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// progress shows how far a run is: an mpb bar when stderr is a terminal
// (mpb draws nothing otherwise), a plain line a second when it is not (CI
// logs), nothing with --progress never. Both say the same: episodes done
// of planned, elapsed time and what is left, and the harmful rate so far;
// a load run (a --duration) says how much of its time has passed and the
// rate agents actually started at.
type progress struct {
	w       io.Writer
	mode    string // "bar", "line", "none"
	every   time.Duration
	started time.Time
	load    progressLoad

	mu   sync.Mutex
	p    *mpb.Progress
	bar  *mpb.Bar
	last swarm.Progress
}

// progressLoad is what a load run adds to the display: how long it lasts
// (0: until its agents are done) and the rate asked for (0: unpaced).
type progressLoad struct {
	duration time.Duration
	rate     float64
}

func newProgress(w io.Writer, flag string, total int, load progressLoad) *progress {
	pr := &progress{w: w, every: time.Second, started: time.Now(), load: load, last: swarm.Progress{Total: total}}
	switch {
	case flag == "never":
		pr.mode = "none"
	case flag == "auto" && isTerminal(w):
		pr.mode = "bar"
		pr.every = 100 * time.Millisecond
		pr.p = mpb.New(mpb.WithOutput(w), mpb.WithWidth(32), mpb.WithRefreshRate(100*time.Millisecond))
		// One decorator each side reads the run's own figures (mpb's
		// counters know no thousands separators, harm or load).
		pr.bar = pr.p.AddBar(int64(max(total, 1)),
			mpb.PrependDecorators(decor.Any(func(decor.Statistics) string { return pr.text(false) })),
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return pr.text(true) })),
		)
	default:
		pr.mode = "line"
	}
	return pr
}

// update is called about every pr.every with how far the run is.
func (pr *progress) update(now swarm.Progress) {
	pr.mu.Lock()
	prev := pr.last
	pr.last = now
	pr.mu.Unlock()
	switch pr.mode {
	case "bar":
		pr.bar.IncrBy(now.Done - prev.Done)
	case "line":
		if now.Done == prev.Done && now.Done != now.Total && pr.load.duration == 0 {
			return
		}
		fmt.Fprintf(pr.w, "herd: %s\n", pr.text(false)+", "+pr.text(true))
	}
}

// text is the display's words: what has been done (head) or how it goes
// (tail: elapsed, what is left, speed, harm).
func (pr *progress) text(tail bool) string {
	pr.mu.Lock()
	now := pr.last
	pr.mu.Unlock()
	return progressText(now, time.Since(pr.started), pr.load, tail)
}

// progressText words a run's progress after elapsed: head is "1,234 / 5,000
// episodes (24%)", tail "3.1s, ETA 9.8s, 398/s, harmful 9.6%"; a load run's
// head is "12s / 30s, 2,380 agents started" and its tail says the start
// rate achieved (and asked for).
func progressText(now swarm.Progress, elapsed time.Duration, load progressLoad, tail bool) string {
	secs := max(elapsed.Seconds(), 1e-9)
	if !tail {
		if load.duration > 0 {
			return fmt.Sprintf("%s / %s, %s agents started, %s episodes done",
				roundDuration(elapsed), roundDuration(load.duration), report.Thousands(int64(now.Started)), report.Thousands(int64(now.Done)))
		}
		return fmt.Sprintf("%s / %s episodes (%.0f%%)", report.Thousands(int64(now.Done)), report.Thousands(int64(now.Total)),
			100*float64(now.Done)/float64(max(now.Total, 1)))
	}
	parts := []string{}
	if load.duration > 0 {
		rate := fmt.Sprintf("%s agents/s", rateText(float64(now.Started)/secs))
		if load.rate > 0 {
			rate += " (asked " + rateText(load.rate) + ")"
		}
		parts = append(parts, rate)
	} else {
		parts = append(parts, roundDuration(elapsed).String())
		if eta, ok := remaining(now, elapsed); ok {
			parts = append(parts, "ETA "+roundDuration(eta).String())
		}
		parts = append(parts, rateText(float64(now.Done)/secs)+"/s")
	}
	if now.Done > 0 {
		parts = append(parts, "harmful "+report.Pct(float64(now.Harmful)/float64(now.Done))+"%")
	}
	return strings.Join(parts, ", ")
}

// remaining is the time left at the speed so far; false before anything
// finished (no speed yet) and once everything has.
func remaining(now swarm.Progress, elapsed time.Duration) (time.Duration, bool) {
	if now.Done <= 0 || now.Done >= now.Total {
		return 0, false
	}
	return time.Duration(float64(elapsed) * float64(now.Total-now.Done) / float64(now.Done)), true
}

// roundDuration rounds to what a person reads: tenths of a second under a
// minute, whole seconds above.
func roundDuration(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Second)
}

// rateText is a per-second rate with thousands separators; one decimal
// under 100.
func rateText(r float64) string {
	if r < 100 {
		return fmt.Sprintf("%.1f", r)
	}
	return report.Thousands(int64(r + 0.5))
}

// finish stops the bar: it must be gone before the summary prints. A run
// cut short (Ctrl-C) drops the bar, line and all, rather than leave its
// last frame for the terminal's ^C echo to garble; the run's own line says
// how far it got.
func (pr *progress) finish() {
	if pr.mode != "bar" {
		return
	}
	pr.mu.Lock()
	done := pr.last.Done >= pr.last.Total
	pr.mu.Unlock()
	if !done || !pr.bar.Completed() {
		pr.bar.Abort(!done)
	}
	pr.p.Wait()
}
