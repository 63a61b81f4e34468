package personas

import (
	"sync"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/worlds"
)

// runSeed is the run seed every statistical test derives agent seeds from,
// as the swarm does: agent i's seed is entropy.Mix(runSeed, i).
const runSeed = 20260101

var worldCache sync.Map // name → *engine.World

func loadWorld(t testing.TB, name string) *engine.World {
	t.Helper()
	if w, ok := worldCache.Load(name); ok {
		return w.(*engine.World)
	}
	w, err := worlds.Resolve("mock:" + name)
	if err != nil {
		t.Fatalf("world %s: %v", name, err)
	}
	worldCache.Store(name, w)
	return w
}

func seedBase(t testing.TB, w *engine.World) *engine.Base {
	t.Helper()
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func newModel(t testing.TB, w *engine.World, variant string) *Model {
	t.Helper()
	m, err := NewModel(w, variant)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// derive returns a persona that is base with some traits changed.
func derive(name string, base Traits, change func(*Traits)) *Persona {
	tr := base
	if change != nil {
		change(&tr)
	}
	return &Persona{Name: name, Traits: tr}
}

// tally counts what n episodes did.
type tally struct {
	n                              int
	class                          map[string]int
	severity                       map[engine.Severity]int
	duplicatedEpisodes, duplicated int
	ignoredEpisodes, ignored       int
	invalidEpisodes, invalid       int
	calls                          int
	called                         map[string]int
	offMeant                       int // episodes whose first write tool was not the meant one
	faulted, recovered             int
}

// setup is what a batch of episodes runs against.
type setup struct {
	m       *Model
	base    *engine.Base
	profile *engine.FaultProfile
	goal    *engine.Goal
}

func newSetup(t testing.TB, world, variant, goal, profile string) setup {
	t.Helper()
	w := loadWorld(t, world)
	s := setup{m: newModel(t, w, variant), base: seedBase(t, w), goal: w.Goal(goal)}
	if s.goal == nil {
		t.Fatalf("world %s has no goal %s", world, goal)
	}
	if profile != "" {
		if s.profile = w.Profile(profile); s.profile == nil {
			t.Fatalf("world %s has no fault profile %s", world, profile)
		}
	}
	return s
}

// run plays n episodes, agent i with seed Mix(runSeed, i) and persona
// personas[i mod len] (equal weights).
func (s setup) run(t testing.TB, n int, personas ...*Persona) tally {
	t.Helper()
	tl := tally{n: n, class: map[string]int{}, severity: map[engine.Severity]int{}, called: map[string]int{}}
	for i := 0; i < n; i++ {
		out, err := s.m.Run(Episode{Base: s.base, Profile: s.profile, Persona: personas[i%len(personas)], Goal: s.goal,
			Seed: entropy.Mix(runSeed, uint64(i))})
		if err != nil {
			t.Fatal(err)
		}
		tl.class[out.Class]++
		tl.severity[out.Severity]++
		tl.calls += out.Calls
		tl.called[out.Called]++
		if out.Called != out.Meant {
			tl.offMeant++
		}
		if out.Duplicated > 0 {
			tl.duplicatedEpisodes++
		}
		tl.duplicated += out.Duplicated
		if out.IgnoredRetryAfter > 0 {
			tl.ignoredEpisodes++
		}
		tl.ignored += out.IgnoredRetryAfter
		if out.InvalidArgs > 0 {
			tl.invalidEpisodes++
		}
		tl.invalid += out.InvalidArgs
		if len(out.Faults) > 0 {
			tl.faulted++
		}
		if out.Recovered {
			tl.recovered++
		}
	}
	return tl
}

// wilson is the 95% interval of k in n.
func wilson(k, n int) stats.Interval { return stats.Wilson(k, n, 0.95) }

// below asserts that rate a is clearly below rate b: the 95% Wilson
// intervals do not overlap.
func below(t *testing.T, what string, ka, na int, la string, kb, nb int, lb string) {
	t.Helper()
	ia, ib := wilson(ka, na), wilson(kb, nb)
	t.Logf("%s: %s %.1f%% [%.1f–%.1f] vs %s %.1f%% [%.1f–%.1f]", what,
		la, 100*float64(ka)/float64(na), 100*ia.Lo, 100*ia.Hi, lb, 100*float64(kb)/float64(nb), 100*ib.Lo, 100*ib.Hi)
	if ia.Hi >= ib.Lo {
		t.Errorf("%s: %s [%.3f, %.3f] is not clearly below %s [%.3f, %.3f]", what, la, ia.Lo, ia.Hi, lb, ib.Lo, ib.Hi)
	}
}
