// Package entropy is herd's single source of randomness. Every random choice
// — seed data, ids, fault dice, latency draws, an agent's own choices — is a
// pure function of a key (world seed, session key, call index, purpose), so
// that two sessions never share a die and adding a call in one session never
// shifts another's. There is no global generator anywhere in herd.
package entropy

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
)

// Purpose names what a draw is for, so that two uses of the same call index
// (the fault die and the latency draw, say) are independent.
type Purpose uint64

// Purposes shared across packages. Others derive their own with Name.
var (
	Seeding  = Name("seeding")   // seed data
	FaultDie = Name("fault-die") // which fault a call gets
	Latency  = Name("latency")   // a call's latency draw
	Goal     = Name("goal")      // which target an agent's goal picks
)

// Name turns a label into a Purpose (FNV-1a of the label).
func Name(label string) Purpose {
	h := fnv.New64a()
	h.Write([]byte(label))
	return Purpose(h.Sum64())
}

// Key addresses one die.
type Key struct {
	Seed    uint64 // world (or run) seed
	Session uint64 // session key: an agent's seed, an MCP session's number
	Call    uint64 // call index within the session
	Purpose Purpose
}

// Uint64 is the die's value: a strong mix of the key's four words.
func (k Key) Uint64() uint64 {
	h := Mix(k.Seed, k.Session)
	h = Mix(h, k.Call)
	return Mix(h, uint64(k.Purpose))
}

// Float64 is the die's value in [0, 1).
func (k Key) Float64() float64 { return Float64(k.Uint64()) }

// Mix combines two words into one (splitmix64's finaliser over a+b·φ). It
// is what derives agent i's seed from the run seed: Mix(runSeed, i).
func Mix(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15 + b*0xbf58476d1ce4e5b9
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Float64 maps a word to [0, 1) using its top 53 bits.
func Float64(u uint64) float64 { return float64(u>>11) / (1 << 53) }

// NewRand returns a generator owned by one user (one agent, one seeding
// pass). PCG is small, fast and has a stable sequence across Go releases.
func NewRand(seed uint64, p Purpose) *rand.Rand {
	return rand.New(rand.NewPCG(seed, uint64(p)))
}

// Normal turns two uniform words into a standard normal draw (Box–Muller),
// for latency distributions that must not depend on a generator's state.
func Normal(u1, u2 uint64) float64 {
	a := Float64(u1)
	if a <= 0 {
		a = math.SmallestNonzeroFloat64
	}
	return math.Sqrt(-2*math.Log(a)) * math.Cos(2*math.Pi*Float64(u2))
}
