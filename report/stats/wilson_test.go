package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// near reports whether got rounds to want at the given number of decimals,
// which is how published tables state their figures.
func near(got, want float64, decimals int) bool {
	return math.Abs(got-want) <= 0.5*math.Pow(10, -float64(decimals))+1e-12
}

func TestWilsonPublishedValues(t *testing.T) {
	// Newcombe RG (1998). Two-sided confidence intervals for the single
	// proportion: comparison of seven methods. Stat Med 17:857-872, Table I,
	// method 3 (score interval without continuity correction), 95%.
	cases := []struct {
		k, n   int
		lo, hi float64
	}{
		{81, 263, 0.2553, 0.3662},
		{15, 148, 0.0624, 0.1605},
		{0, 20, 0, 0.1611},
		{1, 29, 0.0061, 0.1718},
		// k=n by the closed form 1 - z²/(n+z²) = 1 - 3.8415/32.8415.
		{29, 29, 0.8830, 1},
	}
	for _, c := range cases {
		got := Wilson(c.k, c.n, 0.95)
		if !near(got.Lo, c.lo, 4) || !near(got.Hi, c.hi, 4) {
			t.Errorf("Wilson(%d, %d) = [%.4f, %.4f], want [%.4f, %.4f]", c.k, c.n, got.Lo, got.Hi, c.lo, c.hi)
		}
	}
}

func TestWilsonEdges(t *testing.T) {
	// k=0: the lower bound is exactly 0 and the upper bound is z²/(n+z²).
	z := 1.959963984540054
	if got := Wilson(0, 300, 0.95); got.Lo != 0 || !near(got.Hi, z*z/(300+z*z), 9) {
		t.Errorf("Wilson(0,300) = %+v, want {0, %.6f}", got, z*z/(300+z*z))
	}
	// k=n mirrors k=0.
	lo0, hiN := Wilson(0, 50, 0.95), Wilson(50, 50, 0.95)
	if hiN.Hi != 1 || !near(hiN.Lo, 1-lo0.Hi, 12) {
		t.Errorf("Wilson(50,50) = %+v, want mirror of %+v", hiN, lo0)
	}
	if got := Wilson(0, 0, 0.95); got != (Interval{0, 1}) {
		t.Errorf("Wilson(0,0) = %+v, want {0 1}", got)
	}
	// Nonsense input degrades to a valid interval rather than NaN or a panic.
	for _, conf := range []float64{0, 1, -3, math.NaN()} {
		if got := Wilson(3, 10, conf); got != (Interval{0, 1}) {
			t.Errorf("Wilson(3,10,%v) = %+v, want {0 1}", conf, got)
		}
	}
	if got, want := Wilson(12, 10, 0.95), Wilson(10, 10, 0.95); got != want {
		t.Errorf("k>n not clamped: %+v vs %+v", got, want)
	}
	// A higher confidence level must give a wider interval.
	if w90, w99 := Wilson(30, 100, 0.90), Wilson(30, 100, 0.99); w99.Width() <= w90.Width() {
		t.Errorf("99%% interval %+v not wider than 90%% %+v", w99, w90)
	}
}

func TestWilsonCoverage(t *testing.T) {
	// The 95% Wilson interval should cover the true rate close to 95% of the
	// time. Fixed seeds make the count exact and repeatable, so this cannot
	// flake; it fails if the interval formula or the z value is wrong.
	const n, trials = 400, 4000
	for i, p := range []float64{0.03, 0.3} {
		bin := distuv.Binomial{N: n, P: p, Src: rand.NewPCG(uint64(i)+1, 42)}
		covered := 0
		for range trials {
			if Wilson(int(bin.Rand()), n, 0.95).Contains(p) {
				covered++
			}
		}
		rate := float64(covered) / trials
		t.Logf("p=%.2f n=%d coverage %.4f", p, n, rate)
		if rate < 0.93 || rate > 0.97 {
			t.Errorf("p=%.2f: coverage %.4f outside [0.93, 0.97]", p, rate)
		}
	}
}

func TestNewRate(t *testing.T) {
	r := NewRate(81, 263)
	if r.K != 81 || r.N != 263 || !near(r.P, 0.3080, 4) || r.CI != Wilson(81, 263, 0.95) {
		t.Errorf("NewRate(81,263) = %+v", r)
	}
	if r := NewRate(0, 0); r.P != 0 || r.CI != (Interval{0, 1}) {
		t.Errorf("NewRate(0,0) = %+v, want P=0 CI={0 1}", r)
	}
}

func TestCheckCount(t *testing.T) {
	if CheckCount(3, 10) != nil || CheckCount(0, 0) != nil || CheckCount(10, 10) != nil {
		t.Error("CheckCount rejects a valid count")
	}
	for _, c := range []struct {
		k, n int
		want string
	}{{11, 10, "count 11 exceeds its total 10"}, {-1, 10, "count -1 is negative"}, {0, -1, "total -1 is negative"}} {
		if err := CheckCount(c.k, c.n); err == nil || err.Error() != c.want {
			t.Errorf("CheckCount(%d, %d) = %v; want %q", c.k, c.n, err, c.want)
		}
	}
}

func TestTooFew(t *testing.T) {
	if !TooFew(MinEpisodes-1) || TooFew(MinEpisodes) || !TooFew(0) {
		t.Errorf("TooFew wrong around MinEpisodes=%d", MinEpisodes)
	}
}
