package personas

// Matching is text work, and all of it is done when the model is built: for
// every intent the model will score (each goal action, each look-up, each
// exploration) and every tool at every attention level, the best match of
// each intent word in each strength class. A persona's scores are then
// arithmetic on these matches at its literalness.

import "slices"

// toolMatch is how one tool's view answers one intent.
type toolMatch struct {
	verbPlace  matches // the verb where the tool names its action
	incidental matches // the verb anywhere else it was read
	negated    matches // the verb in what the tool denies
	opposed    string  // the tool's action word opposing the verb, "" when none
	// contrary is the tool's word that says the opposite of how the goal
	// wants it done ("Reply publicly" for "reply privately"), with the
	// goal's word; "" when none.
	contrary, contraryOf string
	// situation is how well one of the tool's "Use this when …" clauses
	// describes the goal (0: none does), and which.
	situation     float64
	situationText string
	also          matches // the verb as an action the tool does along with its own
	ctx           []matches
	relevance     [][]matches // per redirect: per purpose word, its best match among the intent's words
	// purposeAct is, per redirect with a purpose verb, how well that verb
	// matches the goal's action (its verb or one of its senses).
	purposeAct []matches
	// notAbout is, per redirect, why its purpose is not about this goal
	// whatever its words ("" when it may be): its relevance is 0, and
	// explain says why.
	notAbout []string
}

// situationMatch is how well the best of a tool's "Use this when …"
// clauses describes the goal: the share of the clause's words the goal
// says (goal: its verb and weighted context words, by stem), when the goal says at least two of them and one
// is an action ("a claimant withdraws a claim" for "… called to withdraw
// claim c_1: take it off the open queue"). A text that says when to use
// its tool, in the words of the situation the goal is in, tells a reader
// whose verb names no tool which one to use.
func (mt *matcher) situationMatch(goal map[string]bool, sits []situation) (float64, string) {
	best, at := 0.0, ""
	for _, s := range sits {
		n, action := 0, false
		for _, w := range s.words {
			if goal[w] {
				n++
				action = action || mt.r.isActionWord(w) || mt.r.isAction(w)
			}
		}
		if n < 2 || !action && !s.example {
			continue
		}
		if c := float64(n) / float64(len(s.words)); c >= 0.5 && c > best {
			best, at = c, s.text
		}
	}
	return best, at
}

// minContrary is the least sense-frequency weight of an antonym that makes
// a tool's manner the goal's opposite: weaker ones are rare senses.
const minContrary = 0.5

// contrary finds a tool word that is the opposite of one of the goal's
// manner adverbs ("privately" and the tool's "publicly"), where the tool
// does not also say the goal's own word.
func (mt *matcher) contrary(manner, words []string) (string, string) {
	for _, w := range manner {
		if slices.Contains(words, w) {
			continue
		}
		for _, b := range words {
			if b != w && mt.r.general.contrary(w, b) >= minContrary {
				return b, w
			}
		}
	}
	return "", ""
}

// denominalWeight is how surely a goal whose verb is the thing a tool makes
// ("tag" and create_tag) asks for that tool's action: nearly as surely as
// the same verb, a little less, since "create" may not be how the goal
// wants it done.
const denominalWeight = 0.8

// reading is one intent matched against every tool.
type reading struct {
	in    intent
	views [][attentionLevels]view      // the views it was matched against
	tools [][attentionLevels]toolMatch // per tool, per attention level
}

// neighbours is every key related to a, with the best relation to each:
// the world's lexicon first, then the domain's, then general English, with
// opposites left out.
func (r *relater) neighbours(a string, asVerb bool) map[string]wordMatch {
	out := map[string]wordMatch{}
	put := func(b string, w wordMatch) {
		if b == a || w.weight <= 0 {
			return
		}
		if cur, ok := out[b]; ok && (cur.kind.literal() || cur.kind == relDomain || cur.weight >= w.weight) {
			return
		}
		out[b] = w
	}
	for b, w := range r.world.words[a] {
		out[b] = wordMatch{weight: w, kind: relWorld, word: b}
	}
	for b, w := range r.domain.words[a] {
		if _, ok := out[b]; !ok {
			out[b] = wordMatch{weight: w, kind: relDomain, word: b}
		}
	}
	for _, rel := range r.general.relations(a, asVerb) {
		if r.opposes(a, rel.to) || r.domain.weight(a, rel.to) > 0 {
			continue
		}
		if f := generalKindFactor[rel.kind]; f > 0 {
			put(rel.to, wordMatch{weight: rel.weight * f, kind: rel.kind, word: rel.to})
		}
	}
	return out
}

// matcher caches neighbours per key while a model is built.
type matcher struct {
	r  *relater
	nb [2]map[string]map[string]wordMatch // as any word, as a verb
}

func newMatcher(r *relater) *matcher {
	return &matcher{r: r, nb: [2]map[string]map[string]wordMatch{{}, {}}}
}

func (mt *matcher) of(a string, asVerb bool) map[string]wordMatch {
	i := 0
	if asVerb {
		i = 1
	}
	if n, ok := mt.nb[i][a]; ok {
		return n
	}
	n := mt.r.neighbours(a, asVerb)
	mt.nb[i][a] = n
	return n
}

// find is the best match of key a among seqs, per strength class; a
// goal's action (asVerb) matches through its verb senses only.
func (mt *matcher) find(a string, asVerb bool, seqs ...[]string) matches {
	var ms matches
	if a == "" {
		return ms
	}
	nb := mt.of(a, asVerb)
	for _, seq := range seqs {
		for _, b := range seq {
			if b == a {
				ms.add(wordMatch{weight: 1, kind: relSame, word: b})
			} else if w, ok := nb[b]; ok {
				ms.add(w)
			}
		}
	}
	return ms
}

// particleWeight is how much a phrasal verb's particle alone says what it
// does: a tool that raises is likely, not surely, how to bump up.
const particleWeight = 0.4

// findVerb is find for an intent's verb, and for its other senses (a
// particle's, at particleWeight; a stop for a while's, a new value's) at
// their weights. Those senses are broad ("raise" a priority, "raise" a
// problem), so they are looked for only where a tool names its action.
func (mt *matcher) findVerb(in *intent, seqs ...[]string) matches {
	ms := mt.find(in.verb, true, seqs...)
	for _, s := range in.senses {
		alt := mt.find(s.key, true, seqs...)
		for _, w := range alt {
			// A stop for a while's senses are pauses; reached through a
			// weaker relation they may be read in another of their own
			// senses (a hold is a booking), one that is the opposite of
			// what the goal's verb also means (a booking is what a
			// cancel undoes): no reading of the goal.
			if w.kind != relNone && !(s.exact && w.kind != relSame && w.weight < 1 && mt.opposesNear(in.verb, w.word)) {
				w.weight *= s.weight
				if w.kind == relSame {
					w.kind = relSense // "stop → pause": the goal's reading, not the same word
				}
				ms.add(w)
			}
		}
	}
	return ms
}

// opposesNear reports whether b is the opposite of verb or of a word the
// domain or world holds close to it (stop is near cancel, which a booking
// opposes).
func (mt *matcher) opposesNear(verb, b string) bool {
	if mt.r.opposes(verb, b) {
		return true
	}
	for n, w := range mt.of(verb, true) {
		if w.weight >= nearWeight && (w.kind == relDomain || w.kind == relWorld) && mt.r.opposes(n, b) {
			return true
		}
	}
	return false
}

// nearWeight is how close a word must be to a verb for its opposites to be
// the verb's: a domain family member's weight.
const nearWeight = 0.7

// opposition is the first of a tool's action words that opposes verb, or
// opposes a word the domain or world holds to be the same as verb (hide ≈
// archive, so unarchive opposes hide).
func (mt *matcher) opposition(verb string, actions []string) string {
	if verb == "" {
		return ""
	}
	same := []string{verb}
	for b, w := range mt.of(verb, true) {
		if w.weight >= 1 && (w.kind == relDomain || w.kind == relWorld) {
			same = append(same, b)
		}
	}
	// A tool that does the verb (a synonym, or a toggle that does both)
	// is not its opposite for also saying what it keeps: "Delete a call's
	// recording … The call keeps its caller" deletes.
	for _, a := range actions {
		if mt.find(verb, true, []string{a}).best(0).weight >= 0.5 {
			return ""
		}
	}
	for _, a := range actions {
		for _, s := range same {
			if mt.r.opposes(s, a) {
				return a
			}
		}
	}
	return ""
}

// newReading matches an intent against every tool's views.
func (mt *matcher) newReading(in intent, views [][attentionLevels]view) *reading {
	rd := &reading{in: in, views: views, tools: make([][attentionLevels]toolMatch, len(views))}
	said := map[string]bool{in.verb: true} // what situationMatch compares "Use this when …" with
	for _, w := range in.words {
		// What the goal says to keep ("keep the signed forms on file") is
		// no part of the situation it is in.
		if w.weight > 0 && !w.keptOnly {
			said[w.stem] = true
		}
	}
	for ti := range views {
		for lv := range views[ti] {
			v := &views[ti][lv]
			tm := &rd.tools[ti][lv]
			tm.verbPlace = mt.findVerb(&in, v.verbs)
			if slices.Contains(v.object, in.verb) {
				// "Tag the release" and create_tag: the goal's verb is the
				// thing the tool makes.
				tm.verbPlace.add(wordMatch{weight: denominalWeight, kind: relSame, word: in.verb})
			}
			tm.incidental = mt.find(in.verb, true, v.words) // a particle's sense counts only where a tool names its action
			tm.negated = mt.findVerb(&in, v.negated)        // "not for changing a plan" denies a downgrade read as a change
			tm.opposed = mt.opposition(in.verb, v.verbs)
			if tm.opposed == "" && v.verb != "" && slices.Contains(in.forbids, v.verb) {
				tm.opposed = v.verb // "make sure nobody books": book_session does what is ruled out
			}
			tm.contrary, tm.contraryOf = mt.contrary(in.manner, v.words)
			tm.situation, tm.situationText = mt.situationMatch(said, v.situations)
			tm.also = mt.find(in.verb, true, v.also)
			tm.ctx = make([]matches, len(in.words))
			for i, iw := range in.words {
				if iw.weight > 0 {
					tm.ctx[i] = mt.find(iw.stem, false, v.words, v.aside)
				}
			}
			if len(v.redirects) > 0 {
				tm.relevance = make([][]matches, len(v.redirects))
				tm.purposeAct = make([]matches, len(v.redirects))
				tm.notAbout = make([]string, len(v.redirects))
				all := make([]string, 0, len(in.words)+len(in.senses)+1)
				all = append(all, in.verb)
				for _, s := range in.senses {
					all = append(all, s.key) // what the goal asks in other words is what a purpose may name
				}
				for _, iw := range in.words {
					all = append(all, iw.stem)
				}
				for k, red := range v.redirects {
					if red.verb != "" {
						tm.purposeAct[k] = mt.findVerb(&in, []string{red.verb})
					}
					tm.relevance[k] = make([]matches, len(red.purpose))
					switch {
					case purposeRefuses(red.purpose, func(w string) bool { return mt.find(w, false, []string{in.verb}).value(0) >= 0.5 }):
						// "To keep a report in your queue without sending it
						// back, use hold_report": a purpose that rules out
						// the goal's own action is no redirect for it.
						tm.notAbout[k] = whyRulesOutAction
					case existingOther(red.purpose, in.otherTypes):
						tm.notAbout[k] = whyOtherExisting
					}
					if tm.notAbout[k] != "" {
						tm.purposeAct[k] = matches{}
						continue
					}
					for j, pw := range red.purpose {
						tm.relevance[k][j] = mt.find(pw, false, all)
					}
				}
			}
		}
	}
	return rd
}

// existingOther reports whether a redirect's purpose is about an existing
// record of another type than the goal's: "To move an existing booking to
// another room, use change_booking" for a goal that books a room for a
// member. others are the stems of the names of the world's record types
// other than the goal's target (all of them when the goal has none: then
// nothing it acts on exists yet).
func existingOther(purpose, others []string) bool {
	j := slices.Index(purpose, existStem)
	// "An existing item in another vault" is about an item, whatever
	// else it names. "One that exists" and "a claim that already exists"
	// name their record before it, where the purpose's words (stop words
	// gone) no longer show which: those apply. So does a record the
	// world has no type for, which may be the goal's own in other words.
	if j >= 0 && j+1 < len(purpose) && slices.Contains(others, purpose[j+1]) {
		return true
	}
	// "A job already ordered", "a lesson already booked": the record
	// named just before "already" and a participle exists. ("A claim
	// that already exists" is left to apply, as "one that exists" is:
	// "exists" and "existing" share existStem.)
	j = slices.Index(purpose, alreadyStem)
	return j > 0 && j+1 < len(purpose) && purpose[j+1] != existStem && slices.Contains(others, purpose[j-1])
}

var existStem, alreadyStem = stem("existing"), stem("already")

// purposeRefuses reports whether a redirect's purpose negates a word that
// is the goal's action ("without sending it back" for a goal that sends
// it back): the word right after "without", "not", "never" or "no", or
// one word further.
func purposeRefuses(purpose []string, isGoalVerb func(string) bool) bool {
	for j, w := range purpose {
		if precededBy(negations, purpose, j) && isGoalVerb(w) {
			return true
		}
	}
	return false
}
