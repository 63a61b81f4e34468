package stats

import "testing"

func TestMcNemarExact(t *testing.T) {
	cases := []struct {
		b, c int
		want float64
	}{
		// 2·P(X<=2), X~Bin(10,½) = 2·56/1024 = 0.109375.
		{2, 8, 0.109375},
		// Cavo et al. 2012 table in Fagerland, Lydersen & Laake, Statistical
		// Analysis of Contingency Tables (2017) ch. 8: b=16, c=6, exact
		// conditional McNemar p = 0.0525; exactly 2·110056/2^22.
		{16, 6, 2 * 110056.0 / 4194304},
		{0, 0, 1},
		{5, 5, 1},        // 2·P(X<=5 | Bin(10,½)) > 1 → capped at 1
		{0, 7, 1.0 / 64}, // 2·(½)^7
	}
	for _, c := range cases {
		if got := McNemarExact(c.b, c.c); !near(got, c.want, 10) {
			t.Errorf("McNemarExact(%d,%d) = %.10f, want %.10f", c.b, c.c, got, c.want)
		}
		if a, b := McNemarExact(c.b, c.c), McNemarExact(c.c, c.b); a != b {
			t.Errorf("McNemarExact not symmetric: (%d,%d)=%v, swapped=%v", c.b, c.c, a, b)
		}
	}
	if got := McNemarExact(16, 6); !near(got, 0.0525, 4) {
		t.Errorf("Cavo McNemar p = %.4f, want 0.0525", got)
	}
	if got := McNemarExact(-3, 0); got != 1 {
		t.Errorf("negative counts: p = %v, want 1", got)
	}
	// Large discordant counts stay finite and tiny rather than NaN.
	if got := McNemarExact(100000, 101500); !(got > 0 && got < 0.001) {
		t.Errorf("McNemarExact(100000,101500) = %v, want small positive", got)
	}
}
