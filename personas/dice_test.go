package personas

import (
	"testing"

	"github.com/herd-sh/herd/engine/entropy"
)

// The agent's dice are the streams entropy.NewRand would give, held by
// value so an episode allocates no generator.
func TestDiceAreEntropyStreams(t *testing.T) {
	for _, seed := range []uint64{0, 1, 42, entropy.Mix(7, 9)} {
		for _, p := range []entropy.Purpose{purposeTraits, purposeChoice, purposeArgs} {
			s, r := newStream(seed, p), entropy.NewRand(seed, p)
			for i := 0; i < 100; i++ {
				if a, b := s.float(), r.Float64(); a != b {
					t.Fatalf("seed %d purpose %d draw %d: %v, entropy.NewRand gives %v", seed, p, i, a, b)
				}
			}
		}
	}
	s := newStream(3, purposeArgs)
	for i := 0; i < 1000; i++ {
		if x := s.intn(5); x < 0 || x >= 5 {
			t.Fatalf("intn(5) = %d", x)
		}
	}
}
