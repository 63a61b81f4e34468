package entropy

import (
	"math"
	"testing"
)

// Golden values: herd's determinism contract (the same seed gives the same
// world and the same dice on every machine and Go release) rests on these
// exact numbers. If one changes, every recorded run stops replaying.
func TestGoldenValues(t *testing.T) {
	// splitmix64's first output from state 0 (Steele, Lea & Flood 2014;
	// the reference implementation's well-known 0xe220a8397b1dcdaf).
	if got := Mix(0, 0); got != 0xe220a8397b1dcdaf {
		t.Errorf("Mix(0, 0) = %#x, want splitmix64's 0xe220a8397b1dcdaf", got)
	}
	if got := Mix(42, 7); got != 0xbce658309f1c4fac {
		t.Errorf("Mix(42, 7) = %#x", got)
	}
	// FNV-1a 64 of "fault-die", computed independently.
	if got := uint64(Name("fault-die")); got != 0xd6c0f0e06ea149b8 || FaultDie != Name("fault-die") {
		t.Errorf("Name(fault-die) = %#x", got)
	}
	k := Key{Seed: 42, Session: 7, Call: 3, Purpose: FaultDie}
	if got := k.Uint64(); got != 0xbfd97221025a351d {
		t.Errorf("Key.Uint64 = %#x", got)
	}
	if got := k.Float64(); got != 0.7494117098416175 {
		t.Errorf("Key.Float64 = %v", got)
	}
	r := NewRand(42, Name("agent"))
	if a, b, c := r.Uint64(), r.Uint64(), r.IntN(1000); a != 0x46a388622d1ed9a8 || b != 0xa98d1619f6994921 || c != 30 {
		t.Errorf("NewRand(42, Name(agent)) gave %#x %#x %d", a, b, c)
	}
}

// Every word of the key moves the die.
func TestKeyWordsAreIndependent(t *testing.T) {
	base := Key{Seed: 1, Session: 2, Call: 3, Purpose: Latency}
	seen := map[uint64]string{base.Uint64(): "base"}
	for name, k := range map[string]Key{
		"seed":    {Seed: 9, Session: 2, Call: 3, Purpose: Latency},
		"session": {Seed: 1, Session: 9, Call: 3, Purpose: Latency},
		"call":    {Seed: 1, Session: 2, Call: 9, Purpose: Latency},
		"purpose": {Seed: 1, Session: 2, Call: 3, Purpose: FaultDie},
		"swapped": {Seed: 2, Session: 1, Call: 3, Purpose: Latency},
	} {
		u := k.Uint64()
		if prev, dup := seen[u]; dup {
			t.Errorf("changing %s gives the same die as %s", name, prev)
		}
		seen[u] = name
	}
}

// Float64 is uniform on [0, 1): over 100,000 consecutive call indexes each
// decile holds 10% ± 0.5% (about 5 standard errors) and the mean is 1/2.
func TestFloat64Uniform(t *testing.T) {
	const n = 100000
	var deciles [10]int
	sum := 0.0
	for i := range uint64(n) {
		u := Key{Seed: 5, Session: 6, Call: i, Purpose: FaultDie}.Float64()
		if u < 0 || u >= 1 {
			t.Fatalf("Float64 = %v, outside [0, 1)", u)
		}
		deciles[int(u*10)]++
		sum += u
	}
	for d, c := range deciles {
		if math.Abs(float64(c)/n-0.1) > 0.005 {
			t.Errorf("decile %d holds %d of %d", d, c, n)
		}
	}
	if mean := sum / n; math.Abs(mean-0.5) > 0.005 {
		t.Errorf("mean %v, want 0.5", mean)
	}
}

// Normal has mean 0, variance 1 and the standard normal's tails.
func TestNormal(t *testing.T) {
	const n = 100000
	sum, sq, beyond := 0.0, 0.0, 0
	for i := range uint64(n) {
		z := Normal(Mix(11, 2*i), Mix(11, 2*i+1))
		sum += z
		sq += z * z
		if math.Abs(z) > 1.959963984540054 {
			beyond++
		}
	}
	mean, variance := sum/n, sq/n-(sum/n)*(sum/n)
	if math.Abs(mean) > 0.02 || math.Abs(variance-1) > 0.02 {
		t.Errorf("mean %v variance %v, want 0 and 1", mean, variance)
	}
	// P(|Z| > 1.96) = 0.05; the binomial standard error at n=100,000 is 0.07%.
	if p := float64(beyond) / n; math.Abs(p-0.05) > 0.0035 {
		t.Errorf("P(|z| > 1.96) = %v, want 0.05", p)
	}
	if z := Normal(0, 0); math.IsInf(z, 0) || math.IsNaN(z) {
		t.Errorf("Normal(0, 0) = %v", z)
	}
}
