package swarm

import (
	"fmt"
	"math"
	"sort"

	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/personas"
)

// Assignment decides which persona and which goal agent i gets. The counts
// are exact (largest remainder over the weights) and the order is a seeded
// shuffle — computed as a keyed permutation of the agent indices, so it
// needs no per-agent memory: a million agents cost the same few bytes as
// two hundred, and every shard computes the same assignment on its own.
type Assignment struct {
	agents       int
	personaEnds  []int // cumulative counts: persona k covers slots [ends[k-1], ends[k])
	goalEnds     []int
	personaPerm  permutation
	goalPerm     permutation
	personaCount []int
	goalCount    []int
}

// NewAssignment splits agents over persona weights and goals (equal weight).
func NewAssignment(seed uint64, agents int, personaWeights []float64, goals int) (*Assignment, error) {
	if agents < 1 {
		return nil, fmt.Errorf("agents must be at least 1")
	}
	pc, err := LargestRemainder(agents, personaWeights)
	if err != nil {
		return nil, err
	}
	gw := make([]float64, goals)
	for i := range gw {
		gw[i] = 1
	}
	gc, err := LargestRemainder(agents, gw)
	if err != nil {
		return nil, err
	}
	a := &Assignment{
		agents:       agents,
		personaCount: pc,
		goalCount:    gc,
		personaPerm:  newPermutation(uint64(agents), entropy.Key{Seed: seed, Purpose: entropy.Name("assign-persona")}.Uint64()),
		goalPerm:     newPermutation(uint64(agents), entropy.Key{Seed: seed, Purpose: entropy.Name("assign-goal")}.Uint64()),
	}
	a.personaEnds = cumulative(pc)
	a.goalEnds = cumulative(gc)
	return a, nil
}

func cumulative(counts []int) []int {
	ends := make([]int, len(counts))
	sum := 0
	for i, c := range counts {
		sum += c
		ends[i] = sum
	}
	return ends
}

// Persona returns the persona index of agent i.
func (a *Assignment) Persona(i int) int {
	return slotOf(a.personaEnds, int(a.personaPerm.at(uint64(i))))
}

// Goal returns the goal index of agent i.
func (a *Assignment) Goal(i int) int { return slotOf(a.goalEnds, int(a.goalPerm.at(uint64(i)))) }

// PersonaCounts returns the exact number of agents per persona.
func (a *Assignment) PersonaCounts() []int { return a.personaCount }

func slotOf(ends []int, slot int) int {
	return sort.SearchInts(ends, slot+1)
}

// LargestRemainder splits n into integer counts proportional to weights,
// summing exactly to n: floors first, then the largest fractional parts
// (ties to the earlier weight).
func LargestRemainder(n int, weights []float64) ([]int, error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("no weights")
	}
	total := 0.0
	for _, w := range weights {
		if w < 0 || math.IsNaN(w) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("weight %v is not a non-negative number", w)
		}
		total += w
	}
	if total <= 0 {
		return nil, fmt.Errorf("weights sum to zero")
	}
	if math.IsInf(float64(n)*total, 0) {
		// n × weight would overflow to infinity, and the counts with it.
		return nil, fmt.Errorf("weights sum to %g: too large to split %d agents over", total, n)
	}
	counts := make([]int, len(weights))
	type rem struct {
		i int
		r float64
	}
	rems := make([]rem, len(weights))
	assigned := 0
	for i, w := range weights {
		exact := float64(n) * w / total
		counts[i] = int(math.Floor(exact))
		assigned += counts[i]
		rems[i] = rem{i, exact - float64(counts[i])}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; assigned < n; k++ {
		counts[rems[k%len(rems)].i]++
		assigned++
	}
	return counts, nil
}

// permutation is a keyed bijection on [0, n): a four-round Feistel network
// over the smallest even-bit domain ≥ n, with cycle walking to stay in
// range. It shuffles without storing anything per element.
type permutation struct {
	n        uint64
	halfBits uint
	mask     uint64
	keys     [4]uint64
}

func newPermutation(n, key uint64) permutation {
	bits := uint(1)
	for (uint64(1) << (2 * bits)) < n {
		bits++
	}
	p := permutation{n: n, halfBits: bits, mask: (1 << bits) - 1}
	for r := range p.keys {
		p.keys[r] = entropy.Mix(key, uint64(r))
	}
	return p
}

func (p permutation) at(i uint64) uint64 {
	x := i
	for {
		x = p.encrypt(x)
		if x < p.n {
			return x
		}
	}
}

func (p permutation) encrypt(x uint64) uint64 {
	l, r := x>>p.halfBits, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(entropy.Mix(r, k)&p.mask)
	}
	return l<<p.halfBits | r
}

// PackMix is the population of a pack when no mix is given: the pack's
// own weights when it gives them (a fitted pack does), else every persona
// alike.
func PackMix(pack *personas.Pack) []MixEntry {
	weighted := false
	for _, p := range pack.Personas {
		weighted = weighted || p.Weight > 0
	}
	mix := make([]MixEntry, 0, len(pack.Personas))
	for _, p := range pack.Personas {
		w := 1.0
		if weighted {
			w = p.Weight
		}
		mix = append(mix, MixEntry{Persona: p, Weight: w})
	}
	return mix
}
