package personas

import (
	"testing"

	"github.com/herd-sh/herd/engine/entropy"
)

// BenchmarkEpisodeCRM is one hide_contact episode on mock:crm under the
// clear variant, the persona cycling through the built-in pack (the
// default mix), no faults, no trace.
func BenchmarkEpisodeCRM(b *testing.B) {
	s := newSetup(b, "crm", "clear", "hide_contact", "")
	pack := Builtin().Personas
	for _, p := range pack { // the first choice is computed once per persona, not per episode
		s.m.Scores(p, s.goal)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.m.Run(Episode{Base: s.base, Persona: pack[i%len(pack)], Goal: s.goal, Seed: entropy.Mix(runSeed, uint64(i))}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNewModel builds the reader model of each shipped world under
// its first variant: all text work (structure, views, every intent matched
// against every tool). The WordNet table is decoded once per process,
// before the timer.
func BenchmarkNewModel(b *testing.B) {
	for _, name := range []string{"crm", "payments", "shop", "email", "files"} {
		w := loadWorld(b, name)
		if _, err := NewModel(w, w.Variants[0]); err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := NewModel(w, w.Variants[0]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkMeant is finding every goal's meant tool on the world itself:
// seeding the world's base and trying each tool on forks of each goal's
// session, once per model, on first use.
func BenchmarkMeant(b *testing.B) {
	w := loadWorld(b, "shop")
	for i := 0; i < b.N; i++ {
		m, err := NewModel(w, w.Variants[0])
		if err != nil {
			b.Fatal(err)
		}
		m.Meant(w.Goals[0])
	}
}
