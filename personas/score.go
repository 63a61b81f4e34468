package personas

import (
	"math"
	"slices"
	"strings"

	"github.com/herd-sh/herd/engine"
)

// The reader model's constants. They are documented in docs/personas.md;
// the tests pin the behaviour they produce, not their values.
const (
	// verbWeight: the intent's verb ("Hide", "Change", "refund") counts
	// this many times as much as any other word.
	verbWeight = 2.0
	// incidentalWeight: the verb found elsewhere than in a verb's place
	// ("…hides it from the list", "capture_charge") counts this much.
	incidentalWeight = 0.5
	// warnWeight and reassureWeight scale caution × cues. A warning
	// weighs more than a reassurance: one "permanently" is not undone by
	// one "idempotent".
	warnWeight     = 0.3
	reassureWeight = 0.15
	// mismatchPenalty: a tool the agent sees only reads cannot do a goal
	// that needs a change (and a tool that writes is not how to look).
	mismatchPenalty = 0.5
	// sharpness turns score differences into logits: P ∝ exp(sharpness ×
	// score / noise). With it, a noise of 0.15 is a near-certain choice
	// and a noise of 0.8 a loose one over scores in [0, 1].
	sharpness = 4.0
	// cautionThreshold: agents at least this cautious pass expected
	// versions and refuse to guess between records with the same name.
	cautionThreshold = 0.5
)

// match is how well a view's words cover the intent, in [-1, 1]: per
// intent word its best match (exact 1, synonym weight × (1 − literalness)),
// weighted, over the intent's weight. The verb matches fully where the
// tool says what it does (its name's first word, a sentence's first word)
// and by half elsewhere: create_charge charges, capture_charge captures a
// charge. A tool whose name starts with the opposite of the verb, or that
// says it is not that ("This is not a refund"), counts the verb against
// itself.
func (in *intent) match(lx *lexicon, v *view, literalness float64) float64 {
	if in.total == 0 {
		return 0
	}
	syn := 1 - literalness
	sum := 0.0
	for _, iw := range in.words {
		if iw.stem != in.verb {
			sum += iw.weight * bestMatch(lx, iw.stem, v.words, syn)
			continue
		}
		if v.opposes(lx, iw.stem) {
			sum -= iw.weight * syn
			continue
		}
		if neg := bestMatch(lx, iw.stem, v.negated, syn); neg > 0 {
			sum -= iw.weight * neg
			continue
		}
		best := math.Max(bestMatch(lx, iw.stem, v.verbs, syn), incidentalWeight*bestMatch(lx, iw.stem, v.words, syn))
		sum += iw.weight * best
	}
	return sum / in.total
}

// opposes reports whether the tool's name says the opposite of verb:
// restore_contact for "hide", create_refund for "charge" — a name with an
// antonym of the verb and neither the verb nor a synonym of it.
func (v *view) opposes(lx *lexicon, verb string) bool {
	opp := false
	for _, w := range v.name {
		if antonyms[verb][w] {
			opp = true
		}
	}
	return opp && bestMatch(lx, verb, v.name, 1) == 0
}

// bestMatch is 1 for an exact match in words, else the best synonym's
// weight × syn.
func bestMatch(lx *lexicon, stem string, words []string, syn float64) float64 {
	for _, w := range words {
		if w == stem {
			return 1
		}
	}
	return lx.related(stem, words) * syn
}

// relevance is how much a redirect's purpose describes this intent: the
// share of its purpose words the intent contains (exactly or by synonym).
// A redirect with no purpose ("use X instead") always applies.
func (in *intent) relevance(lx *lexicon, purpose []string, literalness float64) float64 {
	if len(purpose) == 0 {
		return 1
	}
	sum := 0.0
	one := make([]string, 1)
	for _, pw := range purpose {
		best := 0.0
		for _, iw := range in.words {
			if iw.stem == pw {
				best = 1
				break
			}
			one[0] = iw.stem
			if r := lx.related(pw, one) * (1 - literalness); r > best {
				best = r
			}
		}
		sum += best
	}
	return sum / float64(len(purpose))
}

// saturate counts repeated cues with diminishing weight: 1, 1.5, 1.75…
func saturate(n int) float64 { return 2 * (1 - math.Pow(0.5, float64(n))) }

// dist is a choice's distribution over candidate tools.
type dist struct {
	tools   []int     // candidate tool indices, world order
	scores  []float64 // the reader model's score of each
	weights []float64 // exp(sharpness × (score − max) / noise)
}

// ScoreParts is why a tool scored what it did for one persona and goal:
// Score = Words + Cues + Mismatch + Redirect.
type ScoreParts struct {
	Tool     string  `json:"tool"`
	Words    float64 `json:"words"`    // how well the words it showed cover the goal's, in [-1, 1]
	Cues     float64 `json:"cues"`     // caution × (reassurances − warnings), when the goal has constraints
	Mismatch float64 `json:"mismatch"` // -0.5 when it reads and the goal needs a change, or the other way
	Redirect float64 `json:"redirect"` // word score moved in (+) or out (−) by "use X instead" sentences
	Score    float64 `json:"score"`
	P        float64 `json:"p"` // probability of being chosen first
}

// scoreTools scores candidates for an intent as a persona reads them.
func scoreTools(m *Model, views [][3]view, in *intent, cands []int, tr Traits) []float64 {
	parts := scoreParts(m, views, in, cands, tr)
	out := make([]float64, len(parts))
	for i, p := range parts {
		out[i] = p.Score
	}
	return out
}

// scoreParts scores candidates and keeps the parts of each score.
func scoreParts(m *Model, views [][3]view, in *intent, cands []int, tr Traits) []ScoreParts {
	lv := levelOf(tr.Attention)
	parts := make([]ScoreParts, len(cands))
	base := make([]float64, len(cands))
	pos := make(map[int]int, len(cands))
	for i, ti := range cands {
		pos[ti] = i
		v := &views[ti][lv]
		p := &parts[i]
		p.Tool = m.world.Tools[ti].Name
		p.Words = in.match(m.lex, v, tr.Literalness)
		if in.preserve {
			p.Cues += tr.Caution * (reassureWeight*saturate(v.cues[cuePreserveReassure]) - warnWeight*saturate(v.cues[cuePreserveWarn]))
		}
		if in.repeat {
			p.Cues += tr.Caution * (reassureWeight*saturate(v.cues[cueRepeatReassure]) - warnWeight*saturate(v.cues[cueRepeatWarn]))
		}
		// A tool that (by its verb, or as the agent read) only reads
		// cannot make a change, and one that writes is no way to look.
		if toolReads := readVerbs[v.verb] || v.readOnly; toolReads != in.reads {
			p.Mismatch = -mismatchPenalty
		}
		base[i] = p.Words + p.Cues + p.Mismatch
	}
	// Redirects move the words' attraction ("those words are about X"),
	// computed on the scores before any move so the order of tools does
	// not matter; a tool cannot give away more than its words earned.
	left := make([]float64, len(base))
	for i := range parts {
		left[i] = math.Max(parts[i].Words, 0)
	}
	for i, ti := range cands {
		for _, r := range views[ti][lv].redirects {
			j, ok := pos[r.other]
			if !ok {
				continue
			}
			f := tr.Attention * in.relevance(m.lex, r.purpose, tr.Literalness)
			from, to := i, j
			if r.away {
				from, to = j, i
			}
			moved := math.Min(f*math.Max(parts[from].Words, 0), left[from])
			left[from] -= moved
			parts[from].Redirect -= moved
			parts[to].Redirect += moved
		}
	}
	for i := range parts {
		parts[i].Score = base[i] + parts[i].Redirect
	}
	return parts
}

// newDist turns scores into softmax weights at the persona's noise.
func newDist(cands []int, scores []float64, noise float64) dist {
	d := dist{tools: cands, scores: scores, weights: make([]float64, len(scores))}
	if len(scores) == 0 {
		return d
	}
	hi := scores[0]
	for _, s := range scores {
		hi = math.Max(hi, s)
	}
	for i, s := range scores {
		d.weights[i] = math.Exp(sharpness * (s - hi) / noise)
	}
	return d
}

// untried is the total weight of the candidates not in tried: what sample
// and toolScores normalise by.
func (d *dist) untried(tried []int) float64 {
	total := 0.0
	for i, ti := range d.tools {
		if !slices.Contains(tried, ti) {
			total += d.weights[i]
		}
	}
	return total
}

// sample picks a candidate not in tried with uniform u ∈ [0, 1); -1 when
// every candidate was tried.
func (d *dist) sample(u float64, tried []int) int {
	total := d.untried(tried)
	if total == 0 {
		return -1
	}
	x := u * total
	last := -1
	for i, ti := range d.tools {
		if slices.Contains(tried, ti) {
			continue
		}
		last = ti
		x -= d.weights[i]
		if x < 0 {
			return ti
		}
	}
	return last
}

// toolScores lists every candidate with its score and probability given
// the tools already tried (probability 0).
func (d *dist) toolScores(m *Model, tried []int) []ToolScore {
	total := d.untried(tried)
	out := make([]ToolScore, len(d.tools))
	for i, ti := range d.tools {
		out[i] = ToolScore{Tool: m.world.Tools[ti].Name, Score: round4(d.scores[i])}
		if total > 0 && !slices.Contains(tried, ti) {
			out[i].P = round4(d.weights[i] / total)
		}
	}
	return out
}

// round4 keeps traces short and their JSON stable to read.
func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }

// lookupIntent is what an agent that needs an id reads list tools for.
func lookupIntent(rt *engine.RecordType, field string) intent {
	return parseIntent("find "+strings.ReplaceAll(rt.Name, "_", " ")+" "+strings.ReplaceAll(field, "_", " "), readVerbs)[0]
}

// exploreIntent is what an agent that looks around first reads for.
func exploreIntent(rt *engine.RecordType) intent {
	return parseIntent("list "+strings.ReplaceAll(rt.Name, "_", " "), readVerbs)[0]
}
