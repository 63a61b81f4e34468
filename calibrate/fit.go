package calibrate

import (
	"math"
	"math/rand/v2"
)

// counts are outcome counts per cell (a goal × variant) and class: the
// agent's, or one persona's.
type counts [][]float64

func (c counts) clone() counts {
	out := make(counts, len(c))
	for i := range c {
		out[i] = append([]float64(nil), c[i]...)
	}
	return out
}

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

// multinomial draws n items over the probabilities p (summing to 1) into
// out.
func multinomial(r *rand.Rand, n int, p []float64, out []float64) {
	clear(out)
	cdf := make([]float64, len(p))
	acc := 0.0
	for i, x := range p {
		acc += x
		cdf[i] = acc
	}
	for range n {
		u := r.Float64() * acc
		k := 0
		for k < len(cdf)-1 && u >= cdf[k] {
			k++
		}
		out[k]++
	}
}

// resample draws a sample of the same size per cell from each cell's
// observed shares (the nonparametric bootstrap of a table of counts).
func resample(r *rand.Rand, x counts) counts {
	out := x.clone()
	for c, row := range x {
		N := total(row)
		if N == 0 {
			continue
		}
		p := make([]float64, len(row))
		for k, v := range row {
			p[k] = v / N
		}
		multinomial(r, int(N), p, out[c])
	}
	return out
}

// simulate draws counts of the sizes in like from the probabilities m.
func simulate(r *rand.Rand, like, m counts) counts {
	out := like.clone()
	for c, row := range like {
		multinomial(r, int(total(row)), m[c], out[c])
	}
	return out
}

// percentile is the q-quantile of xs (sorted in place), by linear
// interpolation between order statistics.
func percentile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sortFloats(xs)
	pos := q * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	f := pos - float64(lo)
	return xs[lo]*(1-f) + xs[hi]*f
}

func sortFloats(xs []float64) {
	// insertion sort is enough for a few hundred replicates, and keeps
	// the order of equal values (the results are deterministic anyway).
	for i := 1; i < len(xs); i++ {
		for j := i; j > 0 && xs[j] < xs[j-1]; j-- {
			xs[j], xs[j-1] = xs[j-1], xs[j]
		}
	}
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
