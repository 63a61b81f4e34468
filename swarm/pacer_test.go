package swarm

import (
	"context"
	"math"
	"testing"
	"time"
)

// The profiles start the number of agents their rate integrates to.
func TestPacerHits(t *testing.T) {
	for _, c := range []struct {
		name string
		p    *ProfilePacer
		d    time.Duration
		want float64
	}{
		{"constant", ConstantPacer(500, 5*time.Second), 5 * time.Second, 2500},
		{"ramp", RampPacer(10, 500, 5*time.Second), 5 * time.Second, (10 + 500) / 2.0 * 5},
		{"ramp down", RampPacer(300, 0, 2*time.Second), 2 * time.Second, 300},
		{"spike", SpikePacer(100, 400, 10*time.Second), 10 * time.Second, 100*8 + 400*2},
	} {
		if got := c.p.Hits(c.d); math.Abs(got-c.want) > 1e-6 {
			t.Errorf("%s: Hits(%s) = %g, want %g", c.name, c.d, got, c.want)
		}
		// Following Pace in virtual time starts exactly that many, at the
		// times the profile says.
		var el time.Duration
		n := uint64(0)
		for {
			w, stop := c.p.Pace(el, n)
			if stop {
				break
			}
			el += w
			if el > c.d {
				t.Fatalf("%s: start %d at %s, after the profile's end", c.name, n, el)
			}
			if h := c.p.Hits(el); math.Abs(h-float64(n+1)) > 1e-6 {
				t.Fatalf("%s: start %d at %s, where the profile has started %g", c.name, n+1, el, h)
			}
			n++
		}
		if math.Abs(float64(n)-c.want) > 1 {
			t.Errorf("%s: %d starts in virtual time, want %g", c.name, n, c.want)
		}
	}
	r := RampPacer(10, 500, 5*time.Second)
	if got := r.Rate(2500 * time.Millisecond); math.Abs(got-255) > 1e-9 {
		t.Errorf("ramp rate at the middle = %g, want 255", got)
	}
	s := SpikePacer(100, 400, 10*time.Second)
	if s.Rate(time.Second) != 100 || s.Rate(5*time.Second) != 400 || s.Rate(9*time.Second) != 100 {
		t.Errorf("spike rates %g %g %g", s.Rate(time.Second), s.Rate(5*time.Second), s.Rate(9*time.Second))
	}
	// Behind schedule: start at once.
	if w, _ := ConstantPacer(10, 0).Pace(time.Second, 3); w != 0 {
		t.Errorf("a pacer behind schedule waits %s", w)
	}
}

func TestParseArrival(t *testing.T) {
	for _, c := range []struct {
		spec string
		rate float64
		d    time.Duration
		bad  bool
	}{
		{"", 100, 0, false},
		{"constant", 100, time.Second, false},
		{"constant", 0, time.Second, true},
		{"constant:5", 100, time.Second, true},
		{"ramp:10-500", 0, time.Second, false},
		{"ramp:10-500", 0, 0, true},
		{"ramp:10", 0, time.Second, true},
		{"ramp:0-0", 0, time.Second, true},
		{"ramp:-1-5", 0, time.Second, true},
		{"spike", 50, time.Second, false},
		{"spike:900", 50, time.Second, false},
		{"spike:x", 50, time.Second, true},
		{"spike", 0, time.Second, true},
		{"burst", 50, time.Second, true},
	} {
		_, err := ParseArrival(c.spec, c.rate, c.d)
		if (err != nil) != c.bad {
			t.Errorf("ParseArrival(%q, %g, %s): err %v, want bad=%v", c.spec, c.rate, c.d, err, c.bad)
		}
	}
}

// At 500 agents a second for 5 s against a fast target (each agent holds
// its slot for 2 ms), the scheduler starts agents at 500/s, within a few
// percent, in real time.
func TestPacerAchievesRate(t *testing.T) {
	if testing.Short() {
		t.Skip("runs for 5 s")
	}
	const rate, d = 500.0, 5 * time.Second
	slots := make(chan int, 64)
	for k := range cap(slots) {
		slots <- k
	}
	load := Load{Pacer: ConstantPacer(rate, d), Duration: d + time.Second}
	n, last := schedule(context.Background(), context.Background(), load, slots, 1_000_000, func(_ int, slot int) {
		go func() {
			time.Sleep(2 * time.Millisecond)
			slots <- slot
		}()
	})
	achieved := float64(n-1) / last.Seconds()
	t.Logf("%d agents started, last at %s: %.1f/s", n, last, achieved)
	if math.Abs(achieved-rate)/rate > 0.03 {
		t.Errorf("achieved %.1f agents/s, want %g ± 3%%", achieved, rate)
	}
	if math.Abs(float64(n)-rate*d.Seconds()) > 0.03*rate*d.Seconds() {
		t.Errorf("started %d agents, want %g ± 3%%", n, rate*d.Seconds())
	}
}

// A slot that is never free stops the run at its duration, not later.
func TestScheduleStopsAtDuration(t *testing.T) {
	slots := make(chan int, 1)
	slots <- 0
	start := time.Now()
	n, _ := schedule(context.Background(), context.Background(), Load{Duration: 200 * time.Millisecond}, slots, 100, func(int, int) {})
	if took := time.Since(start); n != 1 || took > 2*time.Second {
		t.Fatalf("started %d in %s; want 1, stopping at the 200ms duration", n, took)
	}
}
