package engine

import (
	"testing"
)

// The engine's hot path, measured on the crm world:
//
//	go test -run '^$' -bench . -benchmem ./engine
//
// Figures are in docs/performance.md.

// measureCPU reports, next to the wall-clock ns/op, the CPU time the
// process spent per operation ("cpu-ns/op", all threads, GC included). On
// a shared machine wall time mostly measures waiting for a core; CPU time
// does not. Call it after setup; call the function it returns after the
// loop.
func measureCPU(b *testing.B) func() {
	start, ok := processCPU()
	return func() {
		if end, ok2 := processCPU(); ok && ok2 && b.N > 0 {
			b.ReportMetric(float64(end-start)/float64(b.N), "cpu-ns/op")
		}
	}
}

func crmBase(b *testing.B) (*World, *Base) {
	b.Helper()
	w := mustLoad(b, "../worlds/crm.yaml")
	return w, mustSeed(b, w, w.DefaultSeed)
}

// unlockedContact is a contact every write tool accepts.
func unlockedContact(b *testing.B, base *Base) string {
	return firstWhere(b, base, "contact", func(r *Record) bool {
		return !r.Get("locked").(bool) && !r.Get("archived").(bool)
	}).ID()
}

// resetEvery keeps a long benchmark's session the size a real episode's
// is: every n calls the session is reset, off the clock.
const resetEvery = 1024

func BenchmarkNewSession(b *testing.B) {
	w, base := crmBase(b)
	p := w.Profile("realistic")
	b.ReportAllocs()
	defer measureCPU(b)()
	for i := 0; b.Loop(); i++ {
		_ = base.NewSession(uint64(i), p)
	}
}

// Fork of a session that has made a few writes (an agent's session a few
// steps into an episode).
func BenchmarkFork(b *testing.B) {
	_, base := crmBase(b)
	s := base.NewSession(1, nil)
	id := unlockedContact(b, base)
	mustOK(b, s.Call("update_contact", map[string]any{"id": id, "phone": "+1 555 0111", "expected_version": 1}))
	mustOK(b, s.Call("archive_contact", map[string]any{"id": id}))
	mustOK(b, s.Call("create_contact", map[string]any{"name": "Ada Byron", "email": "ada@example.com"}))
	b.ReportAllocs()
	defer measureCPU(b)()
	for i := 0; b.Loop(); i++ {
		_ = s.Fork(uint64(i))
	}
}

// benchCall measures calls of tool on one session, which is reset off the
// clock every resetEvery calls. vary, when not nil, sets call i's args.
func benchCall(b *testing.B, s *Session, tool string, args map[string]any, vary func(i int)) {
	b.Helper()
	b.ReportAllocs()
	defer measureCPU(b)()
	for i := 0; b.Loop(); i++ {
		if i%resetEvery == 0 {
			b.StopTimer()
			s.Reset()
			b.StartTimer()
		}
		if vary != nil {
			vary(i)
		}
		if res := s.Call(tool, args); !res.OK() {
			b.Fatal(res.Err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	_, base := crmBase(b)
	benchCall(b, base.NewSession(1, nil), "get_contact", map[string]any{"id": unlockedContact(b, base)}, nil)
}

// A CEL-guarded update: two preconditions (locked, expected_version), a
// set and an audit record created by an effect.
func BenchmarkGuardedUpdate(b *testing.B) {
	_, base := crmBase(b)
	args := map[string]any{"id": unlockedContact(b, base), "phone": "+1 555 0100"}
	benchCall(b, base.NewSession(1, nil), "update_contact", args, func(i int) {
		// Each call bumps the version; a reset puts it back to 1. The
		// benchmark reuses one map; a real caller passes a new one per
		// call (the journal keeps it).
		args["expected_version"] = i%resetEvery + 1
	})
}

// A create whose effects set fields and create an audit record.
func BenchmarkCreateWithEffect(b *testing.B) {
	_, base := crmBase(b)
	args := map[string]any{"name": "Ada Byron", "email": "ada@example.com", "company": "Analytical"}
	benchCall(b, base.NewSession(1, nil), "create_contact", args, nil)
}

// A list with an include flag and a limit, over 240 contacts.
func BenchmarkList(b *testing.B) {
	_, base := crmBase(b)
	benchCall(b, base.NewSession(1, nil), "list_contacts", map[string]any{"stage": "customer", "limit": 20}, nil)
}

// Loading the crm world: YAML, checks, CEL compilation and seeding.
func BenchmarkLoadCRM(b *testing.B) {
	w, _ := crmBase(b)
	b.ReportAllocs()
	defer measureCPU(b)()
	for b.Loop() {
		if _, err := Parse("crm.yaml", w.Source); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeedCRM(b *testing.B) {
	w, _ := crmBase(b)
	b.ReportAllocs()
	defer measureCPU(b)()
	for i := 0; b.Loop(); i++ {
		if _, err := w.Seed(uint64(i)); err != nil {
			b.Fatal(err)
		}
	}
}
