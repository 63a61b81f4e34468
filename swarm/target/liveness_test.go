package target

import (
	"testing"
	"time"
)

// A call that takes too long is a timeout; the server is hung only when
// nothing came back since an earlier timeout and a call sent after that
// one's deadline timed out too. Any answer in between resets it.
func TestLivenessTellsHungFromSlow(t *testing.T) {
	const timeout = time.Second
	t0 := time.Unix(1000, 0)
	var l liveness
	if silentOf(&l, t0, timeout) {
		t.Fatal("one timeout is not a hang")
	}
	if silentOf(&l, t0.Add(500*time.Millisecond), timeout) {
		t.Fatal("a call in flight with the first one is not sent after its deadline")
	}
	l.answered() // another call came back: the server is alive
	if silentOf(&l, t0.Add(2*timeout), timeout) {
		t.Fatal("a timeout after an answer starts afresh")
	}
	if !silentOf(&l, t0.Add(3*timeout+time.Millisecond), timeout) {
		t.Fatal("a call sent after the earlier timeout's deadline, with nothing answered since, is a hang")
	}
	// Calls that started before the earliest silent one do not move it.
	var m liveness
	silentOf(&m, t0.Add(timeout), timeout)
	if silentOf(&m, t0, timeout) || !silentOf(&m, t0.Add(2*timeout), timeout) {
		t.Error("the earliest silent call is where the silence starts")
	}
}

func silentOf(l *liveness, start time.Time, timeout time.Duration) bool {
	silent, _ := l.timedOut("t", start, timeout)
	return silent
}

// A tool whose call timed out while the server answered another is known
// to be slow; one that only ever timed out in a silence is not.
func TestLivenessKnowsSlowTools(t *testing.T) {
	var l liveness
	start := time.Now().Add(-time.Second)
	l.answered() // after start: the server answered during the call
	if _, slow := l.timedOut("fetch", start, time.Millisecond); !slow {
		t.Error("a tool that timed out while another answered is not marked slow")
	}
	if _, slow := l.timedOut("other", time.Now().Add(time.Hour), time.Millisecond); slow {
		t.Error("a tool that timed out in a silence is marked slow")
	}
}
