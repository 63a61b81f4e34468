package gctarget

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestLimit(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		live, other, headroom, want uint64
	}{
		{12 * mib, 3 * mib, 48 * mib, 63 * mib},   // the headroom caps growth
		{100 * mib, 5 * mib, 48 * mib, 205 * mib}, // never tighter than twice the live heap
		{0, 0, 48 * mib, 48 * mib},
		{math.MaxUint64 / 2, math.MaxUint64 / 2, 1, math.MaxInt64},
	} {
		if got := Limit(c.live, c.other, c.headroom); got != c.want {
			t.Errorf("Limit(%d, %d, %d) = %d, want %d", c.live, c.other, c.headroom, got, c.want)
		}
	}
}

// restore puts the process's collector back as the test found it.
func restore(t *testing.T) {
	pct := debug.SetGCPercent(100)
	lim := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(lim)
	})
}

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func TestSetMovesTheLimitAfterEachCollection(t *testing.T) {
	restore(t)
	stop := Set(env(nil))
	defer stop()
	if got := debug.SetGCPercent(Percent); got != Percent {
		t.Fatalf("GC percent %d, want %d", got, Percent)
	}
	first := debug.SetMemoryLimit(-1)
	if first == math.MaxInt64 {
		t.Fatal("no memory limit after Set")
	}
	// Make the live heap grow by far more than the headroom: the limit
	// must follow it after a collection (twice the live heap by then).
	keep := make([][]byte, 0, 256)
	for range 256 {
		keep = append(keep, make([]byte, 1<<20))
	}
	var moved int64
	for range 200 {
		runtime.GC()
		runtime.Gosched()
		if moved = debug.SetMemoryLimit(-1); moved > first+200<<20 {
			break
		}
	}
	if moved < first+200<<20 {
		t.Fatalf("limit %d MiB after 256 MiB more became live (was %d MiB): it did not follow the live heap", moved>>20, first>>20)
	}
	runtime.KeepAlive(keep)
	stop()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("limit %d after stop, want none", got)
	}
}

func TestEnvironmentWins(t *testing.T) {
	restore(t)
	debug.SetGCPercent(77)
	Set(env(map[string]string{"GOGC": "150"}))()
	if got := debug.SetGCPercent(77); got != 77 {
		t.Errorf("GOGC set: percent changed to %d", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOGC set: limit %d, want none", got)
	}
	stop := Set(env(map[string]string{"GOMEMLIMIT": "1GiB"}))
	defer stop()
	if got := debug.SetGCPercent(77); got != Percent {
		t.Errorf("GOMEMLIMIT set: percent %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: limit moved to %d", got)
	}
}
