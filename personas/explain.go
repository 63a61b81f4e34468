package personas

import (
	"cmp"
	"slices"

	"github.com/herd-sh/herd/engine"
)

// Explanation is why a persona makes the first choice it makes for a goal:
// what it took the goal to ask, and per tool what it saw, which words
// matched and through which relation, the cues and redirects it read, and
// the parts of the score with the probability. It is JSON-ready, in a
// stable order (actions in goal order, tools in world order, words in
// intent order), with numbers rounded to four places. Words are shown as
// the stems the model compares ("archiv" for archive, archived, archiving).
type Explanation struct {
	World    string              `json:"world"`
	Variant  string              `json:"variant"`
	Goal     string              `json:"goal"`
	Persona  string              `json:"persona"`
	Sees     string              `json:"sees"` // what the persona reads of a tool: name, first sentence, first lines, everything
	Meant    string              `json:"meant"`
	MeantHow string              `json:"meant_how"` // world, world pair, or reader
	Actions  []ActionExplanation `json:"actions"`
}

// ActionExplanation is one action of the goal, as read, and every tool
// scored for it.
type ActionExplanation struct {
	Verb        string            `json:"verb"` // the action word's stem ("delet", "call off")
	Words       []IntentWord      `json:"words"`
	Constraints []string          `json:"constraints,omitempty"` // "keep data", "only once"
	Reads       bool              `json:"reads"`                 // the action only looks something up
	Confidence  float64           `json:"confidence"`            // the best action match among the tools, in [0, 1]
	CoveredBy   []string          `json:"covered_by,omitempty"`  // tools whose text says they do this action along with another
	Tools       []ToolExplanation `json:"tools"`
}

// IntentWord is a context word of the goal with its weight (0 for words
// that say how, not what: once, only, again).
type IntentWord struct {
	Word   string  `json:"word"`
	Weight float64 `json:"weight"`
}

// ToolExplanation is one tool as the persona read it for one action.
type ToolExplanation struct {
	Tool string `json:"tool"`
	// Text is the sentences read, in order (none for a reader of names).
	Text []string `json:"text"`
	// Opening is the sentence every tool opens with, when it was all the
	// reader read of this tool ("Manages members … through the Workspace
	// API."): it then went by the name.
	Opening string `json:"opening,omitempty"`
	// Action is how the goal's verb matched: where ("verb place",
	// "elsewhere", "denied", "opposite") and through what.
	Action       *WordExplanation   `json:"action,omitempty"`
	Matches      []WordExplanation  `json:"matches,omitempty"` // the context words that matched
	Cues         []CueExplanation   `json:"cues,omitempty"`
	Promo        float64            `json:"promo_cues,omitempty"`
	ReadOnly     bool               `json:"read_only,omitempty"`
	Redirects    []RedirectExplains `json:"redirects,omitempty"`
	Disagreement string             `json:"disagreement,omitempty"`
	Parts        ScoreParts         `json:"score"`
}

// WordExplanation is one goal word matched in a tool's words.
type WordExplanation struct {
	Word     string  `json:"word"`            // the goal's word
	Matched  string  `json:"matched"`         // the tool's word or phrase it matched
	Relation string  `json:"relation"`        // same stem, world lexicon, domain lexicon, synonym, derived, hypernym…, goal's sense
	Where    string  `json:"where,omitempty"` // for the action: verb place, elsewhere, denied, opposite
	Weight   float64 `json:"weight"`          // the relation's weight
	Counts   float64 `json:"counts"`          // what it counted for this reader (after literalness)
}

// CueExplanation is a kind of cue and how much of it the reader saw
// (capitals count 1.5, a warning label 0.5).
type CueExplanation struct {
	Kind  string  `json:"kind"` // loss warning, keeps data, repeat warning, safe to repeat
	Count float64 `json:"count"`
}

// RedirectExplains is a sentence sending the reader to or from another tool.
type RedirectExplains struct {
	Tool      string   `json:"tool"`
	Away      bool     `json:"away"` // true: from that tool to this one
	Purpose   []string `json:"purpose,omitempty"`
	Relevance float64  `json:"relevance"` // how much the purpose describes the goal, in [0, 1]
	// Why is set when the redirect does not apply whatever its words: its
	// purpose lasts the other way than the goal asks, rules out the goal's
	// action, or is about an existing record of another type.
	Why string `json:"why,omitempty"`
}

var levelNames = [attentionLevels]string{"name", "first sentence", "first lines", "everything"}

// ExplainChoice explains a persona's first choice for a goal. It returns
// the zero Explanation for a goal of another world or a persona whose
// traits are out of range.
func (m *Model) ExplainChoice(p *Persona, g *engine.Goal) Explanation {
	gv := m.byGoal[g]
	if gv == nil || p == nil || p.Traits.Validate() != nil {
		return Explanation{}
	}
	c := gv.choiceFor(m, p)
	tr := p.Traits
	lv := levelOf(tr.Attention)
	lit := tr.Literalness
	ex := Explanation{World: m.world.Name, Variant: m.variant, Goal: g.Name, Persona: p.Name, Sees: levelNames[lv],
		Meant: m.world.Tools[gv.meant].Name, MeantHow: gv.meantHow}
	for ai, rd := range gv.readings {
		in := &rd.in
		ae := ActionExplanation{Verb: in.verb, Reads: in.reads, Confidence: round4(c.acts[ai].confidence)}
		for _, iw := range in.words {
			ae.Words = append(ae.Words, IntentWord{Word: iw.stem, Weight: iw.weight})
		}
		if in.preserve {
			ae.Constraints = append(ae.Constraints, "keep data")
		}
		if in.repeat {
			ae.Constraints = append(ae.Constraints, "only once")
		}
		for i, cov := range c.acts[ai].covers {
			if cov {
				ae.CoveredBy = append(ae.CoveredBy, m.world.Tools[c.acts[ai].tools[i]].Name)
			}
		}
		parts, _ := m.scoreParts(rd, m.all, tr)
		probs := c.acts[ai].toolScores(m, nil)
		for ti, t := range m.world.Tools {
			v := &rd.views[ti][lv]
			tm := &rd.tools[ti][lv]
			te := ToolExplanation{Tool: t.Name, Text: append([]string{}, v.seen...), Opening: v.opening, Promo: round4(v.promo), ReadOnly: v.readOnly,
				Disagreement: v.disagree, Parts: roundParts(parts[ti])}
			te.Parts.P = probs[ti].P
			te.Action = actionExplanation(in.verb, tm, lit)
			for i, iw := range in.words {
				if iw.weight == 0 {
					continue
				}
				if b := tm.ctx[i].best(lit); b.kind != relNone {
					te.Matches = append(te.Matches, wordExplanation(iw.stem, b, lit, ""))
				}
			}
			for k, n := range v.cues {
				if n > 0 {
					te.Cues = append(te.Cues, CueExplanation{Kind: cueKindNames[k], Count: round4(n)})
				}
			}
			if in.later && v.now > 0 {
				te.Cues = append(te.Cues, CueExplanation{Kind: "acts at once", Count: round4(v.now)})
			}
			for k, r := range v.redirects {
				re := RedirectExplains{Tool: m.world.Tools[r.other].Name, Away: r.away,
					Purpose: append([]string(nil), r.purpose...), Relevance: round4(redirectRelevance(in, tm, r, k, lit))}
				switch {
				case contradictsDuration(in, r.purpose):
					re.Why = whyOtherDuration
				case tm.notAbout != nil && tm.notAbout[k] != "":
					re.Why = tm.notAbout[k]
				}
				te.Redirects = append(te.Redirects, re)
			}
			ae.Tools = append(ae.Tools, te)
		}
		ex.Actions = append(ex.Actions, ae)
	}
	return ex
}

// actionExplanation says how the goal's verb matched a tool, as
// actionMatch scored it.
func actionExplanation(verb string, tm *toolMatch, lit float64) *WordExplanation {
	place := tm.verbPlace.value(lit)
	if neg := tm.negated.value(lit); neg > 0 && neg >= place {
		e := wordExplanation(verb, tm.negated.best(lit), lit, "denied")
		return &e
	}
	if tm.opposed != "" {
		return &WordExplanation{Word: verb, Matched: tm.opposed, Relation: "opposite", Where: "opposite", Weight: 1, Counts: -1}
	}
	inc := incidentalWeight * tm.incidental.value(lit)
	var e WordExplanation
	switch sit := situationWeight * tm.situation; {
	case sit > 0 && sit > place && sit > inc && tm.contrary == "":
		e = WordExplanation{Word: verb, Matched: tm.situationText, Relation: "the goal's situation", Where: "use when",
			Weight: round4(tm.situation), Counts: round4(sit)}
	case place > 0 && place >= inc:
		e = wordExplanation(verb, tm.verbPlace.best(lit), lit, "verb place")
	case inc > 0:
		e = wordExplanation(verb, tm.incidental.best(lit), lit, "elsewhere")
		e.Counts = round4(inc)
	default:
		return nil
	}
	if tm.contrary != "" {
		e.Where += ", but " + tm.contrary + " against the goal's " + tm.contraryOf
		e.Counts = 0
	}
	return &e
}

func wordExplanation(word string, w wordMatch, lit float64, where string) WordExplanation {
	return WordExplanation{Word: word, Matched: w.word, Relation: w.kind.String(), Where: where,
		Weight: round4(w.weight), Counts: round4(w.effective(lit))}
}

func roundParts(p ScoreParts) ScoreParts {
	for _, x := range []*float64{&p.Action, &p.Context, &p.Words, &p.Cues, &p.Mismatch, &p.Redirect, &p.Trust, &p.Promo, &p.Order, &p.Score} {
		*x = round4(*x)
	}
	return p
}

// ByLikelihood is a copy of tools, most likely first choice first (list
// order among equals): how explanations are shown.
func ByLikelihood(tools []ToolExplanation) []ToolExplanation {
	out := slices.Clone(tools)
	slices.SortStableFunc(out, func(a, b ToolExplanation) int { return cmp.Compare(b.Parts.P, a.Parts.P) })
	return out
}
