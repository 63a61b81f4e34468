package personas

import (
	"regexp"
	"slices"
)

// A goal's intent is read as one or more actions: "Return the lamp I
// ordered and refund me" asks for a return, then a refund. Each action is
// matched against the tools on its own, with its verb weighted and every
// other word of the sentence as context; constraints (keep, once…) hold for
// all of them.

// intentWord is one word of a goal's intent with its weight.
type intentWord struct {
	stem   string
	weight float64
}

// intent is one action an agent matches tools against.
type intent struct {
	words    []intentWord
	verb     string // the action asked for
	total    float64
	reads    bool // the verb only asks to look something up
	preserve bool // keep, preserve, history, without, not…: loss cues matter
	repeat   bool // once, only…: repeat cues matter
}

var preserveWords = stemSet("keep", "preserve", "history", "without", "not", "retain", "intact", "later", "again", "previous")
var repeatWords = stemSet("once", "only", "single", "exactly", "twice")

// readVerbs ask for information, not for a change.
var readVerbs = stemSet("find", "get", "list", "search", "look", "lookup", "show", "fetch", "read", "retrieve",
	"view", "check", "count", "see", "query", "inspect", "browse", "tell", "what", "which")

// lightVerbs carry no action of their own ("give me my money back").
var lightVerbs = stemSet("give", "take", "make", "do", "go", "let", "want", "need", "like")

// idioms a reader understands as one action, matched on stems.
var idioms = []struct {
	words []string
	as    string
}{
	{stems("take back"), stem("return")},
	{stems("send back"), stem("return")},
	{stems("bring back"), stem("return")},
	{stems("money back"), stem("refund")},
	{stems("look up"), stem("find")},
	{stems("get rid"), stem("delete")},
	{stems("throw away"), stem("delete")},
}

// clauseBreak separates the clauses of an intent: sentence ends, colons,
// dashes, and "and"/"then" between actions.
var clauseBreak = regexp.MustCompile(`(?i)[.!?;:—–]+|\s-\s|,?\s+(?:and then|and|then)\s+`)

// parseIntent reads an intent (placeholders removed) into its actions, at
// least one. actions is the vocabulary of action words: the first word of
// every tool name, lexicon words, read verbs. An action starts a clause
// (after light verbs); when no clause starts with one, the first action
// word anywhere is the verb, else the first word: "The customer on charge …
// was overcharged: refund $…" asks to refund.
func parseIntent(text string, actions map[string]bool) []intent {
	var words []string
	var verbs []string
	seen := map[string]bool{}
	for _, raw := range clauseBreak.Split(text, -1) {
		ws := rewriteIdioms(stems(raw))
		for _, w := range ws {
			if !seen[w] && !lightVerbs[w] {
				seen[w] = true
				words = append(words, w)
			}
		}
		if !imperative(raw) {
			continue
		}
		for _, w := range ws {
			if lightVerbs[w] {
				continue
			}
			if actions[w] && !slices.Contains(verbs, w) {
				verbs = append(verbs, w)
			}
			break
		}
	}
	if len(words) == 0 {
		return []intent{{}}
	}
	if len(verbs) == 0 {
		for _, w := range words {
			if actions[w] {
				verbs = []string{w}
				break
			}
		}
	}
	if len(verbs) == 0 {
		verbs = []string{words[0]}
	}
	out := make([]intent, len(verbs))
	for i, v := range verbs {
		out[i] = newIntent(words, v)
	}
	return out
}

// newIntent weighs words for one action verb.
func newIntent(words []string, verb string) intent {
	in := intent{verb: verb, reads: readVerbs[verb], words: make([]intentWord, 0, len(words))}
	for _, w := range words {
		wt := 1.0
		switch {
		case w == verb:
			wt = verbWeight
		case repeatWords[w]:
			// "exactly once" says how, not what: it weighs cues, it is not
			// a word to find in a tool's text.
			wt = 0
		}
		in.words = append(in.words, intentWord{stem: w, weight: wt})
		in.total += wt
		in.preserve = in.preserve || preserveWords[w]
		in.repeat = in.repeat || repeatWords[w]
	}
	return in
}

// rewriteIdioms replaces idioms by the action they mean.
func rewriteIdioms(ws []string) []string {
	for _, id := range idioms {
		for i := 0; i+len(id.words) <= len(ws); i++ {
			if slices.Equal(ws[i:i+len(id.words)], id.words) {
				ws = append(append(append([]string(nil), ws[:i]...), id.as), ws[i+len(id.words):]...)
				break
			}
		}
	}
	return ws
}
