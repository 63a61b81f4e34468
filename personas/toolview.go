package personas

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/herd-sh/herd/engine"
)

// A view is what an agent at one attention level sees of one tool: the
// words it matches against the goal, the warning and reassurance cues it
// noticed, whether it saw that the tool only reads, and the redirects
// ("use X instead") it read.
type view struct {
	name      []string // the words of the tool's name
	verb      string   // the first word of the tool's name: what it does
	verbs     []string // words in a verb's place: the name's first, each sentence's first
	words     []string // every word read, but those right after a negation
	negated   []string // words right after a negation ("this is not a refund")
	cues      [cueKinds]int
	readOnly  bool
	redirects []redirect
}

// redirect is a sentence of one tool's text that sends the reader to
// another tool ("to hide a contact, use archive_contact instead") or away
// from one ("use this — not delete_contact"). Its purpose words say when
// it applies; the sentence's own words describe the other tool and do not
// count for this one.
type redirect struct {
	other   int  // the tool mentioned
	away    bool // true: score moves from other to this tool; false: from this tool to other
	purpose []string
}

// Cue kinds: warnings and reassurances about losing data (weighed when the
// goal says keep/preserve/without) and about repeating (weighed when it
// says once/only).
const (
	cuePreserveWarn = iota
	cuePreserveReassure
	cueRepeatWarn
	cueRepeatReassure
	cueKinds
)

type cue struct {
	kind  int
	words []string
}

// cueTexts are matched on stems, so "keeps", "kept" and "keep" are one cue.
// A cue right after a negation ("cannot be undone", "not idempotent",
// "is not permanent") counts as its opposite.
var cueTexts = []struct {
	kind  int
	texts []string
}{
	{cuePreserveWarn, []string{"permanently", "permanent", "irreversible", "irreversibly", "destroy", "erase",
		"all versions", "forever", "purge", "wipe", "unrecoverable", "destructive", "no way back"}},
	{cuePreserveReassure, []string{"keep", "reversible", "restore", "undo", "recoverable", "retain", "preserve",
		"history kept", "unarchive"}},
	{cueRepeatWarn, []string{"each call", "every call", "again", "twice", "duplicate", "double"}},
	{cueRepeatReassure, []string{"idempotent", "idempotency", "safe retry", "repeat safe", "at most once"}},
}

var cues = func() []cue {
	var out []cue
	for _, c := range cueTexts {
		for _, t := range c.texts {
			out = append(out, cue{kind: c.kind, words: stems(t)})
		}
	}
	return out
}()

var negations = stemSet("not", "never", "no", "without")

// cueNegations flip a cue: "cannot be undone", "instead of charging again".
var cueNegations = stemSet("not", "never", "no", "without", "instead")

// opposite maps a cue kind to the kind it becomes after a negation.
var opposite = [cueKinds]int{cuePreserveReassure, cuePreserveWarn, cueRepeatReassure, cueRepeatWarn}

// countCues adds the cues found in seq to counts.
func countCues(seq []string, counts *[cueKinds]int) {
	for _, c := range cues {
		for i := 0; i+len(c.words) <= len(seq); i++ {
			if !slices.Equal(seq[i:i+len(c.words)], c.words) {
				continue
			}
			kind := c.kind
			if (i >= 1 && cueNegations[seq[i-1]]) || (i >= 2 && cueNegations[seq[i-2]]) {
				kind = opposite[kind]
			}
			counts[kind]++
			break // a cue counts once per text
		}
	}
}

// redirectVerbs make a sentence that mentions another tool a redirect.
var redirectVerbs = stemSet("use", "call", "prefer", "try", "instead")

// redirectWords are not purpose words.
var redirectWords = stemSet("use", "call", "prefer", "try", "instead", "not", "never", "rather", "tool")

// buildViews computes a tool's three views from its text.
func buildViews(t *engine.Tool, self int, description string, toolIndex map[string]int) [3]view {
	name := stems(strings.ReplaceAll(t.Name, "_", " "))
	sents := sentences(description)
	var out [3]view
	for lv := seeName; lv <= seeEverything; lv++ {
		v := view{name: name, words: append([]string(nil), name...)}
		if len(name) > 0 {
			v.verb = name[0]
			v.verbs = append(v.verbs, name[0])
		}
		visible := sents
		switch lv {
		case seeName:
			visible = nil
		case seeFirst:
			if len(sents) > 1 {
				visible = sents[:1]
			}
		}
		for _, s := range visible {
			v.addSentence(s, tokenize(s, toolIndex), self)
		}
		if lv == seeEverything {
			for _, p := range t.Params {
				ws := stems(strings.ReplaceAll(p.Name, "_", " ") + " " + p.Description)
				v.words = append(v.words, ws...)
				countCues(ws, &v.cues)
			}
			a := t.Annotations
			if a.ReadOnly {
				v.readOnly = true
			}
			if a.Destructive {
				v.cues[cuePreserveWarn]++
			}
			if a.Idempotent {
				v.cues[cueRepeatReassure]++
			}
		}
		countCues(name, &v.cues)
		out[lv] = v
	}
	return out
}

// denial is a sentence that says what the tool is not: "This is not a
// refund", "It does not look at refunds", "Not for deleting". The words it
// negates count against the tool; elsewhere a negation ("so that a retry
// cannot charge twice") only flips cues.
var denial = regexp.MustCompile(`^(?i)(?:not\b|never\b|(?:this|it)(?: tool)? (?:is not|isn't|does not|doesn't|will not|won't|cannot|can't|never)\b)`)

// imperative reports whether a sentence starts with a word in a verb's
// place ("Charge a customer's card", "Moves money"), not with an article
// or pronoun ("A charge is captured once").
func imperative(sentence string) bool {
	first := strings.FieldsFunc(sentence, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' })
	return len(first) > 0 && !stopWords[strings.ToLower(first[0])]
}

// addSentence adds one visible sentence: a redirect, or words and cues.
func (v *view) addSentence(raw string, toks []token, self int) {
	seq := make([]string, 0, len(toks))
	hasVerb := false
	for _, t := range toks {
		if t.tool < 0 {
			seq = append(seq, t.word)
			if redirectVerbs[t.word] {
				hasVerb = true
			}
		}
	}
	var reds []redirect
	for i, t := range toks {
		if t.tool < 0 || t.tool == self {
			continue
		}
		away := false
		for k := i - 1; k >= 0 && k >= i-2; k-- {
			if w := toks[k].word; toks[k].tool < 0 && (negations[w] || w == "instead" || w == "rather") {
				away = true
			}
		}
		if !away && !hasVerb {
			continue // a mention ("reversible with restore_contact"), not a redirect
		}
		reds = append(reds, redirect{other: t.tool, away: away})
	}
	if len(reds) == 0 {
		denies := denial.MatchString(strings.TrimSpace(raw))
		for i, w := range seq {
			// "instead of a refund" denies a refund wherever it stands.
			insteadOf := (i >= 1 && seq[i-1] == "instead") || (i >= 2 && seq[i-2] == "instead")
			if insteadOf || denies && ((i >= 1 && negations[seq[i-1]]) || (i >= 2 && negations[seq[i-2]])) {
				v.negated = append(v.negated, w)
				continue
			}
			if i == 0 && imperative(raw) && !negations[w] {
				v.verbs = append(v.verbs, w)
			}
			v.words = append(v.words, w)
		}
		countCues(seq, &v.cues)
		if containsRun(seq, []string{"read", "only"}) {
			v.readOnly = true
		}
		return
	}
	var purpose []string
	for _, w := range seq {
		if !redirectWords[w] {
			purpose = append(purpose, w)
		}
	}
	for i := range reds {
		reds[i].purpose = purpose
	}
	v.redirects = append(v.redirects, reds...)
}
