package personas

import (
	"math/rand/v2"

	"github.com/herd-sh/herd/engine/entropy"
)

// The agent's dice. Each purpose is its own PCG stream seeded exactly as
// entropy.NewRand(agentSeed, purpose) seeds one, held by value so that an
// episode allocates no generator. Separate streams keep the first draws of
// an agent (whether it verifies, which tool it picks first) aligned across
// description variants, which is what makes paired comparisons sharp.
var (
	purposeTraits = entropy.Name("persona-traits") // verify and explore, once per episode
	purposeChoice = entropy.Name("choice")         // which tool
	purposeArgs   = entropy.Name("args")           // query length, result matching, hostile arguments
	// purposeAdvice: whether the agent heeds what a text or an error
	// message told it. Drawn only when there is advice, so that agents
	// who were told nothing draw exactly what they drew before.
	purposeAdvice = entropy.Name("advice")
)

type stream struct{ pcg rand.PCG }

func newStream(seed uint64, p entropy.Purpose) stream {
	var s stream
	s.pcg.Seed(seed, uint64(p))
	return s
}

// float is uniform in [0, 1), the same value rand.Rand.Float64 gives.
func (s *stream) float() float64 { return float64(s.pcg.Uint64()<<11>>11) / (1 << 53) }

// intn is uniform in [0, n) for small n (n > 0).
func (s *stream) intn(n int) int {
	i := int(s.float() * float64(n))
	if i >= n {
		i = n - 1
	}
	return i
}

type dice struct {
	traits, choice, args, advice stream
}

func newDice(seed uint64) dice {
	return dice{
		traits: newStream(seed, purposeTraits),
		choice: newStream(seed, purposeChoice),
		args:   newStream(seed, purposeArgs),
		advice: newStream(seed, purposeAdvice),
	}
}
