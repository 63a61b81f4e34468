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
