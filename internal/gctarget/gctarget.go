// Package gctarget sets the garbage collector's target for herd's
// long-running commands (herd swarm, herd serve).
//
// Both keep a small live heap — a swarm's aggregation is streaming, a
// served world's sessions are bounded — while allocating briefly for
// every episode or call, so collecting rarely (GOGC=400: at five times the
// live heap) buys a tenth (swarm) to a third (serve) of the CPU per call.
// But five times a live heap that breathes between 10 and 20 MB is a peak
// of 100 MB that buys nothing more: the collector's pace is set by how
// much is allocated between collections, not by the multiple. So the heap
// may also grow at most Headroom above what the last collection found
// live (a soft memory limit, moved after every collection), and never
// less than twice the live heap (Go's default), so that a large live heap
// is not collected over and over.
//
// GOGC, when set, wins over all of it; GOMEMLIMIT, when set, replaces the
// moving limit.
package gctarget

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync/atomic"
)

// Percent is the collector's target when GOGC is not set.
const Percent = 400

// Headroom is how far the heap may grow above the live heap before a
// collection, when that is less than Percent allows. With the shipped
// worlds' live heaps (9–20 MB in a swarm) it equals GOGC=400 at about
// 12 MB live and caps the peak above that.
const Headroom = 48 << 20

// Set applies the target to this process and returns a function that
// stops moving the limit (and lifts it). Environment variables are read
// through getenv (os.Getenv in the commands).
func Set(getenv func(string) string) (stop func()) {
	if getenv("GOGC") != "" {
		return func() {}
	}
	debug.SetGCPercent(Percent)
	if getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	t := &tuner{headroom: Headroom}
	t.samples = []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/memory/classes/total:bytes"},
		{Name: "/memory/classes/heap/released:bytes"},
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/memory/classes/heap/unused:bytes"},
		{Name: "/memory/classes/heap/free:bytes"},
	}
	t.retune()
	t.arm()
	return t.stop
}

// SetFromEnv is Set with the process's environment.
func SetFromEnv() (stop func()) { return Set(os.Getenv) }

type tuner struct {
	headroom uint64
	samples  []metrics.Sample // touched only by retune, one at a time
	stopped  atomic.Bool
}

// sentinel is allocated to learn when a collection has run: its cleanup
// runs once a collection found it unreachable. It holds a pointer so that
// it is never batched with other tiny objects (whose cleanups may not run).
type sentinel struct{ _ *int }

// arm registers a cleanup that retunes after the next collection and
// arms again.
func (t *tuner) arm() {
	runtime.AddCleanup(new(sentinel), func(t *tuner) {
		if t.stopped.Load() {
			return
		}
		t.retune()
		t.arm()
	}, t)
}

// retune sets the memory limit to the live heap plus the headroom (at
// least twice the live heap) plus what the runtime holds besides the heap
// (stacks, metadata), which the limit counts too.
func (t *tuner) retune() {
	metrics.Read(t.samples)
	v := func(i int) uint64 {
		if t.samples[i].Value.Kind() != metrics.KindUint64 {
			return 0
		}
		return t.samples[i].Value.Uint64()
	}
	live := v(0)
	heapHeld := v(2) + v(3) + v(4) + v(5)
	var other uint64
	if total := v(1); total > heapHeld {
		other = total - heapHeld
	}
	debug.SetMemoryLimit(int64(Limit(live, other, t.headroom)))
}

// Limit is the memory limit for a live heap of live bytes, other bytes of
// non-heap runtime memory and the given headroom.
func Limit(live, other, headroom uint64) uint64 {
	l := satAdd(satAdd(live, max(headroom, live)), other)
	return min(l, math.MaxInt64)
}

func (t *tuner) stop() {
	if t.stopped.CompareAndSwap(false, true) {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// satAdd is a+b, or the largest uint64 where that overflows.
func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}
