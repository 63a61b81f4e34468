package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/swarm"
)

// The progress words: counts with thousands separators, elapsed time, what
// is left at the speed so far, and the harmful rate so far; a load run
// says how much of its duration has passed and the start rate achieved.
func TestProgressText(t *testing.T) {
	cases := []struct {
		name    string
		now     swarm.Progress
		elapsed time.Duration
		load    progressLoad
		want    string
	}{
		{"a count run", swarm.Progress{Done: 250_000, Total: 1_000_000, Harmful: 24_000, Started: 250_100}, 10 * time.Second, progressLoad{},
			"250,000 / 1,000,000 episodes (25%), 10s, ETA 30s, 25,000/s, harmful 9.6%"},
		{"nothing done yet", swarm.Progress{Total: 1_000}, 200 * time.Millisecond, progressLoad{},
			"0 / 1,000 episodes (0%), 200ms, 0.0/s"},
		{"all done", swarm.Progress{Done: 1_000, Total: 1_000, Harmful: 1}, 90 * time.Second, progressLoad{},
			"1,000 / 1,000 episodes (100%), 1m30s, 11.1/s, harmful 0.10%"},
		{"a load run", swarm.Progress{Done: 2_300, Total: 6_000, Harmful: 230, Started: 2_380}, 12 * time.Second,
			progressLoad{duration: 30 * time.Second, rate: 200},
			"12s / 30s, 2,380 agents started, 2,300 episodes done, 198 agents/s (asked 200), harmful 10.0%"},
	}
	for _, c := range cases {
		got := progressText(c.now, c.elapsed, c.load, false) + ", " + progressText(c.now, c.elapsed, c.load, true)
		if got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}

// The plain line (CI logs) says the same words, once a second and only
// when something moved.
func TestProgressLine(t *testing.T) {
	var b bytes.Buffer
	pr := newProgress(&b, "always", 1_000, progressLoad{})
	pr.update(swarm.Progress{Done: 400, Total: 1_000, Harmful: 40})
	pr.update(swarm.Progress{Done: 400, Total: 1_000, Harmful: 40}) // nothing moved: no line
	pr.update(swarm.Progress{Done: 1_000, Total: 1_000, Harmful: 96})
	pr.finish()
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "herd: 400 / 1,000 episodes (40%), ") || !strings.HasSuffix(lines[0], ", harmful 10.0%") ||
		!strings.HasPrefix(lines[1], "herd: 1,000 / 1,000 episodes (100%), ") || strings.Contains(lines[1], "ETA") {
		t.Errorf("progress lines:\n%s", b.String())
	}
}
