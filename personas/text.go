package personas

import (
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/herd-sh/herd/internal/wordnet"
)

// The reader model compares words, not strings: text is lower-cased, split
// on anything that is not a letter, stripped of stop words and lightly
// stemmed, so that "hides", "hidden" and "hide" are one word, as are
// "archived" and "archive", "deleting" and "delete".

// stopWords carry no meaning for choosing a tool. Negations, "only",
// "once", "without", "all" and "use" are deliberately absent: they are
// constraints, cues and redirects.
var stopWords = setOf(
	"a", "an", "the", "of", "to", "from", "and", "or", "but", "their", "its", "it", "is", "are", "be",
	"been", "was", "were", "this", "that", "these", "those", "with", "for", "by", "in", "on", "at",
	"as", "you", "your", "yours", "i", "me", "my", "we", "our", "us", "he", "she", "they", "them",
	"his", "her", "him", "some", "someone", "somebody", "something", "anyone", "anything", "if",
	"so", "than", "then", "there", "here", "into", "onto", "per", "via", "also", "when", "which",
	"who", "whom", "what", "can", "could", "do", "does", "did", "will", "would", "should", "may",
	"might", "must", "shall", "has", "have", "had", "s", "e", "g", "eg", "ie", "etc", "just", "please",
	"about", "it's", "one", "any", "how", "more",
)

// irregular maps word forms the suffix rules get wrong to their stem.
var irregular = map[string]string{
	"hidden": "hid", "hid": "hid", "sent": "send", "found": "find", "paid": "pay", "written": "writ",
	"wrote": "writ", "overwritten": "overwrit", "cancelled": "cancel", "cancelling": "cancel",
	"canceled": "cancel", "canceling": "cancel", "replied": "reply", "used": "use", "using": "use",
	"kept": "keep", "undone": "undo", "made": "make", "gone": "go", "lost": "lose", "chose": "choos",
	"chosen": "choos", "bought": "buy", "sold": "sell", "got": "get", "gotten": "get",
}

// stem reduces a lower-case word to its stem, through the general-English
// layer's stemmer. It only has to be consistent: intent, tool text,
// lexicon and cues all go through it.
func stem(w string) string {
	if s, ok := ingNouns[w]; ok {
		return s
	}
	return defaultGeneral.stem(w)
}

// precededBy reports whether one of the two words before ws[i] is in set:
// a negation two words back still negates ("cannot be undone", "do not
// retry").
func precededBy(set map[string]bool, ws []string, i int) bool {
	return i >= 1 && set[ws[i-1]] || i >= 2 && set[ws[i-2]]
}

// ingNouns are nouns in -ing(s) whose meaning is not their verb's, kept
// whole: a campaign's "settings" are no "set", a fund's "holdings" no
// "hold", an audit's "findings" no "find" — or a text that keeps "its ads
// and settings" would match a goal that sets a value.
var ingNouns = map[string]string{
	"setting": "setting", "settings": "setting", "holdings": "holdings", "findings": "findings",
	"savings": "savings", "earnings": "earnings", "belongings": "belongings", "proceedings": "proceedings",
	"surroundings": "surroundings", "outings": "outing",
}

// lightStem is the stemmer of a general layer without a dictionary: a few
// English suffixes, then a trailing e.
func lightStem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	n := len(w)
	switch {
	case n > 4 && strings.HasSuffix(w, "ies"):
		w = w[:n-3] + "y"
	case n > 4 && strings.HasSuffix(w, "ied"):
		w = w[:n-3] + "y"
	case n > 5 && strings.HasSuffix(w, "ing"):
		w = undouble(w[:n-3])
	case n > 4 && strings.HasSuffix(w, "ed"):
		w = undouble(w[:n-2])
	case n > 5 && strings.HasSuffix(w, "ly"):
		w = w[:n-2]
	case n > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") &&
		!strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:n-1]
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble turns "stopp" into "stop": the consonant doubled before -ed and
// -ing. l, s and z are left alone ("call", "pass", "buzz").
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && strings.IndexByte("bdgmnprt", w[n-1]) >= 0 {
		return w[:n-1]
	}
	return w
}

// token is one stemmed word, or a mention of a tool by its name.
type token struct {
	word string // stem; "" for a tool mention
	tool int    // index of the mentioned tool, -1 for a word
	// phrase marks a phrasal verb whose particle is a stop word ("log
	// in", "hang on to"): it stands right after its verb's token, which it
	// extends, and is a key of its own.
	phrase bool
}

// tokenize splits text into stems. Words joined by underscores that name a
// tool (archive_contact) become one tool mention; other underscored words
// are split. "n't" becomes "not" and "cannot" becomes "can not", so that
// "can't be undone" and "cannot be undone" read alike. A phrasal verb
// whose particle is a stop word ("log in", "switch it on", "check a book
// in", "hang on to") is found before its particle is dropped: its key
// follows the verb's token (phrasal).
func tokenize(text string, tools map[string]int) []token {
	var out []token
	// fieldOf[k] is the field each token came from; pronoun[f] says field
	// f is a pronoun a verb and its particle may stand around.
	var fieldOf []int
	var pronoun []bool
	for f, fl := range scanFields(text) {
		raw := strings.ToLower(strings.ReplaceAll(fl.text, "’", "'"))
		pronoun = append(pronoun, particleObjects[raw])
		n := len(out)
		if i, ok := tools[strings.Trim(raw, "'")]; ok {
			out = append(out, token{tool: i})
		} else if particle, ok := stopParticles[raw]; ok {
			out, fieldOf = phrasal(out, fieldOf, pronoun, f, particle, fl.clauseEnd)
			continue
		} else {
			if raw == "out" && fl.clauseEnd {
				// "Log the user out.": "out" ends the clause, so it is
				// the verb's particle, not "out of".
				out, fieldOf = phrasal(out, fieldOf, pronoun, f, "out", true)
			}
			out = appendWords(out, raw)
		}
		for range len(out) - n {
			fieldOf = append(fieldOf, f)
		}
	}
	return out
}

// field is one run of word characters and whether a clause ends after it
// (punctuation or the end of the text follows).
type field struct {
	text      string
	clauseEnd bool
}

func scanFields(text string) []field {
	var out []field
	isWord := func(r rune) bool {
		return unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '\'' || r == '’'
	}
	start := -1
	// value: a placeholder's mark (valueMark) stood after the last word, so
	// punctuation after it does not end that word's clause: "on {{host}}."
	// puts the host after "on".
	value := false
	for i, r := range text + " " {
		if i < len(text) && isWord(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, field{text: text[start:i]})
			start, value = -1, false
		}
		if r == valueMark {
			value = true
		}
		if len(out) > 0 && !value && (i >= len(text) || strings.ContainsRune(".,;:!?)—–", r)) {
			out[len(out)-1].clauseEnd = true
		}
	}
	return out
}

// stopParticles are the particles of phrasal verbs that the stop words
// would drop, as the general layer's keys spell them. "on" and "in" make a
// phrase after their verb ("log in", "switch it on"); "to" and "at" only
// extend one ("hang on to"): after a bare verb they are prepositions ("add
// it to the list", "point it at the address").
var stopParticles = map[string]string{"on": "on", "in": "in", "to": "to", "at": "at", "onto": "onto", "into": "into"}

// particleObjects may stand between a verb and its particle: "switch it
// on", "log them in".
var particleObjects = setOf("it", "them", "him", "her", "me", "us", "you", "this", "that", "these", "those")

// extraPhrasal are phrasal verbs with a stop-word particle that general
// English lacks as lemmas, though every speaker knows them.
var extraPhrasal = []string{"hang on to", "hold on to", "hang onto", "hold onto", "keep on to", "opt in", "log on to",
	"sign in to", "log in to", "check in on"}

// phrasalKeys are the keys of the phrasal verbs tokenize finds: general
// English's multi-word verbs whose words after the first are stop-word
// particles, and extraPhrasal. They depend on no world.
var phrasalKeys = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	add := func(ws []string) {
		if len(ws) < 2 {
			return
		}
		for _, w := range ws[1:] {
			if _, ok := stopParticles[w]; !ok && w != "out" {
				return
			}
		}
		m[strings.Join(ws, " ")] = true
	}
	for _, p := range wordnet.Phrases() {
		if p.POS&wordnet.Verb != 0 {
			add(strings.Split(p.Key, " "))
		}
	}
	for _, t := range extraPhrasal {
		ws := strings.Fields(t)
		ws[0] = stem(ws[0])
		add(ws)
	}
	return m
})

// adjacentTo reports whether token k's field stands right before field f,
// or only pronouns stand between them.
func adjacentTo(fieldOf []int, pronoun []bool, k, f int) bool {
	for g := fieldOf[k] + 1; g < f; g++ {
		if !pronoun[g] {
			return false
		}
	}
	return true
}

// phrasal reads a stop-word particle at field f: when it makes a phrasal
// verb with the verb before it — next to it or across a pronoun ("log in",
// "switch it on"), or across a short object when the particle ends the
// clause ("check a returned book in:") — the phrase's key is inserted
// after the verb's token. A particle that makes none is dropped as the stop
// word it otherwise is.
func phrasal(out []token, fieldOf []int, pronoun []bool, f int, particle string, clauseEnd bool) ([]token, []int) {
	keys := phrasalKeys()
	if len(out) == 0 {
		return out, fieldOf
	}
	last := len(out) - 1
	adjacent := func(k int) bool { return adjacentTo(fieldOf, pronoun, k, f) }
	insert := func(at int, key string) ([]token, []int) {
		out = slices.Insert(out, at, token{word: key, tool: -1, phrase: true})
		fieldOf = slices.Insert(fieldOf, at, f) // a later particle extends it from here
		return out, fieldOf
	}
	// "hang on to": a particle after a phrase extends it.
	if t := out[last]; t.phrase && adjacent(last) {
		if k := t.word + " " + particle; keys[k] {
			return insert(last+1, k)
		}
		return out, fieldOf
	}
	if particle != "on" && particle != "in" && particle != "out" {
		return out, fieldOf
	}
	if t := out[last]; t.tool < 0 && adjacent(last) && particle != "out" {
		if k := t.word + " " + particle; keys[k] {
			return insert(last+1, k)
		}
	}
	if !clauseEnd {
		return out, fieldOf // "move the meeting in Room 5": a preposition
	}
	// "Check a returned book in": the verb before a short object.
	for k := last - 1; k >= 0 && k >= last-maxObjectWords; k-- {
		if out[k].tool >= 0 || out[k].phrase {
			break
		}
		if key := out[k].word + " " + particle; keys[key] {
			return insert(k+1, key)
		}
	}
	return out, fieldOf
}

func appendWords(out []token, raw string) []token {
	for _, w := range strings.FieldsFunc(raw, func(r rune) bool { return !unicode.IsLetter(r) && r != '\'' }) {
		w = strings.Trim(w, "'")
		switch {
		case w == "cannot":
			out = append(out, token{word: "not", tool: -1})
			continue
		case strings.HasSuffix(w, "n't"):
			w = strings.TrimSuffix(w, "n't")
			switch w {
			case "ca":
				w = "can"
			case "wo":
				w = "will"
			case "sha":
				w = "shall"
			}
			if w != "" && !stopWords[w] {
				out = append(out, token{word: stem(w), tool: -1})
			}
			out = append(out, token{word: "not", tool: -1})
			continue
		}
		w = strings.TrimSuffix(w, "'s")
		if i := strings.IndexByte(w, '\''); i >= 0 {
			w = w[:i]
		}
		if len(w) < 2 || stopWords[w] {
			continue
		}
		out = append(out, token{word: stem(w), tool: -1})
	}
	return out
}

// stems tokenizes text that names no tools and returns the stems.
func stems(text string) []string {
	toks := tokenize(text, nil)
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		if t.tool < 0 {
			out = append(out, t.word)
		}
	}
	return out
}

// sentences splits a description at ., !, ? and ; followed by a space or
// the end, and at line breaks (a docstring's summary line often has no
// period). A period after a single letter ("e.g.", initials) or ending a
// common abbreviation ("etc.", "vs.") does not end one.
func sentences(text string) []string {
	var out []string
	start := 0
	cut := func(end int) {
		if s := strings.TrimSpace(text[start:end]); s != "" {
			out = append(out, s)
		}
		start = end
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c == '\n' {
			cut(i)
			continue
		}
		if c != '.' && c != '!' && c != '?' && c != ';' {
			continue
		}
		if i+1 < len(text) && text[i+1] != ' ' && text[i+1] != '\n' && text[i+1] != '\t' {
			continue
		}
		if c == '.' && (i >= 1 && isLetter(text[i-1]) && (i < 2 || !isLetter(text[i-2])) || endsWithAbbreviation(text[:i+1])) {
			continue
		}
		cut(i + 1)
	}
	cut(len(text))
	return out
}

// abbreviations end with a period without ending a sentence.
var abbreviations = []string{"etc.", "vs.", "approx.", "incl.", "no."}

func endsWithAbbreviation(s string) bool {
	for _, a := range abbreviations {
		n := len(s) - len(a)
		if n >= 0 && strings.EqualFold(s[n:], a) && (n == 0 || !isLetter(s[n-1]) && !isDigit(s[n-1]) && s[n-1] != '_') {
			return true
		}
	}
	return false
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// stemSet is a set of the stems of words, so that sets written in plain
// English match tokenized text.
func stemSet(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[stem(w)] = true
	}
	return m
}

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// nameWords splits a tool's name into words: snake_case, kebab-case,
// dotted and camelCase names alike (deleteContact, contacts.delete).
func nameWords(name string) string {
	var b strings.Builder
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == '/' || r == ' ':
			b.WriteByte(' ')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte(' ')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return b.String()
}

// joinedPlaceholders are placeholders joined by a little punctuation
// ("{{host}}.{{zone}}", "{{user}}@{{domain}}").
var joinedPlaceholders = regexp.MustCompile(`\}\}[^\s{}]{1,3}\{\{`)

// clauseSubject is a placeholder that opens a clause and is followed by a
// word: "{{target.name}} finds the plan too expensive".
var clauseSubject = regexp.MustCompile(`(^|[.!?;:—–]\s*)\{\{[^{}]*\}\}(\s+\pL)`)

// subjectPlaceholders reads a placeholder that opens a clause as the
// clause's subject: "{{target.name}} finds the pro plan too expensive" is
// a statement about a person, not a request to find, and a reader looks
// for the request in the clause that is in the imperative ("downgrade
// their subscription"). The subject becomes "they", which no reader takes
// for an action.
func subjectPlaceholders(intent string) string {
	// "{{host}}.{{zone}}" is one value: its dot opens no clause.
	intent = joinedPlaceholders.ReplaceAllString(intent, "}}{{")
	intent = nounSubject.ReplaceAllStringFunc(intent, func(m string) string {
		sm := nounSubject.FindStringSubmatch(m)
		if ensureFrame.MatchString(sm[2]) {
			return m // "make sure prescription {{id}} doesn't get filled": a request
		}
		return sm[1] + "the " + sm[2] + " " + sm[3]
	})
	return clauseSubject.ReplaceAllString(intent, "${1}they${2}")
}

// nounSubject is a noun and its placeholder opening a clause, followed by a
// verb that states something of it: "Message {{knows.id}} has the on-call
// rota", "Instance {{knows.id}} keeps running out of memory", "Channel
// {{knows.id}} (#{{target.name}}) should be called …", "Run {{knows.id}} of
// pipeline {{knows.pipeline}} failed". The noun is the
// clause's subject, not a request to message or to instance; "Archive
// {{target.name}}: they left" stays a request.
var nounSubject = regexp.MustCompile(`(^|[.!?;:—–]\s*)((?:\pL[\pL-]*\s+){0,2}\pL[\pL-]*)\s+(\{\{[^{}]*\}\}(?:\s*\([^()]*\))?(?:\s+(?:of|for|in|on|from|at)\s+(?:\pL[\pL-]*\s+){0,2}\{\{[^{}]*\}\})?\s+(?:has|have|is|are|was|were|should|needs|must|will|keeps|can|cannot|can't|does|doesn't|isn't|wants|belongs|gets|looks|seems|holds|contains|shows|says|still|already|broke|failed|crashed|went|ran|hangs|hung|died|sits|lives|lies|stays|remains|appears)\b)`)

// valueMark stands where a placeholder stood: no word (no reader matches
// it), but a mark that a value follows ("down to {{n}} pods"). A rune of
// Unicode's private use area, so that no text's own characters ("issue
// #42") are taken for it.
const (
	valueMark     = '\uE000'
	valueMarkText = " \uE000 "
)

// removePlaceholders drops {{…}} from an intent template: placeholders are
// names and values, not the words a reader matches tools against.
func removePlaceholders(intent string) string {
	// "{{target.host}}.{{target.zone}}" is one value to a reader (a host
	// name), not two with a sentence break between them.
	intent = joinedPlaceholders.ReplaceAllString(intent, "}}{{")
	var b strings.Builder
	for {
		i := strings.Index(intent, "{{")
		if i < 0 {
			b.WriteString(intent)
			return b.String()
		}
		b.WriteString(intent[:i])
		b.WriteString(valueMarkText) // a value: no word, but "down to {{n}}" still sees that one follows
		j := strings.Index(intent[i:], "}}")
		if j < 0 {
			return b.String()
		}
		intent = intent[i+j+2:]
	}
}

// splitWords splits text into its words (letters, digits, apostrophes and
// underscores).
func splitWords(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool { return !isWordRune(r) })
}

func lower(s string) string { return strings.ToLower(s) }

func isLetterRune(r rune) bool { return unicode.IsLetter(r) }
