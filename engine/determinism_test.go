package engine

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"testing"
)

// Two loads of the same file seeded alike give the same base, byte for
// byte, and the same journal for the same script; another seed differs.
func TestSameSeedSameWorld(t *testing.T) {
	data, err := os.ReadFile("../worlds/crm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	w1, err := Parse("crm.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	w2, err := Parse("crm.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	b1, b2 := mustSeed(t, w1, 7), mustSeed(t, w2, 7)
	if s1, s2 := b1.NewSession(0, nil).StateJSON(), b2.NewSession(0, nil).StateJSON(); !bytes.Equal(s1, s2) {
		t.Fatalf("same seed, different base state: %s", firstDiff(s1, s2))
	}
	snap1, _ := b1.Snapshot()
	snap2, _ := b2.Snapshot()
	if !bytes.Equal(snap1, snap2) {
		t.Fatalf("same seed, different base snapshot: %s", firstDiff(snap1, snap2))
	}

	hostile1, hostile2 := w1.Profile("hostile"), w2.Profile("hostile")
	j1 := runScript(t, b1.NewSession(99, hostile1), crmScript())
	j2 := runScript(t, b2.NewSession(99, hostile2), crmScript())
	if !bytes.Equal(j1, j2) {
		t.Fatalf("same seed and script, different journal: %s", firstDiff(j1, j2))
	}

	b3 := mustSeed(t, w1, 8)
	if s1, s3 := b1.NewSession(0, nil).StateJSON(), b3.NewSession(0, nil).StateJSON(); bytes.Equal(s1, s3) {
		t.Fatal("seeds 7 and 8 gave the same base state")
	}
	if j3 := runScript(t, b3.NewSession(99, w1.Profile("hostile")), crmScript()); bytes.Equal(j1, j3) {
		t.Fatal("seeds 7 and 8 gave the same journal")
	}
	// Another session key on the same seed throws other dice.
	if j4 := runScript(t, b1.NewSession(100, hostile1), crmScript()); bytes.Equal(j1, j4) {
		t.Fatal("session keys 99 and 100 gave the same journal under the hostile profile")
	}
}

// A session's dice depend on its own key and call index only: calls made
// by another session, interleaved or not, and extra calls there, move
// nothing in this one.
func TestSessionDiceIndependent(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 3)
	p := w.Profile("hostile")
	script := crmScript()
	other := append(crmScript(), crmScript()...) // more calls than the first

	aloneA := runScript(t, b.NewSession(1, p), script)
	aloneB := runScript(t, b.NewSession(2, p), other)

	a, bs := b.NewSession(1, p), b.NewSession(2, p)
	for i := range other {
		if i < len(script) {
			runStep(a, script[i])
		}
		runStep(bs, other[i])
		runStep(bs, other[(i*7)%len(other)]) // B makes two calls per turn
	}
	if got := sessionBytes(t, a); !bytes.Equal(got, aloneA) {
		t.Fatalf("session 1 changed when session 2 called in between: %s", firstDiff(got, aloneA))
	}
	// B's first calls are the same as alone; only its extra calls differ.
	b2 := b.NewSession(2, p)
	for i := range other {
		runStep(b2, other[i])
	}
	if got := sessionBytes(t, b2); !bytes.Equal(got, aloneB) {
		t.Fatalf("session 2 alone is not reproducible: %s", firstDiff(got, aloneB))
	}
}

func runStep(s *Session, st step) {
	res := s.Call(st.tool, st.args)
	if res.Err != nil && res.Err.RetryAfter > 0 {
		s.Sleep(res.Err.RetryAfter)
	}
}

// Sessions run in goroutines give the same bytes whatever GOMAXPROCS is:
// no session reads anything another one writes.
func TestDeterministicAcrossGOMAXPROCS(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 42)
	p := w.Profile("hostile")
	const sessions = 24
	want := make([][]byte, sessions)
	for i := range want {
		want[i] = runScript(t, b.NewSession(uint64(i), p), crmScript())
	}
	// The comparison only means something if the dice did things.
	all := bytes.Join(want, nil)
	for _, needle := range []string{`"fault":"timeout"`, `"fault":"rate_limited"`, `"fault":"timeout_after_commit"`, `"ok":true,"committed":true`} {
		if !bytes.Contains(all, []byte(needle)) {
			t.Fatalf("no %s in %d hostile sessions: the script exercises too little", needle, sessions)
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, procs := range []int{1, 8} {
		runtime.GOMAXPROCS(procs)
		got := make([][]byte, sessions)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				// Not t.Fatal in a goroutine: runScript only fails on a
				// journal write error, which cannot happen on a buffer.
				got[i] = runScript(t, b.NewSession(uint64(i), p), crmScript())
			})
		}
		wg.Wait()
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("GOMAXPROCS=%d: session %d differs from the sequential run: %s", procs, i, firstDiff(got[i], want[i]))
			}
		}
	}
}
