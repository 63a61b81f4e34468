package calibrate

import (
	"math"
	"slices"
)

// counts are outcome counts per cell (a goal × variant) and class: the
// agent's, or one persona's.
type counts [][]float64

func total(row []float64) float64 {
	s := 0.0
	for _, x := range row {
		s += x
	}
	return s
}

// smoothing is the pseudo-count added to every class of a persona's
// sample before it is read as a distribution: a class a persona never
// showed in its sample is rare, not impossible, so a single surprising
// episode of the agent does not make a mix infinitely unlikely.
const smoothing = 0.5

// probs turns a persona's sample counts into class probabilities per cell.
func probs(s counts) counts {
	q := make(counts, len(s))
	for c, row := range s {
		n := total(row) + smoothing*float64(len(row))
		q[c] = make([]float64, len(row))
		for k, x := range row {
			q[c][k] = (x + smoothing) / n
		}
	}
	return q
}

// mixture is Σ_p w_p q_p per cell and class.
func mixture(w []float64, q []counts) counts {
	m := make(counts, len(q[0]))
	for c := range m {
		m[c] = make([]float64, len(q[0][c]))
		for p := range q {
			for k := range m[c] {
				m[c][k] += w[p] * q[p][c][k]
			}
		}
	}
	return m
}

// fitMix is the maximum-likelihood mix of the personas' distributions q
// for the agent's counts n, by EM (the mixture weights' EM update is
// monotone in the likelihood and stays on the simplex). It stops when no
// weight moves by more than 1e-9, or after maxIter rounds.
func fitMix(n counts, q []counts) []float64 {
	const maxIter = 2000
	P := len(q)
	w := make([]float64, P)
	for p := range w {
		w[p] = 1 / float64(P)
	}
	N := 0.0
	for _, row := range n {
		N += total(row)
	}
	if N == 0 {
		return w
	}
	next := make([]float64, P)
	for range maxIter {
		clear(next)
		for c, row := range n {
			for k, x := range row {
				if x == 0 {
					continue
				}
				den := 0.0
				for p := range q {
					den += w[p] * q[p][c][k]
				}
				if den == 0 {
					continue
				}
				for p := range q {
					next[p] += x * w[p] * q[p][c][k] / den
				}
			}
		}
		moved := 0.0
		for p := range w {
			v := next[p] / N
			moved = math.Max(moved, math.Abs(v-w[p]))
			w[p] = v
		}
		if moved < 1e-9 {
			break
		}
	}
	return w
}

// gStat is the likelihood-ratio statistic of the agent's counts n against
// the predicted class probabilities m: 2 Σ n ln(n / (N_cell m)).
func gStat(n, m counts) float64 {
	g := 0.0
	for c, row := range n {
		N := total(row)
		for k, x := range row {
			if x > 0 && m[c][k] > 0 {
				g += x * math.Log(x/(N*m[c][k]))
			}
		}
	}
	return 2 * g
}

// percentile is the q-quantile of xs (sorted in place), by linear
// interpolation between order statistics.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	slices.Sort(xs)
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	f := pos - float64(lo)
	return xs[lo]*(1-f) + xs[hi]*f
}

// kappa is Cohen's κ of two raters' labels of the same items: observed
// agreement against the agreement their marginals give by chance. All
// items on one label for both raters is agreement with no chance to
// correct for: κ 1.
func kappa(a, b []string) (k, observed float64) {
	n := float64(len(a))
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	ma, mb := map[string]float64{}, map[string]float64{}
	agree := 0.0
	for i := range a {
		ma[a[i]]++
		mb[b[i]]++
		if a[i] == b[i] {
			agree++
		}
	}
	po := agree / n
	pe := 0.0
	for l, x := range ma {
		pe += (x / n) * (mb[l] / n)
	}
	if pe == 1 {
		return 1, po
	}
	return (po - pe) / (1 - pe), po
}
