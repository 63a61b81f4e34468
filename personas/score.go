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
	// verbShare is the share of a tool's word score its action carries;
	// the context words share the rest, and only as far as the action
	// matches (the gate). Both are shares, so a wordy goal and a terse one
	// with the same action and object score alike.
	verbShare = 0.5
	// unsureGate is how far the context words count for a tool that does
	// not name the goal's action when no tool does (scaled down as the
	// best tool's action match rises to 1).
	unsureGate = 0.5
	// incidentalWeight: the verb found elsewhere than where a tool names
	// its action ("…hides it from the list", "capture_charge") counts
	// this much.
	incidentalWeight = 0.5
	// warnWeight and reassureWeight scale caution × cues. A warning
	// weighs more than a reassurance: one "permanently" is not undone by
	// one "idempotent".
	warnWeight     = 0.3
	reassureWeight = 0.15
	// distrustWeight scales caution when a tool's name, annotations and
	// text disagree and the goal has constraints or does not ask to
	// destroy.
	distrustWeight = 0.3
	// promoWeight scales credulity × promotional cues.
	promoWeight = 0.4
	// orderWeight scales order bias: the first-listed tool gains
	// orderWeight × order_bias, the k-th orderWeight × order_bias / k.
	orderWeight = 0.3
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
	// nowForLater scales the action match of a tool that says it acts at
	// once, for a goal that asks for the action later.
	nowForLater = 0.5
	// otherObjectWeight scales the action match of a tool that acts on
	// another record type than the goal's, one the goal does not name.
	otherObjectWeight = 0.5
	// situationWeight scales how well a tool's "Use this when …" clause
	// describes the goal into an action match: as surely as a domain
	// lexicon's family member.
	situationWeight = 0.7
)

// otherObjects says, per tool of w, whether it acts on an existing record
// of another type than goal g's target, a type the goal's text (plain,
// its placeholders removed) names nowhere. Tools that make a record (no
// key) are never off: what a goal creates is often not its target.
func otherObjects(w *engine.World, g *engine.Goal, plain string) []bool {
	if g.Target == nil {
		return nil
	}
	said := map[string]bool{}
	for _, s := range stems(plain) {
		said[s] = true
	}
	out := make([]bool, len(w.Tools))
	for i, t := range w.Tools {
		if t.Record == nil || t.Record == g.Target || t.Key == "" {
			continue
		}
		for _, s := range stems(strings.ReplaceAll(t.Record.Name, "_", " ")) {
			out[i] = out[i] || !said[s]
		}
	}
	return out
}

// erasesKept marks, for a goal that says to keep its target ("get rid of
// it for good … but keep it on file"), the tools that delete records of
// the target's type: whatever the goal's verb says, erasing the record is
// what the user ruled out, so the verb does not match them. Nil for other
// goals.
func erasesKept(m *Model, g *engine.Goal, plain string) []bool {
	if g.Target == nil || !keepItOnFile.MatchString(plain) {
		return nil
	}
	out := make([]bool, len(m.world.Tools))
	for i, t := range m.world.Tools {
		out[i] = t.Record == g.Target && t.Writes() && m.rel.inFamily(m.views[i][seeName].verb, "delete", 0.8)
	}
	return out
}

// stoppingOrPausing: a verb that ends or blocks a thing, or pauses it.
func stoppingOrPausing(verb string) bool { return stoppingVerbs[verb] || temporaryVerbs[verb] }

// pauseVerbs name actions that last only until undone: what a goal that
// asks for its action to last ("for good") does not want.
var pauseVerbs = stemSet("pause", "suspend", "hold")

// keptEndWeight is how surely an end that keeps the record is a cancel
// (and through the domain lexicon a void or a revoke): as surely as a
// domain lexicon's family member. Archive was tried too: it sent readers to
// suspend_permit, which the lexicon puts with hiding.
const keptEndWeight = 0.7

// Why an action match was changed from what the text's words give, as
// explain shows it.
const (
	whyDenied        = "a redirect's purpose describes the goal: the text says it is not for this"
	whyAtOnce        = "acts at once, for a goal that asks for later: halved"
	whyOtherRecord   = "acts on another record type than the goal's, one the goal does not name: halved"
	whyErasesKept    = "deletes the record the goal says to keep: no match"
	whyForAWhile     = "its text gives its stop a while to last: the pause a stop for a while asks, whatever the verb"
	whyOtherDuration = "its purpose lasts the other way than the goal asks"
	// Why a redirect's purpose is not about the goal (toolMatch.notAbout).
	whyRulesOutAction = "its purpose rules out the goal's action"
	whyOtherExisting  = "its purpose is about an existing record of another type than the goal's"
	whyLasts          = "says its action lasts or loses, for a stop for a while: halved"
	whyPause          = "a pause, for a goal that asks for good: halved"
)

// adjustedAction is how surely tool ti does the goal's action, for a
// reader at level lv: the verb's match in its text, then what the goal's
// constraints make of it, with the reason of the last change ("" for
// none).
func (m *Model) adjustedAction(rd *reading, ti int, lv attentionLevel, isCand func(int) bool, tr Traits) (float64, string) {
	in, v := &rd.in, &rd.views[ti][lv]
	a, why := actionMatch(&rd.tools[ti][lv], tr.Literalness), ""
	// "To change the plan, use update_subscription" on a tool says that
	// tool is not how to change the plan: for a goal the redirect's
	// purpose describes, it is a denial, as "not for changing a plan" is,
	// and wins over a weaker match of the verb.
	if d := m.redirectDenial(rd, ti, lv, isCand, tr); d > 0 && d >= math.Max(a, 0) {
		a, why = -d, whyDenied
	}
	// "Freeze a membership for one to six months" for a goal that stops
	// payments "until they're back": a stopping verb whose text gives its
	// stop a while to last is the stop for a while asked, known verb or
	// not.
	if a >= 0 && a < temporaryWeight && in.whileOnly && v.temporary > 0 && stoppingOrPausing(v.verb) && m.world.Tools[ti].Writes() {
		a, why = temporaryWeight, whyForAWhile
	}
	if a <= 0 {
		return a, why
	}
	switch {
	case in.erasesKept != nil && in.erasesKept[ti]:
		// "… but keep it on file": not deleted, whatever the verb.
		return 0, whyErasesKept
	case in.later && v.now > 0:
		// "End it then", "at the end of the period": a tool that says
		// it acts at once ("ends the subscription immediately") does the
		// action at another time than the one asked, which is not the
		// same action — not only a risk the cautious weigh (the cue).
		a, why = a*nowForLater, whyAtOnce
	}
	// "Take the van off the road" is no hold of a delivery: a tool that
	// acts on another kind of record than the goal's, one the goal does
	// not name, does the action to the wrong thing.
	if in.otherObject != nil && in.otherObject[ti] {
		a, why = a*otherObjectWeight, whyOtherRecord
	}
	// "Until they pay up … it should just work again" is no revoke "for
	// good": a tool that warns its action lasts or loses what it acts on
	// does the stop another way than the one asked, as a tool that acts
	// at once does a later action; and the other way, "get rid of it for
	// good so it can never be switched back on" is not done by a pause.
	if in.whileOnly && v.cues[cuePreserveWarn] > 0 {
		a, why = a*nowForLater, whyLasts
	}
	if in.lasting && pauseVerbs[v.verb] {
		a, why = a*nowForLater, whyPause
	}
	return a, why
}

// wordScore is what a tool's words earn for an action match a ≥ 0: the
// verb's share, and the context's, gated by the action (or, when no tool
// matches the verb, by the unsure gate).
func wordScore(a, unsure, context float64) float64 {
	return a*verbShare + (1-verbShare)*(a+unsure)*context
}

// saturate counts repeated cues with diminishing weight: 1, 1.5, 1.75…
func saturate(n float64) float64 { return 2 * (1 - math.Pow(0.5, n)) }

// dist is a choice's distribution over candidate tools.
type dist struct {
	tools   []int     // candidate tool indices, world order
	scores  []float64 // the reader model's score of each
	weights []float64 // exp(sharpness × (score − max) / noise)
	// covers marks candidates whose text says they do this action along
	// with another ("Return an order and refund it"): once such a tool
	// did an earlier action, this one is done too.
	covers []bool
	// slipped is, per candidate, the probability that a choice of it was
	// a slip (lapse): the share of its weight the slip reading gave it.
	// Nil when the choice cannot slip.
	slipped []float64
	// confidence is how surely the reader found the goal's action among
	// the candidates: the best action match, in [0, 1]. Near 0 the choice
	// is a guess between tools none of which says it does the action.
	confidence float64
}

// ScoreParts is why a tool scored what it did for one persona and goal:
// Score = Words + Cues + Mismatch + Redirect + Trust + Promo + Order.
type ScoreParts struct {
	Tool string `json:"tool"`
	// Action is how well the tool's action matches the goal's verb, in
	// [-1, 1]: -1 for the opposite action or a denial.
	Action float64 `json:"action"`
	// Context is the share of the goal's other words the tool's text
	// covers, in [0, 1]; it counts only as far as Action is positive.
	Context  float64 `json:"context"`
	Words    float64 `json:"words"`    // 0.5 × Action + 0.5 × (Action + unsure) × Context; Action alone when negative
	Cues     float64 `json:"cues"`     // caution × (reassurances − warnings), when the goal has constraints
	Mismatch float64 `json:"mismatch"` // -0.5 when it reads and the goal needs a change, or the other way
	Redirect float64 `json:"redirect"` // word score moved in (+) or out (−) by "use X instead" sentences
	Trust    float64 `json:"trust"`    // −caution × 0.3 when name, annotations and text disagree, for a constrained goal
	Promo    float64 `json:"promo"`    // credulity × promotional cues
	Order    float64 `json:"order"`    // order_bias × the tool's place in the list
	Score    float64 `json:"score"`
	// Adjusted says why the action is not the verb's match as the text
	// has it ("acts on another record type than the goal's"), "" when it
	// is.
	Adjusted string  `json:"adjusted,omitempty"`
	P        float64 `json:"p"` // probability of being chosen first
}

// scoreParts scores candidates for a reading as a persona reads them, and
// returns the action confidence with them.
func (m *Model) scoreParts(rd *reading, cands []int, tr Traits) ([]ScoreParts, float64) {
	lv := levelOf(tr.Attention)
	lit := tr.Literalness
	in := &rd.in
	parts := make([]ScoreParts, len(cands))
	base := make([]float64, len(cands))
	pos := make(map[int]int, len(cands))
	confidence := 0.0
	// A goal that asks to delete or purge accepts the loss it warns of.
	destroys := m.rel.inFamily(in.verb, "delete", 0.8)
	// The gate is relative to the best action match: when no tool says it
	// does what the goal asks, the reader still goes by what the tools
	// say about the goal's object, unsure (at most unsureGate of the
	// context's weight) rather than blind.
	best := 0.0
	for _, ti := range cands {
		best = math.Max(best, actionMatch(&rd.tools[ti][lv], lit))
	}
	unsure := unsureGate * (1 - math.Min(best, 1))
	isCand := pos0(cands)
	acts := make([]float64, len(cands))
	for i, ti := range cands {
		a, why := m.adjustedAction(rd, ti, lv, isCand, tr)
		acts[i], parts[i].Adjusted = a, why
	}
	// others is how surely another candidate than i does the goal's action.
	others := func(i int) float64 {
		o := 0.0
		for j, a := range acts {
			if j != i {
				o = math.Max(o, math.Min(a, 1))
			}
		}
		return o
	}
	for i, ti := range cands {
		pos[ti] = i
		v := &rd.views[ti][lv]
		tm := &rd.tools[ti][lv]
		p := &parts[i]
		p.Tool = m.world.Tools[ti].Name
		a := acts[i]
		p.Action = a
		// A tool that warns it destroys and promises to keep nothing, for
		// a goal that keeps: the words it shares with what the goal keeps
		// are what it would destroy.
		p.Context = contextMatch(in, tm, lit, (in.preserve || !destroys) && v.cues[cuePreserveWarn] > 0 && v.cues[cuePreserveReassure] == 0)
		gate := math.Max(a, 0)
		confidence = math.Max(confidence, gate)
		if a >= 0 {
			p.Words = wordScore(a, unsure, p.Context)
		} else {
			p.Words = a // an opposite or a denial wins nothing on shared words
		}
		// A reassurance makes a fitting tool safer; it does not make an
		// unfitting one fit. A warning lowers any tool.
		lossWarn := v.cues[cuePreserveWarn]
		if in.lasting {
			// "Get rid of it for good": that the tool's action lasts is
			// what the goal asks; only what it says is lost still warns.
			lossWarn = math.Max(0, lossWarn-v.cues[cueLasting])
		}
		switch {
		case in.preserve:
			p.Cues += tr.Caution * (reassureWeight*saturate(v.cues[cuePreserveReassure])*gate - warnWeight*saturate(lossWarn))
		case !destroys:
			// Irreversible loss is to be avoided whenever the goal does
			// not ask for it, said or not: the warnings weigh. A promise
			// to keep data only matters to a goal that says keep.
			p.Cues -= tr.Caution * warnWeight * saturate(lossWarn)
		}
		if in.repeat {
			// A warning that a call repeats ("not idempotent", "each call
			// creates another") is a reason to prefer another tool only
			// as far as another does the job: on the one tool that does
			// it, it is advice on how to call it (a key, a read-back),
			// which the agent heeds after choosing (advice.go).
			p.Cues += tr.Caution * (reassureWeight*saturate(v.cues[cueRepeatReassure])*gate - warnWeight*saturate(v.cues[cueRepeatWarn])*others(i))
		}
		// A goal that says when ("end it then", "at the end of the
		// period") is not done by a tool that says it acts at once: the
		// reader weighs "immediately" as a warning.
		if in.later {
			p.Cues -= tr.Caution * warnWeight * saturate(v.now)
		}
		if v.disagree != "" && (in.preserve || in.repeat || !destroys) {
			p.Trust = -tr.Caution * distrustWeight
		}
		p.Promo = tr.Credulity * promoWeight * saturate(v.promo) * gate
		p.Order = tr.OrderBias * orderWeight / float64(1+i)
		// A tool that (by its verb, or as the agent read) only reads
		// cannot make a change, and one that writes is no way to look.
		if toolReads := readVerbs[v.verb] || v.readOnly; toolReads != in.reads {
			p.Mismatch = -mismatchPenalty
		}
		base[i] = p.Words + p.Cues + p.Mismatch + p.Trust + p.Promo + p.Order
	}
	// Redirects move the words' attraction ("those words are about X"),
	// computed on the scores before any move so the order of tools does
	// not matter; a tool cannot give away more than its words earned.
	left := make([]float64, len(base))
	for i, ti := range cands {
		left[i] = math.Max(parts[i].Words, 0)
		if parts[i].Adjusted == whyDenied {
			// "To take a crew member off a duty because they are sick,
			// use mark_duty_sick": the tool that says so lost its words
			// to the denial; what they would have earned it is what the
			// reader carries to the tool it was sent to.
			left[i] = wordScore(math.Max(actionMatch(&rd.tools[ti][lv], lit), 0), unsure, parts[i].Context)
		}
	}
	for i, ti := range cands {
		tm := &rd.tools[ti][lv]
		for k, r := range rd.views[ti][lv].redirects {
			j, ok := pos[r.other]
			if !ok {
				continue
			}
			f := tr.Attention * redirectRelevance(in, tm, r, k, lit)
			from, to := i, j
			if r.away {
				from, to = j, i
			}
			earned := math.Max(parts[from].Words, 0)
			if parts[from].Adjusted == whyDenied {
				earned = left[from] // all it would have had
			}
			moved := math.Min(f*earned, left[from])
			left[from] -= moved
			if parts[from].Adjusted != whyDenied {
				parts[from].Redirect -= moved // a denied tool already lost its words
			}
			parts[to].Redirect += moved
		}
	}
	for i := range parts {
		parts[i].Score = base[i] + parts[i].Redirect
	}
	return parts, confidence
}

// redirectDenial is how surely tool ti's text says it is not the way to
// do the reading's action: the strongest of its redirects to another
// candidate ("to X, use Y"; "use Y instead"), as attention × how much the
// redirect's purpose describes the goal. 0 when it sends the reader
// nowhere.
func (m *Model) redirectDenial(rd *reading, ti int, lv attentionLevel, isCand func(int) bool, tr Traits) float64 {
	tm := &rd.tools[ti][lv]
	d := 0.0
	for k, r := range rd.views[ti][lv].redirects {
		if r.away || r.other == ti || !isCand(r.other) {
			continue
		}
		d = math.Max(d, tr.Attention*redirectRelevance(&rd.in, tm, r, k, tr.Literalness))
	}
	return d
}

// pos0 reports whether a tool is among the candidates.
func pos0(cands []int) func(int) bool {
	return func(ti int) bool { return slices.Contains(cands, ti) }
}

// scoreParts scores candidates for an intent made after the model was
// built (a clause of an error message), matching it now: text work at
// run time, which callers cache.
func scoreParts(m *Model, views [][attentionLevels]view, in *intent, cands []int, tr Traits) []ScoreParts {
	parts, _ := m.scoreParts(newMatcher(m.rel).newReading(*in, views), cands, tr)
	return parts
}

// actionMatch is how well a tool's action matches the goal's verb, in
// [-1, 1]. The verb matches fully where the tool names its action (its
// name's verb, a sentence's action word) and by half elsewhere:
// create_charge charges, capture_charge captures a charge. A tool that
// denies the verb ("This is not a refund") or whose action is its opposite
// (restore for hide, accept for decline) scores -1 whatever the reader's
// literalness: an opposite is not a weaker synonym.
func actionMatch(tm *toolMatch, lit float64) float64 {
	place := tm.verbPlace.value(lit)
	if neg := tm.negated.value(lit); neg > 0 && neg >= place {
		return -neg
	}
	if tm.opposed != "" {
		return -1
	}
	if tm.contrary != "" {
		// "Reply publicly" is no private reply: the same verb, done the
		// way the goal's adverb rules out, is not the action asked for.
		// It is no opposite either (it would still reply): no match.
		return 0
	}
	return math.Max(math.Max(place, incidentalWeight*tm.incidental.value(lit)), situationWeight*tm.situation)
}

// contextMatch is the weighted share of the intent's context words the
// tool's text covers (1 when the intent has none: the verb is all).
func contextMatch(in *intent, tm *toolMatch, lit float64, destroysKept bool) float64 {
	if in.total == 0 {
		return 1
	}
	sum := 0.0
	for i, iw := range in.words {
		if iw.weight > 0 {
			m := iw.weight * tm.ctx[i].value(lit)
			if iw.kept && destroysKept {
				m = -m // "Delete a user's account" for "keep their account"
			}
			sum += m
		}
	}
	return sum / in.total
}

// redirectRelevance is how much redirect k of a tool applies to the goal:
// how much its purpose describes the goal (relevance). When the purpose
// names an action, it applies as far as that action is the goal's ("to
// shift when it happens, use update_event" for a goal that moves a
// meeting), or else as far as its words describe the goal and the tool's own
// action is not the goal's. "To change the type of an existing instance, use
// modify_instance" on a tool that launches does not send away a reader who
// wants to launch, however many words the two share; "to keep the data, use
// archive_contact" on delete_contact still applies to a goal that hides.
func redirectRelevance(in *intent, tm *toolMatch, r redirect, k int, lit float64) float64 {
	if contradictsDuration(in, r.purpose) {
		// "To stop it working only for a while, use suspend_permit" is not
		// about a goal that asks for good, nor "to end it for good, use
		// revoke_permit" about a stop for a while.
		return 0
	}
	rel := relevance(tm.relevance[k], lit)
	if r.verb == "" {
		return rel
	}
	purpose := math.Min(tm.purposeAct[k].value(lit), 1)
	own := math.Min(math.Max(actionMatch(tm, lit), 0), 1)
	return math.Max(purpose, rel*(1-own))
}

// contradictsDuration: a redirect's purpose says its action lasts the
// other way than the goal asks (a while for a goal that asks for good, or
// for good for a stop for a while).
func contradictsDuration(in *intent, purpose []string) bool {
	for _, w := range purpose {
		if in.lasting && whilePurpose[w] || in.whileOnly && lastingPurpose[w] {
			return true
		}
	}
	return false
}

var (
	whilePurpose   = stemSet("while", "temporarily", "temporary")
	lastingPurpose = stemSet("good", "permanently", "permanent", "forever")
)

// relevance is how much a redirect's purpose describes this intent: the
// share of its purpose words the intent contains (exactly or by synonym).
// A redirect with no purpose ("use X instead") always applies.
func relevance(purpose []matches, lit float64) float64 {
	if len(purpose) == 0 {
		return 1
	}
	sum := 0.0
	for _, ms := range purpose {
		sum += ms.value(lit)
	}
	return sum / float64(len(purpose))
}

// newDist turns scores into softmax weights at the persona's noise.
func newDist(cands []int, scores []float64, noise, confidence float64) dist {
	d := dist{tools: cands, scores: scores, weights: make([]float64, len(scores)), confidence: confidence}
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
// every candidate was tried, or when a tried one covers this action.
func (d *dist) sample(u float64, tried []int) int {
	for i, ti := range d.tools {
		if d.covers != nil && d.covers[i] && slices.Contains(tried, ti) {
			return -1 // a tool already called did this action too
		}
	}
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
func round4(x float64) float64 {
	if r := math.Round(x*1e4) / 1e4; r != 0 {
		return r
	}
	return 0 // never -0, which JSON prints as "-0"
}

// lookupIntent is what an agent that needs an id reads list tools for.
func lookupIntent(rt *engine.RecordType, field string, r *relater, isAction func(string) bool) intent {
	return parseIntent("find "+nameWords(rt.Name)+" "+strings.ReplaceAll(field, "_", " "), isAction, r)[0]
}

// exploreIntent is what an agent that looks around first reads for.
func exploreIntent(rt *engine.RecordType, r *relater, isAction func(string) bool) intent {
	return parseIntent("list "+nameWords(rt.Name), isAction, r)[0]
}

// coverThreshold is how well a tool's joined action must match a later
// action of the goal for the reader to take that action as done.
const coverThreshold = 0.7

// coverage marks which candidates do a later action of a goal along with
// an earlier one, as a persona reads them.
func (m *Model) coverage(rd *reading, cands []int, tr Traits) []bool {
	lv := levelOf(tr.Attention)
	var out []bool
	for i, ti := range cands {
		if rd.tools[ti][lv].also.value(tr.Literalness) >= coverThreshold {
			if out == nil {
				out = make([]bool, len(cands))
			}
			out[i] = true
		}
	}
	return out
}

// The lapse ("trembling hand"): even a careful reader sometimes acts on a
// shallower reading than it is capable of, and does so more often the less
// the texts let it tell the tools apart. With probability lapse the agent
// picks from a flatter distribution over the same scores, so whatever the
// visible text says (a warning, a better-fitting action) still weighs in a
// slip: a better text protects in a lapse too, only less surely.
const (
	// lapseRate is the share of choices that slip when the agent saw
	// nothing to tell the tools apart (top scores tied, no text).
	lapseRate = 0.25
	// lapseNoise is the temperature a slip picks at (or the agent's own,
	// when that is looser).
	lapseNoise = 2.0
	// lapseMargin is the score lead of the best tool over the next at
	// which closeness has fallen to 1/e: a lead that large is a clear win.
	lapseMargin = 0.3
	// informedWords is how many content words of description a tool must
	// show before the reader counts itself informed about it.
	informedWords = 10.0
)

// lapseShare is the probability that a choice slips: lapseRate times how
// unsure the reader may be, 1 − lead × informed, where lead = 1 −
// exp(−margin/lapseMargin) is how clearly the best tool won and informed
// the mean share of informedWords the candidates' descriptions showed.
// Terse texts, close calls and misleading texts (which raise a wrong
// tool's score near the right one's) all raise it.
func lapseShare(scores []float64, informed float64) float64 {
	if len(scores) < 2 {
		return 0
	}
	first, second := math.Inf(-1), math.Inf(-1)
	for _, s := range scores {
		switch {
		case s > first:
			first, second = s, first
		case s > second:
			second = s
		}
	}
	lead := 1 - math.Exp(-(first-second)/lapseMargin)
	return lapseRate * (1 - lead*informed)
}

// slipTraits is how a reader reads in a slip: a reader of everything
// skims, as a first-sentence reader does (the fine print, annotations and
// parameter docs go unread); a skimmer or a reader of names reads as it
// always does.
func slipTraits(tr Traits) Traits {
	if levelOf(tr.Attention) == seeEverything {
		tr.Attention = slipAttention
	}
	return tr
}

// slipAttention is the attention of a slip of a reader of everything: a
// skimmer's that reads the first lines, to a budget of words (seeFirst),
// not the first sentence alone.
const slipAttention = 0.6

// against is what a tool's visible text said against it for this goal:
// the negative parts of its score (a warning, a pointer to another tool, a
// denial or the opposite action, a read tool for a change). Not a
// disagreement of name and text: a slip takes the text it skims at face
// value, and seeing that the text contradicts the name takes the
// comparison the slip skipped.
func against(p *ScoreParts) float64 {
	return math.Min(p.Words, 0) + math.Min(p.Cues, 0) + math.Min(p.Redirect, 0) + p.Mismatch
}

// lapse mixes a slip into d: with probability share the agent picks from
// the scores of its slip reading (slipTraits), at temperature max(noise,
// lapseNoise) for what draws it to a tool, but at its own noise for what
// it saw against one and for list order. A slip is grabbing a tool without
// weighing which fits best, not overriding a reason the reader saw not to
// take it: a shouted warning, a "see suspend_user" or a "not for…" stops
// the hand in a slip too, while a tool that looks fine on a skim is as
// likely as any, the earlier-listed a little more.
func (d *dist) lapse(share, noise float64, slip []ScoreParts) {
	if share <= 0 || len(d.weights) < 2 || len(slip) != len(d.weights) {
		return
	}
	flat := math.Max(noise, lapseNoise)
	hi := math.Inf(-1)
	for i := range slip {
		hi = math.Max(hi, slip[i].Score)
	}
	sharp, loose := 0.0, 0.0
	fw := make([]float64, len(slip))
	for i := range slip {
		// What the slip keeps at the agent's own noise: reasons against a
		// tool, and the pull of list order, which is what a grab goes by.
		kept := against(&slip[i]) + slip[i].Order
		fw[i] = math.Exp(sharpness*(slip[i].Score-hi)/flat + sharpness*kept*(1/noise-1/flat))
		loose += fw[i]
		sharp += d.weights[i]
	}
	d.slipped = make([]float64, len(d.weights))
	for i := range d.weights {
		slipped := share * fw[i] / loose
		d.weights[i] = (1-share)*d.weights[i]/sharp + slipped
		if d.weights[i] > 0 {
			d.slipped[i] = slipped / d.weights[i]
		}
	}
}

// slipOf is the probability that choosing tool ti was a slip.
func (d *dist) slipOf(ti int) float64 {
	if d.slipped == nil {
		return 0
	}
	if i := slices.Index(d.tools, ti); i >= 0 {
		return d.slipped[i]
	}
	return 0
}

// informed is the mean share of informedWords of description the
// candidates showed at a reader's attention level.
func (m *Model) informed(rd *reading, cands []int, lv attentionLevel) float64 {
	if len(cands) == 0 {
		return 0
	}
	sum := 0.0
	for _, ti := range cands {
		sum += math.Min(1, float64(rd.views[ti][lv].textWords)/informedWords)
	}
	return sum / float64(len(cands))
}
