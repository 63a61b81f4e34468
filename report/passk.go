package report

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"

	"github.com/herd-sh/herd/report/stats"
)

// Repeated trials: τ-bench's pass^k (Yao et al. 2024, arXiv 2406.12045)
// asks how often an agent gets the same task right k times in a row, and
// pass@k how often it gets it right at least once in k tries. herd's unit
// of a task is one goal, one persona, one variant and one goal target: the
// agents of a run that share a persona and a goal and drew the same target
// are repeated trials of it (they differ only in their own dice). The
// document keeps each task's trials and successes (Trial), so that shards
// merge exactly, and derives the estimates from them (PassK).

// MaxK is the largest k pass^k and pass@k are reported for.
const MaxK = 8

// bootstrapResamples is how many resamples of the tasks an interval takes.
const bootstrapResamples = 400

// Trial is one task's repeated trials: N episodes, OK of which ended ok.
type Trial struct {
	Goal    string `json:"goal"`
	Persona string `json:"persona"`
	Variant string `json:"variant"`
	Target  string `json:"target"` // the goal target's record id
	N       int    `json:"n"`
	OK      int    `json:"ok"`
}

// PassK is pass^k and pass@k of one goal × persona × variant (persona ""
// pools every persona's tasks) for one k, over the tasks with at least k
// trials: the unbiased estimators, the mean over tasks of C(c,k)/C(n,k)
// (pass^k) and of 1 − C(n−c,k)/C(n,k) (pass@k), with 95% percentile
// bootstrap intervals over tasks.
type PassK struct {
	Goal     string         `json:"goal"`
	Persona  string         `json:"persona,omitempty"`
	Variant  string         `json:"variant"`
	K        int            `json:"k"`
	Tasks    int            `json:"tasks"` // tasks with at least k trials
	PassHat  float64        `json:"pass_hat"`
	PassHatI stats.Interval `json:"pass_hat_ci"`
	PassAt   float64        `json:"pass_at"`
	PassAtI  stats.Interval `json:"pass_at_ci"`
}

// normalizeTrials sorts the trials and sums the rows of one task (the
// shards of a run each hold part of it).
func normalizeTrials(ts []Trial) []Trial {
	slices.SortFunc(ts, func(a, b Trial) int {
		return cmpStrings(a.Goal, b.Goal, a.Persona, b.Persona, a.Variant, b.Variant, a.Target, b.Target)
	})
	out := ts[:0]
	for _, t := range ts {
		if n := len(out); n > 0 && sameTask(out[n-1], t) {
			out[n-1].N += t.N
			out[n-1].OK += t.OK
			continue
		}
		out = append(out, t)
	}
	return slices.DeleteFunc(out, func(t Trial) bool { return t.N == 0 })
}

func sameTask(a, b Trial) bool {
	return a.Goal == b.Goal && a.Persona == b.Persona && a.Variant == b.Variant && a.Target == b.Target
}

// passHat is one task's C(c,k)/C(n,k): the chance that k of its n trials
// drawn without replacement all succeeded. The product form stays exact
// in floating point where the binomials would overflow.
func passHat(n, c, k int) float64 {
	p := 1.0
	for i := range k {
		if c-i <= 0 {
			return 0
		}
		p *= float64(c-i) / float64(n-i)
	}
	return p
}

// passAt is one task's 1 − C(n−c,k)/C(n,k): the chance that k of its
// trials drawn without replacement hold at least one success.
func passAt(n, c, k int) float64 { return 1 - passHat(n, n-c, k) }

// derivePassK computes the pass^k rows from the (normalized) trials.
func (r *Results) derivePassK() []PassK {
	type cell struct{ goal, persona, variant string }
	groups := map[cell][]Trial{}
	var order []cell
	add := func(c cell, t Trial) {
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], t)
	}
	for _, t := range r.Trials {
		add(cell{t.Goal, t.Persona, t.Variant}, t)
		add(cell{t.Goal, "", t.Variant}, t)
	}
	slices.SortFunc(order, func(a, b cell) int { return cmpStrings(a.goal, b.goal, a.persona, b.persona, a.variant, b.variant) })
	var out []PassK
	for _, c := range order {
		out = append(out, passKRows(c.goal, c.persona, c.variant, groups[c])...)
	}
	return out
}

// passKRows estimates pass^k and pass@k for k = 1…MaxK over one cell's
// tasks. The interval resamples the cell's tasks with replacement (the
// same resamples for every k), from a generator seeded by the cell's name,
// so that the interval is a function of the trials alone.
func passKRows(goal, persona, variant string, tasks []Trial) []PassK {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s", goal, persona, variant)
	rng := rand.New(rand.NewPCG(h.Sum64(), 0x9e3779b97f4a7c15))
	T := len(tasks)
	var hatSum, atSum [MaxK + 1][]float64 // per k, per resample
	for k := 1; k <= MaxK; k++ {
		hatSum[k] = make([]float64, bootstrapResamples)
		atSum[k] = make([]float64, bootstrapResamples)
	}
	eligible := make([][]int, MaxK+1) // per k, per resample: tasks with n ≥ k drawn
	for k := range eligible {
		eligible[k] = make([]int, bootstrapResamples)
	}
	for b := range bootstrapResamples {
		for range T {
			t := tasks[rng.IntN(T)]
			for k := 1; k <= min(t.N, MaxK); k++ {
				hatSum[k][b] += passHat(t.N, t.OK, k)
				atSum[k][b] += passAt(t.N, t.OK, k)
				eligible[k][b]++
			}
		}
	}
	var out []PassK
	for k := 1; k <= MaxK; k++ {
		row := PassK{Goal: goal, Persona: persona, Variant: variant, K: k}
		var hat, at float64
		for _, t := range tasks {
			if t.N >= k {
				row.Tasks++
				hat += passHat(t.N, t.OK, k)
				at += passAt(t.N, t.OK, k)
			}
		}
		if row.Tasks == 0 {
			break // no task has k trials, nor any more
		}
		row.PassHat, row.PassAt = round6(hat/float64(row.Tasks)), round6(at/float64(row.Tasks))
		var hats, ats []float64
		for b := range bootstrapResamples {
			if n := eligible[k][b]; n > 0 {
				hats = append(hats, hatSum[k][b]/float64(n))
				ats = append(ats, atSum[k][b]/float64(n))
			}
		}
		row.PassHatI, row.PassAtI = percentileInterval(hats), percentileInterval(ats)
		out = append(out, row)
	}
	return out
}

// percentileInterval is the 2.5th to 97.5th percentile of xs.
func percentileInterval(xs []float64) stats.Interval {
	if len(xs) == 0 {
		return stats.Interval{}
	}
	slices.Sort(xs)
	at := func(q float64) float64 { return xs[min(len(xs)-1, int(q*float64(len(xs))))] }
	return stats.Interval{Lo: round6(at(0.025)), Hi: round6(at(0.975))}
}

func round6(x float64) float64 {
	v, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'f', 6, 64), 64)
	return v
}

// passMetric matches a threshold metric pass^K or pass@K.
var passMetric = regexp.MustCompile(`^pass([\^@])([1-8])$`)

// isPassMetric reports whether m is pass^k or pass@k.
func isPassMetric(m string) bool { return passMetric.MatchString(m) }

// passEstimate is the pooled (every persona) pass^k or pass@k of a goal
// under a variant, for a threshold: the estimate, its interval and the
// tasks it rests on (0 when none has k trials).
func (r *Results) passEstimate(metric, goal, variant string) (float64, stats.Interval, int) {
	m := passMetric.FindStringSubmatch(metric)
	k, _ := strconv.Atoi(m[2])
	for _, row := range r.PassK {
		if row.Goal == goal && row.Persona == "" && row.Variant == variant && row.K == k {
			if m[1] == "^" {
				return row.PassHat, row.PassHatI, row.Tasks
			}
			return row.PassAt, row.PassAtI, row.Tasks
		}
	}
	return 0, stats.Interval{}, 0
}

// validateTrials bounds the trials and the derived rows.
func (r *Results) validateTrials() error {
	for i, t := range r.Trials {
		if err := checkCount(fmt.Sprintf("trials[%d].n", i), int64(t.N)); err != nil {
			return err
		}
		if t.OK < 0 || t.OK > t.N {
			return fmt.Errorf("trials[%d].ok is %d, want 0 to n (%d)", i, t.OK, t.N)
		}
	}
	for i, p := range r.PassK {
		if p.K < 1 || p.K > MaxK || p.PassHat < 0 || p.PassHat > 1 || p.PassAt < 0 || p.PassAt > 1 {
			return fmt.Errorf("pass_k[%d]: k %d, pass^k %v, pass@k %v: want k in 1…%d and rates in [0, 1]", i, p.K, p.PassHat, p.PassAt, MaxK)
		}
	}
	return nil
}

// passKShown are the k a report table shows; the JSON has every k to MaxK.
var passKShown = []int{1, 2, 4, 8}

// passKTable is pass^k and pass@k pooled over personas, per goal and
// variant, for the k a table shows; empty when no task has two trials (a
// k of 1 alone says nothing the misuse map does not).
func passKTable(res *Results) textTable {
	t := columns([]string{"Goal", "Variant", "k", "Tasks", "pass^k", "pass@k"}, false, false, true, true, true, true)
	repeated := false
	for _, row := range res.PassK {
		if row.Persona != "" || !slices.Contains(passKShown, row.K) {
			continue
		}
		repeated = repeated || row.K > 1
		t.add(0, row.Goal, row.Variant, strconv.Itoa(row.K), strconv.Itoa(row.Tasks),
			Pct(row.PassHat)+"% ["+Pct(row.PassHatI.Lo)+"–"+Pct(row.PassHatI.Hi)+"]",
			Pct(row.PassAt)+"% ["+Pct(row.PassAtI.Lo)+"–"+Pct(row.PassAtI.Hi)+"]")
	}
	if !repeated {
		t.Rows, t.rank = nil, nil
	}
	return t
}
