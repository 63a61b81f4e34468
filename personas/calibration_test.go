package personas_test

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/worlds"
)

// The calibration: four effects that studies of real language models have
// published, each reproduced on a small world of its own
// (personas/testdata/calibration), with herd's figure for every built-in
// persona and the default mix beside the published one. docs/calibration.md
// holds the tables; they are this test's output, rewritten by
//
//	go test ./personas/ -run TestCalibration -update-calibration
//
// and a full run (not -short) fails when the document's tables are not what
// the model now produces. The test asserts directions only: the published
// sizes are for reading beside herd's, not for herd to be tuned to.

var updateCalibration = flag.Bool("update-calibration", false,
	"rewrite the tables of docs/calibration.md from this run of TestCalibration")

const (
	calibrationDoc  = "../docs/calibration.md"
	calibrationData = "testdata/calibration"
	// calibrationSeed is the run seed agent seeds derive from, as a swarm's
	// do: agent i's seed is entropy.Mix(calibrationSeed, i).
	calibrationSeed = 20260514
)

// population is who plays a row of a table: one persona, or the default
// mix (the built-in pack in equal shares: agent i plays persona i mod 7).
type population struct {
	name     string
	personas []*personas.Persona
}

func (p population) persona(i int) *personas.Persona { return p.personas[i%len(p.personas)] }

func (p population) single() bool { return len(p.personas) == 1 }

func calibrationPopulations() []population {
	pack := personas.Builtin().Personas
	var out []population
	for _, p := range pack {
		out = append(out, population{name: p.Name, personas: []*personas.Persona{p}})
	}
	return append(out, population{name: "default mix", personas: pack})
}

// calibWorld is one world with its seeded base and a model per variant.
type calibWorld struct {
	w      *engine.World
	base   *engine.Base
	models map[string]*personas.Model
}

func loadCalibWorld(t *testing.T, ref string) *calibWorld {
	t.Helper()
	var w *engine.World
	var err error
	if strings.HasPrefix(ref, worlds.Prefix) {
		w, err = worlds.Resolve(ref)
	} else {
		w, err = engine.LoadFile(filepath.Join(calibrationData, ref))
	}
	if err != nil {
		t.Fatalf("calibration world %s: %v", ref, err)
	}
	base, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatalf("calibration world %s: seed: %v", ref, err)
	}
	cw := &calibWorld{w: w, base: base, models: map[string]*personas.Model{}}
	for _, v := range w.Variants {
		if cw.models[v], err = personas.NewModel(w, v); err != nil {
			t.Fatalf("calibration world %s: %v", ref, err)
		}
	}
	return cw
}

// run plays n episodes of a goal under a variant, agent i with seed
// Mix(calibrationSeed, first+i), and hands each outcome to each.
func (cw *calibWorld) run(t *testing.T, variant, goal string, pop population, first, n int, each func(i int, out personas.Outcome)) {
	t.Helper()
	m, g := cw.models[variant], cw.w.Goal(goal)
	if m == nil || g == nil {
		t.Fatalf("world %s has no variant %q or no goal %q", cw.w.Name, variant, goal)
	}
	for i := first; i < first+n; i++ {
		out, err := m.Run(personas.Episode{Base: cw.base, Persona: pop.persona(i), Goal: g, Seed: entropy.Mix(calibrationSeed, uint64(i))})
		if err != nil {
			t.Fatalf("world %s, variant %s, goal %s: %v", cw.w.Name, variant, goal, err)
		}
		each(i, out)
	}
}

// rate is k of n with its 95% Wilson interval.
type rate struct{ k, n int }

func (r rate) p() float64 {
	if r.n == 0 {
		return 0
	}
	return float64(r.k) / float64(r.n)
}

func (r rate) interval() stats.Interval { return stats.Wilson(r.k, r.n, 0.95) }

func (r rate) String() string {
	iv := r.interval()
	return fmt.Sprintf("%.1f%% [%.1f–%.1f]", 100*r.p(), 100*iv.Lo, 100*iv.Hi)
}

// clearlyAbove: the intervals of a and b do not overlap, a above.
func clearlyAbove(a, b rate) bool { return a.interval().Lo > b.interval().Hi }

// table is a Markdown table; its columns after the first are right-aligned
// (numbers) unless text says they are words.
type table struct {
	head []string
	rows [][]string
	text bool
}

func (tb *table) add(cells ...string) { tb.rows = append(tb.rows, cells) }

func (tb *table) String() string {
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	line(tb.head)
	sep := make([]string, len(tb.head))
	for i := range sep {
		sep[i] = "---"
		if i > 0 && !tb.text {
			sep[i] = "---:"
		}
	}
	line(sep)
	for _, r := range tb.rows {
		line(r)
	}
	return b.String()
}

// trait reads one trait of a persona.
type trait func(personas.Traits) float64

func credulity(t personas.Traits) float64 { return t.Credulity }
func orderBias(t personas.Traits) float64 { return t.OrderBias }

// populationTrait is a trait's cell for a population: the persona's value,
// or the range over the mix.
func populationTrait(pop population, f trait) string {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range pop.personas {
		lo, hi = math.Min(lo, f(p.Traits)), math.Max(hi, f(p.Traits))
	}
	if lo == hi {
		return fmt.Sprintf("%.2g", lo)
	}
	return fmt.Sprintf("%.2g–%.2g", lo, hi)
}

func populationAttention(pop population) string {
	if pop.single() {
		return fmt.Sprintf("%.2g", pop.personas[0].Traits.Attention)
	}
	return "mixed"
}

// spreadOf is the range of a figure over the seven personas.
type spreadOf struct {
	lo, hi float64
	n      int
	digits int // 0: a percentage
}

func (s *spreadOf) add(x float64) {
	if s.n == 0 || x < s.lo {
		s.lo = x
	}
	if s.n == 0 || x > s.hi {
		s.hi = x
	}
	s.n++
}

func (s spreadOf) String() string {
	if s.digits > 0 {
		return fmt.Sprintf("%.*f–%.*f", s.digits, s.lo, s.digits, s.hi)
	}
	return fmt.Sprintf("%.1f%%–%.1f%%", 100*s.lo, 100*s.hi)
}

// calibration is the generated parts of the document, by block name.
type calibration map[string]string

func TestCalibration(t *testing.T) {
	// Episodes per population (persona or mix) per effect: ≥ 1,000 in a
	// full run, as docs/calibration.md reports.
	n := 1200
	if testing.Short() {
		n = 200
	}
	pops := calibrationPopulations()
	got := calibration{}
	summary := &table{head: []string{"effect", "published", "herd, default mix", "herd, per persona", "what in herd produces it"}, text: true}
	for _, e := range []struct {
		name string
		run  func(*testing.T, []population, int) (string, []string)
	}{{"assertive", calibrateAssertive}, {"compliant", calibrateCompliant}, {"position", calibratePosition}, {"margin", calibrateMargin}} {
		t.Run(e.name, func(t *testing.T) {
			block, row := e.run(t, pops, n)
			got[e.name] = block
			summary.add(row...)
		})
	}
	for _, name := range calibrationBlocks[1:] {
		if got[name] == "" {
			return // a -run filter left an effect out: the document is not this run's to judge
		}
		t.Logf("calibration %s:\n%s", name, got[name])
	}
	got["summary"] = summary.String()
	doc, err := os.ReadFile(calibrationDoc)
	if err != nil {
		t.Fatalf("calibration: %v", err)
	}
	fresh, err := got.into(doc)
	if err != nil {
		t.Fatalf("%s: %v", calibrationDoc, err)
	}
	switch {
	case *updateCalibration:
		if testing.Short() {
			t.Fatal("-update-calibration needs a full run (without -short): the document reports the full episode counts")
		}
		if err := os.WriteFile(calibrationDoc, fresh, 0o644); err != nil {
			t.Fatal(err)
		}
	case !testing.Short() && !bytes.Equal(doc, fresh):
		t.Errorf("%s is not what the model now produces: regenerate it with\n\tgo test ./personas/ -run TestCalibration -update-calibration", calibrationDoc)
	}
}

// calibrationBlocks are the generated parts of the document, in order.
var calibrationBlocks = []string{"summary", "assertive", "compliant", "position", "margin"}

// into returns doc with each block's generated part replaced: the text
// between "<!-- calibration:NAME -->" and "<!-- /calibration:NAME -->".
func (c calibration) into(doc []byte) ([]byte, error) {
	out := string(doc)
	for _, name := range calibrationBlocks {
		open, close := "<!-- calibration:"+name+" -->\n", "<!-- /calibration:"+name+" -->"
		i := strings.Index(out, open)
		j := strings.Index(out, close)
		if i < 0 || j < i {
			return nil, fmt.Errorf("no generated block %q (%s … %s)", name, strings.TrimSpace(open), close)
		}
		out = out[:i+len(open)] + c[name] + out[j:]
	}
	return []byte(out), nil
}

// (a) Faghih et al. 2025: two identical tools, one description ending with
// an assertive cue. Each variant puts the cue on one twin (or on neither), so
// position cannot pose as the cue. Two cues: the paper's own sentence, and a
// probe worded with claims the reader model lists as promotional.
func calibrateAssertive(t *testing.T, pops []population, n int) (string, []string) {
	cw := loadCalibWorld(t, "assertive.yaml")
	const goal = "send_invoice"
	g := cw.w.Goal(goal)
	cues := []struct {
		label    string
		variants [2]string // cue on the first twin, on the second
	}{{"paper's cue", [2]string{"first_assertive", "second_assertive"}}, {"probe cue", [2]string{"first_recommended", "second_recommended"}}}
	tb := &table{head: []string{"population", "attention", "credulity",
		"paper's cue: cued twin", "paper's cue: plain twin", "paper's cue: weighed",
		"probe cue: cued twin", "probe cue: plain twin", "probe cue: weighed", "no cue: first-listed twin"}}
	tb.add("**published** (GPT-4.1, Qwen2.5-7B, averaged)", "", "", "**81.8%**", "**7.3%**", "", "", "", "", "")
	var spread spreadOf
	var mix string
	for _, pop := range pops {
		row := []string{pop.name, populationAttention(pop), populationTrait(pop, credulity)}
		for ci, c := range cues {
			var cued, plain rate
			for side, v := range c.variants {
				want := fmt.Sprintf("send_invoice_%d", side+1)
				cw.run(t, v, goal, pop, 0, n/2, func(_ int, out personas.Outcome) {
					cued.n++
					plain.n++
					switch out.Called {
					case want:
						cued.k++
					case "send_invoice_1", "send_invoice_2":
						plain.k++
					}
				})
			}
			// How much the persona's score of the cued twin rose for its
			// cue (Explain's promo part): whether it saw and weighed it.
			weighed := "—"
			if pop.single() {
				promo := 0.0
				for _, sp := range cw.models[c.variants[0]].Explain(pop.personas[0], g) {
					if sp.Tool == "send_invoice_1" {
						promo = sp.Promo
					}
				}
				weighed = fmt.Sprintf("%+.3f", promo)
				if pop.personas[0].Traits.Credulity > 0 && promo > 0 && !clearlyAbove(cued, plain) {
					t.Errorf("%s (credulity %.2g) weighs the %s (+%.3f), yet the cued twin %v is not chosen clearly more than the plain one %v",
						pop.name, pop.personas[0].Traits.Credulity, c.label, promo, cued, plain)
				}
			}
			row = append(row, cued.String(), plain.String(), weighed)
			if ci == 0 {
				if pop.single() {
					spread.add(cued.p())
				} else {
					mix = fmt.Sprintf("%.1f%% vs %.1f%%", 100*cued.p(), 100*plain.p())
				}
			}
		}
		var first rate
		cw.run(t, "plain", goal, pop, 0, n, func(_ int, out personas.Outcome) {
			first.n++
			if out.Called == "send_invoice_1" {
				first.k++
			}
		})
		tb.add(append(row, first.String())...)
	}
	sweep := calibrateAssertiveSweep(t, cw, cues[0].variants, cues[1].variants, n)
	return fmt.Sprintf("%d episodes per row and cue: %d with the cue on the first-listed twin, %d on the second, pooled; and %d more with no cue at all. "+
			"*Weighed* is how much the persona's score of the cued twin rose for the cue (the `promo` part of `Model.Explain`; 0 when it did not see or did not recognise it).\n\n",
			n, n/2, n/2, n) + tb.String() + "\n" + sweep,
		[]string{"(a) assertive cue on one of two identical tools: share choosing the cued vs the plain twin", "81.8% vs 7.3%", mix, "cued twin " + spread.String(),
			"the `credulity` trait, for cues it recognises"}
}

// sweepPoints are the trait values a sweep tries: the trait's whole range.
var sweepPoints = []float64{0, 0.25, 0.5, 0.75, 1}

// sweepPersona is the baseline with one change, named for the table.
func sweepPersona(name string, change func(*personas.Traits)) *personas.Persona {
	tr := personas.Baseline()
	change(&tr)
	return &personas.Persona{Name: name, Traits: tr}
}

// calibrateAssertiveSweep: the cued twin's share over the whole range of
// credulity, for a baseline persona that reads whole descriptions (as a
// language model does): whether any credulity reaches the published split,
// and where a default would have to lie to.
func calibrateAssertiveSweep(t *testing.T, cw *calibWorld, paper, probe [2]string, n int) string {
	const goal = "send_invoice"
	head := []string{"cue"}
	for _, c := range sweepPoints {
		head = append(head, fmt.Sprintf("credulity %.2g", c))
	}
	tb := &table{head: head}
	for _, c := range []struct {
		label    string
		variants [2]string
	}{{"paper's cue", paper}, {"probe cue", probe}} {
		row := []string{c.label}
		for _, cred := range sweepPoints {
			p := sweepPersona("sweep", func(tr *personas.Traits) { tr.Attention, tr.Credulity = 1, cred })
			pop := population{name: p.Name, personas: []*personas.Persona{p}}
			var cued rate
			for side, v := range c.variants {
				want := fmt.Sprintf("send_invoice_%d", side+1)
				cw.run(t, v, goal, pop, 0, n/2, func(_ int, out personas.Outcome) {
					cued.n++
					if out.Called == want {
						cued.k++
					}
				})
			}
			row = append(row, cued.String())
		}
		tb.add(row...)
	}
	return fmt.Sprintf("The cued twin's share over the whole range of credulity, for the baseline persona reading whole descriptions (attention 1), %d episodes per cell:\n\n", n) + tb.String()
}

// (b) arXiv 2602.18914: five equivalent tools, one standard-compliant
// description among four smelly ones. Variant compliant_K gives tool K the
// compliant text, and each variant gets a fifth of the episodes, so every
// list position holds the compliant text equally often.
func calibrateCompliant(t *testing.T, pops []population, n int) (string, []string) {
	cw := loadCalibWorld(t, "compliant.yaml")
	const goal = "remind_patient"
	tb := &table{head: []string{"population", "attention", "compliant tool chosen first", "each smelly tool (mean)", "none of the five", "chance"}}
	tb.add("**published** (competitive setting, 5 equivalent servers)", "", "**72%**", "", "", "20%")
	per := n / 5
	var spread spreadOf
	var mix string
	for _, pop := range pops {
		var compliant, neither rate
		for k := 1; k <= 5; k++ {
			want := fmt.Sprintf("send_reminder_%d", k)
			cw.run(t, fmt.Sprintf("compliant_%d", k), goal, pop, (k-1)*per, per, func(_ int, out personas.Outcome) {
				compliant.n++
				neither.n++
				switch {
				case out.Called == want:
					compliant.k++
				case !strings.HasPrefix(out.Called, "send_reminder_"):
					neither.k++
				}
			})
		}
		smelly := float64(compliant.n-compliant.k-neither.k) / 4 / float64(compliant.n)
		tb.add(pop.name, populationAttention(pop), compliant.String(), fmt.Sprintf("%.1f%%", 100*smelly), neither.String(), "20%")
		if pop.single() {
			spread.add(compliant.p())
		} else {
			mix = fmt.Sprintf("%.1f%%", 100*compliant.p())
		}
		// A persona that reads descriptions at all must prefer the compliant
		// one to chance; one that reads names only cannot tell them apart.
		if pop.single() && pop.personas[0].Traits.ReadsDescriptions() && compliant.interval().Lo <= 0.2 {
			t.Errorf("%s reads descriptions, yet chose the compliant tool %v, not clearly above chance (20%%)", pop.name, compliant)
		}
	}
	return fmt.Sprintf("%d episodes per row, %d with the compliant text at each of the five positions.\n\n", 5*per, per) + tb.String(),
		[]string{"(b) one standard-compliant description among five equivalent tools: share choosing it", "72% (chance 20%)", mix, spread.String(),
			"how many of the goal's words a description covers, as far as the persona reads (`attention`), sharpened by `noise`"}
}

// (c) BiasBusters: five identical tools; the measure is which list
// position was chosen. δ_pos is the total variation distance of the
// position distribution from uniform, as the paper defines it.
func calibratePosition(t *testing.T, pops []population, n int) (string, []string) {
	cw := loadCalibWorld(t, "position.yaml")
	const goal = "validate_address"
	// The baseline's order bias moves the first-listed tool's share by a
	// few points: telling that from the last-listed one's takes three
	// times the episodes the other effects need, short run or not.
	n = 3 * max(n, 1200)
	tb := &table{head: []string{"population", "order bias", "first-listed chosen", "last-listed chosen", "positions 1–5", "δ_pos [95% CI]"}}
	tb.add("**published**: Gemini 2.5 Flash / Claude 3.5 Sonnet / GPT-4.1-mini", "", "", "", "", "**0.306 / 0.325 / 0.423**")
	var spread spreadOf
	var mix string
	for _, pop := range pops {
		counts, total := positionCounts(t, cw, goal, pop, n)
		first, last := rate{counts[0], total}, rate{counts[4], total}
		shares := make([]string, 5)
		for i, c := range counts {
			shares[i] = fmt.Sprintf("%.0f", 100*float64(c)/float64(max(total, 1)))
		}
		d, lo, hi := deltaPos(counts, pop.name)
		tb.add(pop.name, populationTrait(pop, orderBias), first.String(), last.String(), strings.Join(shares, " · ")+" %",
			fmt.Sprintf("%.3f [%.3f–%.3f]", d, lo, hi))
		spread.digits = 3
		if pop.single() {
			spread.add(d)
		} else {
			mix = fmt.Sprintf("δ_pos %.3f", d)
		}
		if b := pop.personas[0].Traits.OrderBias; pop.single() && b > 0 && !clearlyAbove(first, last) {
			t.Errorf("%s (order bias %.2g): the first-listed tool %v is not chosen clearly more than the last-listed %v", pop.name, b, first, last)
		}
	}
	how := "the `order_bias` trait"
	// The same measure over the whole range of order bias, for the
	// baseline persona: how far the trait can move δ_pos at all.
	sw := &table{head: []string{"order bias", "first-listed chosen", "last-listed chosen", "δ_pos [95% CI]"}}
	for _, b := range sweepPoints {
		p := sweepPersona(fmt.Sprintf("baseline, order bias %.2g", b), func(tr *personas.Traits) { tr.OrderBias = b })
		pop := population{name: p.Name, personas: []*personas.Persona{p}}
		counts, total := positionCounts(t, cw, goal, pop, n)
		d, lo, hi := deltaPos(counts, pop.name)
		sw.add(fmt.Sprintf("%.2g", b), rate{counts[0], total}.String(), rate{counts[4], total}.String(), fmt.Sprintf("%.3f [%.3f–%.3f]", d, lo, hi))
	}
	return fmt.Sprintf("%d episodes per row, half under each wording (both wordings are the same for all five tools); shares are of the episodes that called one of the five. "+
			"With identical tools δ_pos has a sampling floor: about 0.02 at this size even when every position is equally likely.\n\n", n) + tb.String() +
			fmt.Sprintf("\nThe same over the whole range of order bias, for the baseline persona (noise %.2g), %d episodes per row:\n\n", personas.Baseline().Noise, n) + sw.String(),
		[]string{"(c) five identical tools: position bias δ_pos (0 = every position alike)", "0.306–0.423 (three models)", mix, "δ_pos " + spread.String(), how}
}

// positionCounts plays n episodes, half under each wording, and counts
// which list position's tool was called first (and how many called one).
func positionCounts(t *testing.T, cw *calibWorld, goal string, pop population, n int) ([]int, int) {
	counts := make([]int, 5)
	total := 0
	for _, v := range cw.w.Variants {
		cw.run(t, v, goal, pop, 0, n/len(cw.w.Variants), func(_ int, out personas.Outcome) {
			var k int
			if _, err := fmt.Sscanf(out.Called, "validate_address_%d", &k); err == nil && k >= 1 && k <= 5 {
				counts[k-1]++
				total++
			}
		})
	}
	return counts, total
}

// deltaPos is ½ Σ |p_i − 1/K| with a 95% percentile-bootstrap interval
// (multinomial resampling of the counts; the resampler's seed is fixed per
// row so the document is reproducible).
func deltaPos(counts []int, row string) (d, lo, hi float64) {
	total := 0
	for _, c := range counts {
		total += c
	}
	if total == 0 {
		return 0, 0, 0
	}
	tvd := func(cs []int) float64 {
		s := 0.0
		for _, c := range cs {
			s += math.Abs(float64(c)/float64(total) - 1/float64(len(cs)))
		}
		return s / 2
	}
	d = tvd(counts)
	seed := uint64(0)
	for _, r := range row {
		seed = seed*31 + uint64(r)
	}
	rnd := rand.New(rand.NewPCG(calibrationSeed, seed))
	cum := make([]int, len(counts))
	acc := 0
	for i, c := range counts {
		acc += c
		cum[i] = acc
	}
	const resamples = 400
	ds := make([]float64, resamples)
	re := make([]int, len(counts))
	for b := range ds {
		clear(re)
		for range total {
			x := rnd.IntN(total)
			i, _ := slices.BinarySearch(cum, x+1)
			re[i]++
		}
		ds[b] = tvd(re)
	}
	slices.Sort(ds)
	return d, ds[resamples*25/1000], ds[resamples*975/1000-1]
}

// marginBins are the bins of the gap between a persona's two best first-
// choice scores.
var marginBins = []struct {
	label string
	hi    float64
}{{"gap < 0.1", 0.1}, {"0.1 – 0.25", 0.25}, {"0.25 – 0.5", 0.5}, {"≥ 0.5", math.Inf(1)}}

func marginBin(gap float64) int {
	for i, b := range marginBins {
		if gap < b.hi {
			return i
		}
	}
	return len(marginBins) - 1
}

// topGap is the score of the best candidate minus the second best.
func topGap(scores []personas.ToolScore) float64 {
	if len(scores) < 2 {
		return math.Inf(1)
	}
	s := make([]float64, len(scores))
	for i, ts := range scores {
		s[i] = ts.Score
	}
	slices.Sort(s)
	return s[len(s)-1] - s[len(s)-2]
}

// errorRule says whether an episode counts at all, and whether as an error.
type errorRule func(w *engine.World, out personas.Outcome) (counted, isErr bool)

// notOK: the episode did not end ok. On the margin world nothing but the
// choice of tool (or an adversarial's malformed arguments) decides that.
func notOK(_ *engine.World, out personas.Outcome) (bool, bool) {
	return true, out.Severity != engine.SeverityOK
}

// offMeant: the first write went to a tool other than the goal's meant one,
// or, for a goal that only reads, there was a write at all. On the shipped
// worlds an outcome can also go wrong for reasons that are not the choice
// (a lost update, a near-duplicate name), which this leaves out. An episode
// of a goal that writes, in which the agent wrote nothing (it stopped rather
// than guess between two same-named records, or ran out of patience), made
// no choice to judge and is not counted.
func offMeant(w *engine.World, out personas.Outcome) (bool, bool) {
	if t := w.Tool(out.Meant); t != nil && !t.Writes() {
		return true, out.Called != ""
	}
	if out.Called == "" {
		return false, false
	}
	return true, out.Called != out.Meant
}

// (d) arXiv 2605.07990: errors rise as the top two candidates' scores get
// close. Every goal of the margin world (and, for breadth, of the shipped
// worlds) under every variant is a cell; each cell's episodes go to the bin
// of the playing persona's score gap for that goal, and an error is an
// episode that did not end ok.
func calibrateMargin(t *testing.T, pops []population, n int) (string, []string) {
	own := []*calibWorld{loadCalibWorld(t, "margin.yaml")}
	var shipped []*calibWorld
	for _, name := range worlds.Names() {
		shipped = append(shipped, loadCalibWorld(t, name))
	}
	// wide counts, per world and goal (all variants), the errors of the
	// seven personas' episodes in the widest-gap bin: where the reader
	// model is sure and wrong.
	type cellKey struct{ world, goal string }
	measure := func(cws []*calibWorld, pop population, perPop int, isErr errorRule, wide map[cellKey]*rate) []rate {
		// A refrain goal has no right tool: an error against the gap
		// between the top two means nothing there.
		acting := func(w *engine.World) []*engine.Goal {
			var out []*engine.Goal
			for _, g := range w.Goals {
				if !g.Refrain {
					out = append(out, g)
				}
			}
			return out
		}
		cells := 0
		for _, cw := range cws {
			cells += len(cw.w.Variants) * len(acting(cw.w))
		}
		per := max(perPop/cells, 1)
		bins := make([]rate, len(marginBins))
		for _, cw := range cws {
			for _, v := range cw.w.Variants {
				m := cw.models[v]
				for _, g := range acting(cw.w) {
					gap := map[*personas.Persona]int{}
					for _, p := range pop.personas {
						gap[p] = marginBin(topGap(m.Scores(p, g)))
					}
					key := cellKey{cw.w.Name, g.Name}
					cw.run(t, v, g.Name, pop, 0, per, func(i int, out personas.Outcome) {
						counted, isErr := isErr(cw.w, out)
						if !counted {
							return
						}
						bin := gap[pop.persona(i)]
						b := &bins[bin]
						b.n++
						if isErr {
							b.k++
						}
						if bin == len(marginBins)-1 && pop.single() {
							if wide[key] == nil {
								wide[key] = &rate{}
							}
							wide[key].n++
							if isErr {
								wide[key].k++
							}
						}
					})
				}
			}
		}
		return bins
	}
	render := func(cws []*calibWorld, what string, perPop int, isErr errorRule) (string, []rate) {
		head := []string{"population"}
		for _, b := range marginBins {
			head = append(head, b.label)
		}
		tb := &table{head: head}
		pooled := make([]rate, len(marginBins))
		wide := map[cellKey]*rate{}
		for _, pop := range pops {
			bins := measure(cws, pop, perPop, isErr, wide)
			row := []string{pop.name}
			for i, b := range bins {
				if b.n == 0 {
					row = append(row, "—")
					continue
				}
				row = append(row, fmt.Sprintf("%v (%d)", b, b.n))
				if pop.single() {
					pooled[i].k += b.k
					pooled[i].n += b.n
				}
			}
			tb.add(row...)
		}
		row := []string{"**all seven personas pooled**"}
		for _, b := range pooled {
			row = append(row, fmt.Sprintf("%v (%d)", b, b.n))
		}
		tb.add(row...)
		// The goals behind most of the widest-gap errors, worst first.
		keys := make([]cellKey, 0, len(wide))
		for k, r := range wide {
			if r.k > 0 {
				keys = append(keys, k)
			}
		}
		slices.SortFunc(keys, func(a, b cellKey) int {
			if d := wide[b].k - wide[a].k; d != 0 {
				return d
			}
			return strings.Compare(a.world+"/"+a.goal, b.world+"/"+b.goal)
		})
		ct := &table{head: []string{"world", "goal", "errors in the widest-gap bin (all variants)"}, text: true}
		for _, k := range keys[:min(len(keys), 5)] {
			ct.add(k.world, k.goal, fmt.Sprintf("%d of %d (%.0f%% of the bin's %d errors)", wide[k].k, wide[k].n, 100*float64(wide[k].k)/float64(max(pooled[len(pooled)-1].k, 1)), pooled[len(pooled)-1].k))
		}
		text := what + "\n\n" + tb.String()
		if len(keys) > 0 {
			text += "\nWhere the errors of the widest-gap bin come from (the seven personas, worst goals first):\n\n" + ct.String()
			last, worst := pooled[len(pooled)-1], wide[keys[0]]
			rest := rate{last.k - worst.k, last.n - worst.n}
			text += fmt.Sprintf("\nLeaving out the worst goal (%s), the widest-gap bin's error rate is %v of %d episodes, against %v where the top two are closest.\n",
				keys[0].goal, rest, rest.n, pooled[0])
		}
		return text, pooled
	}
	ownText, ownPooled := render(own, "On the margin world (personas/testdata/calibration/margin.yaml), where an error is an episode that did not end ok — error rate by gap [95% CI] (episodes):", n, notOK)
	shipText, shipPooled := render(shipped, "On the shipped worlds ("+strings.Join(worlds.Names(), ", ")+"), every goal under every variant, where an error is a first write to a tool other than the goal's meant one (any write, for a goal that only reads; an episode of a goal that writes in which nothing was written is left out):", n, offMeant)
	// The direction is asserted on the margin world, built for it. The
	// shipped worlds are reported for breadth: a goal on which the reader
	// model is sure and wrong shows there as errors at a wide gap, which the
	// table below the rates names rather than hides.
	if lo, hi := ownPooled[0], ownPooled[len(ownPooled)-1]; !clearlyAbove(lo, hi) {
		t.Errorf("margin world: the error rate where the top two scores are close (%v) is not clearly above where they are far apart (%v)", lo, hi)
	}
	lo, hi := ownPooled[0], ownPooled[len(ownPooled)-1]
	slo, shi := shipPooled[0], shipPooled[len(shipPooled)-1]
	return fmt.Sprintf("About %d episodes per row on each set of worlds, spread evenly over its goals and variants; each episode is binned by the gap between the two best first-choice scores of the persona that played it.\n\n", n) +
			ownText + "\n" + shipText,
		[]string{"(d) error rate where the top two scores are close vs far apart", "rises as the gap closes (direction only)",
			fmt.Sprintf("margin world: %.1f%% (%s) vs %.1f%% (%s); shipped worlds: %.1f%% vs %.1f%% (personas pooled)",
				100*lo.p(), marginBins[0].label, 100*hi.p(), marginBins[len(marginBins)-1].label, 100*slo.p(), 100*shi.p()),
			"see the tables below", "softmax over the scores at the persona's `noise`: a close second is often taken"}
}
