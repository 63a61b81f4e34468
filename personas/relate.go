package personas

import (
	"math"
	"slices"
	"strings"
	"sync"

	"github.com/herd-sh/herd/internal/wordnet"
)

// relKind says through what a tool's word matched a goal's word: the
// explanation shows it, and literalness scales only the kinds a literal
// reader does not take (synonyms it would have to know).
type relKind uint8

const (
	relNone     relKind = iota
	relSame             // the same stem
	relWorld            // the world's own lexicon
	relDomain           // the built-in domain lexicon
	relSynonym          // general English: a synonym
	relDerived          // general English: a derived form (deletion ↔ delete)
	relHypernym         // general English: one step more general
	relHyponym          // general English: one step more specific
	relSimilar          // general English: a similar sense
	relSense            // a sense the goal's wording gives its action (a particle's, a stop for a while, a new value), met as such
)

var relNames = [...]string{"none", "same stem", "world lexicon", "domain lexicon", "synonym", "derived", "hypernym", "hyponym", "similar", "goal's sense"}

func (k relKind) String() string {
	if int(k) < len(relNames) {
		return relNames[k]
	}
	return "unknown"
}

// literal reports whether every reader takes a match of this kind fully:
// the same word, or one the world itself says means the same.
func (k relKind) literal() bool { return k == relSame || k == relWorld || k == relSense }

// generalKindFactor scales a general-English relation by how safely a
// reader takes it for the goal's word: a synonym nearly always, a derived
// form often, a more general or more specific word less, a merely similar
// sense least.
var generalKindFactor = map[relKind]float64{relSynonym: 0.8, relDerived: 0.7, relHypernym: 0.5, relHyponym: 0.45, relSimilar: 0.4}

// wordMatch is the best match of one goal word in one tool's words.
type wordMatch struct {
	weight float64 // before literalness
	kind   relKind
	word   string // the tool's word (or phrase key) it matched
}

// effective is the match as a reader of literalness lit takes it.
func (w wordMatch) effective(lit float64) float64 {
	switch {
	case w.kind == relNone:
		return 0
	case w.kind.literal():
		return w.weight
	}
	return w.weight * (1 - lit)
}

// matches keeps, for one goal word in one text, the best match of each
// strength class: literal (same stem, world lexicon) and learned (domain,
// general). Which wins depends on the reader's literalness, known only
// when a persona reads.
type matches [2]wordMatch

func (ms matches) best(lit float64) wordMatch {
	if ms[1].effective(lit) > ms[0].effective(lit) {
		return ms[1]
	}
	return ms[0]
}

func (ms matches) value(lit float64) float64 { return ms.best(lit).effective(lit) }

func (ms *matches) add(w wordMatch) {
	i := 1
	if w.kind.literal() {
		i = 0
	}
	if w.weight > ms[i].weight {
		ms[i] = w
	}
}

// relater relates a goal's words to a tool's, through the three layers of
// lexicon.go.
type relater struct {
	world, domain *lexicon
	antonyms      map[string]map[string]bool
	general       generalEnglish
	phrases       map[string][]generalPhrase // first token → phrases, longest first
	compounds     map[string]string          // a two-word phrase written as one word ("rollback") → its key ("roll back")
}

// builtinRelations are what every relater starts from: the domain lexicon,
// its opposites and the phrases of both layers. They depend on no world, so
// they are built once, on first use, and never changed.
var builtinRelations = sync.OnceValue(func() *relater {
	r := &relater{domain: newLexicon(builtinLexicon), antonyms: antonymSet(builtinAntonyms), general: defaultGeneral,
		phrases: map[string][]generalPhrase{}}
	for _, ws := range r.domain.phrases() {
		r.addPhrase(generalPhrase{words: ws, key: strings.Join(ws, " ")})
	}
	for _, p := range r.general.phrases() {
		r.addPhrase(p)
	}
	r.sortPhrases()
	r.compounds = map[string]string{}
	for _, ps := range r.phrases {
		for _, p := range ps {
			if len(p.words) == 2 {
				r.compounds[p.words[0]+p.words[1]] = p.key
			}
		}
	}
	return r
})

func newRelater(world map[string][]string) *relater {
	b := builtinRelations()
	r := &relater{world: worldLexicon(world), domain: b.domain, antonyms: b.antonyms, general: b.general, phrases: b.phrases,
		compounds: b.compounds}
	if ps := r.world.phrases(); len(ps) > 0 {
		// The world's phrases join the built-in ones in a copy.
		r.phrases = make(map[string][]generalPhrase, len(b.phrases)+len(ps))
		for k, v := range b.phrases {
			r.phrases[k] = v
		}
		for _, ws := range ps {
			r.addPhrase(generalPhrase{words: ws, key: strings.Join(ws, " ")})
		}
		// Only the lists addPhrase copied are sorted: the shared ones are
		// sorted already, and other models read them.
		for _, ws := range ps {
			if l := r.phrases[ws[0]]; len(l) != len(b.phrases[ws[0]]) {
				slices.SortStableFunc(l, func(a, b generalPhrase) int { return len(b.words) - len(a.words) })
			}
		}
	}
	return r
}

func (r *relater) addPhrase(p generalPhrase) {
	if len(p.words) < 2 || slices.ContainsFunc(r.phrases[p.words[0]], func(q generalPhrase) bool { return q.key == p.key }) {
		return
	}
	r.phrases[p.words[0]] = append(slices.Clip(r.phrases[p.words[0]]), p)
}

func (r *relater) sortPhrases() {
	for k, ps := range r.phrases {
		slices.SortStableFunc(ps, func(a, b generalPhrase) int { return len(b.words) - len(a.words) })
		r.phrases[k] = ps
	}
}

// relate is the best relation from goal key a to tool key b.
func (r *relater) relate(a, b string) wordMatch {
	if a == b {
		return wordMatch{weight: 1, kind: relSame, word: b}
	}
	if w := r.world.weight(a, b); w > 0 {
		return wordMatch{weight: w, kind: relWorld, word: b}
	}
	if r.opposes(a, b) {
		return wordMatch{}
	}
	if w := r.domain.weight(a, b); w > 0 {
		return wordMatch{weight: w, kind: relDomain, word: b}
	}
	best := wordMatch{}
	for _, rel := range r.general.relations(a, false) {
		if rel.to == b && rel.weight*generalKindFactor[rel.kind] > best.weight {
			best = wordMatch{weight: rel.weight * generalKindFactor[rel.kind], kind: rel.kind, word: b}
		}
	}
	return best
}

// match finds goal key a in a tool's keys, per strength class.
func (r *relater) match(a string, seq []string) matches {
	var ms matches
	for _, b := range seq {
		if m := r.relate(a, b); m.kind != relNone {
			ms.add(m)
		}
	}
	return ms
}

// opposes reports whether actions a and b are opposites: a built-in pair,
// a general-English antonym, or a negating prefix (unlock, disconnect,
// deactivate). The world's lexicon can say two words are the same, which
// overrides this; domain synonyms are never opposites.
func (r *relater) opposes(a, b string) bool {
	if a == b || a == "" || b == "" || r.world.weight(a, b) > 0 || r.domain.weight(a, b) > 0 {
		return false
	}
	if r.antonyms[a][b] {
		return true
	}
	for _, p := range []string{"un", "dis", "de"} {
		if len(a) >= 3 && b == p+a || len(b) >= 3 && a == p+b {
			return true
		}
	}
	return r.general.antonym(a, b)
}

// augment appends to seq the phrase keys it contains ("call off", or
// "rollback" for "roll back"), so that a phrase matches as a whole while its
// words still match alone. A
// verb and its particle may stand apart, around a short object ("bump the
// ticket up", "take the record offline"). first lists the phrase keys that
// begin at seq's first word.
func (r *relater) augment(seq []string) (out []string, first []string) {
	out = seq
	// "log in", "hang on to": the tokenizer put a phrasal verb whose
	// particle is a stop word right after its verb; the longest comes
	// first.
	for j := min(len(seq)-1, 2); j >= 1; j-- {
		if extendsVerb(seq, j) {
			first = append(first, seq[j])
		}
	}
	for i := range seq {
		// "rollback_deploy", "Shutdown the server": a phrasal verb
		// written as one word is that phrase.
		if k, ok := r.compounds[seq[i]]; ok && !slices.Contains(out[len(seq):], k) {
			if len(out) == len(seq) {
				out = slices.Clip(out)
			}
			out = append(out, k)
			if i == 0 {
				first = append(first, k)
			}
		}
		for _, p := range r.phrases[seq[i]] {
			if i+len(p.words) <= len(seq) && slices.Equal(seq[i:i+len(p.words)], p.words) || separated(seq, i, p.words) {
				if !slices.Contains(out[len(seq):], p.key) {
					if len(out) == len(seq) {
						out = slices.Clip(out)
					}
					out = append(out, p.key)
				}
				if i == 0 && !slices.Contains(first, p.key) {
					first = append(first, p.key)
				}
			}
		}
	}
	return out, first
}

// extendsVerb reports whether seq[j] is a phrasal verb's key the
// tokenizer put after seq[0], its verb ("log" "log in" "log in to").
func extendsVerb(seq []string, j int) bool {
	if !phrasalKeys()[seq[j]] || !strings.HasPrefix(seq[j], seq[0]+" ") {
		return false
	}
	for k := 1; k < j; k++ {
		if !strings.HasPrefix(seq[k], seq[0]+" ") {
			return false
		}
	}
	return true
}

// particles are the words a phrasal verb may carry after its object.
// "out" is left out: after an object it is mostly "out of" ("mark the
// item as out of stock"), which the reader's stop words hide.
var particles = stemSet("up", "down", "off", "back", "over", "away", "offline", "online", "aside", "forward",
	"through", "together", "apart")

// maxObjectWords is how many words may stand between a verb and its
// particle: "take {the www record} offline".
const maxObjectWords = 2

// separated reports whether the two-word phrasal verb words starts at
// seq[i] with its particle after an object of at most maxObjectWords words.
func separated(seq []string, i int, words []string) bool {
	if len(words) != 2 || !particles[words[1]] {
		return false
	}
	for j := i + 2; j < len(seq) && j <= i+1+maxObjectWords; j++ {
		if seq[j] == words[1] {
			return true
		}
	}
	return false
}

// generalRelation is one general-English relation of a word.
type generalRelation struct {
	to     string
	kind   relKind
	weight float64
}

// generalPhrase is a multi-word lemma: its words as the reader's tokens
// (stop words dropped) and its key in the general layer.
type generalPhrase struct {
	words []string
	key   string
}

// generalEnglish is the seam to the general-English layer: a stemmer, the
// relations of a stem (of its verb senses only, for a goal's action),
// antonyms, how verb-like a word is (NaN when unknown), and the multi-word
// verbs it knows.
type generalEnglish interface {
	stem(word string) string
	relations(a string, asVerb bool) []generalRelation
	antonym(a, b string) bool
	contrary(a, b string) float64
	verbShare(stem string) float64
	phrases() []generalPhrase
	// irregularVerb reports whether a lower-case word is a verb's
	// irregular form, one the stemmer folds to another lemma: came, sent,
	// rang.
	irregularVerb(word string) bool
}

// wordnetEnglish is the general layer of internal/wordnet: Porter2 stems
// with WordNet's exception lists, and WordNet 3.1's relations weighted by
// sense frequency.
type wordnetEnglish struct{}

// minGeneralWeight: weaker general relations are noise to a reader.
const minGeneralWeight = 0.15

func (wordnetEnglish) stem(w string) string { return wordnet.Stem(w) }

// irregularVerb: WordNet's verb exception list folds the form (came →
// come) where Porter2 alone does not, and the lemma is a verb.
func (wordnetEnglish) irregularVerb(w string) bool {
	s := wordnet.Stem(w)
	return s != wordnet.Porter2(w) && wordnet.VerbShare(s) > 0
}

func (wordnetEnglish) relations(a string, asVerb bool) []generalRelation {
	var out []generalRelation
	rels := wordnet.Relations(a)
	if asVerb {
		rels = wordnet.RelationsAs(a, wordnet.Verb)
	}
	for _, r := range rels {
		k, ok := wordnetKinds[r.Kind]
		if !ok {
			continue
		}
		w := r.Weight
		if !asVerb {
			w *= wordnet.POSShare(a, r.POS)
		}
		if w < minGeneralWeight {
			continue
		}
		out = append(out, generalRelation{to: r.To, kind: k, weight: w})
	}
	return out
}

var wordnetKinds = map[wordnet.Kind]relKind{wordnet.Synonym: relSynonym, wordnet.Derived: relDerived,
	wordnet.Hypernym: relHypernym, wordnet.Hyponym: relHyponym, wordnet.Similar: relSimilar}

// antonym: WordNet's verb antonyms of some weight ("hide" and "show").
func (wordnetEnglish) antonym(a, b string) bool {
	for _, r := range wordnet.Relations(a) {
		if r.To == b && r.Kind == wordnet.Antonym && r.POS == wordnet.Verb && r.Weight >= minGeneralWeight {
			return true
		}
	}
	return false
}

// contrary is how surely b says the opposite manner of a, as an adverb or
// adjective ("privately" and "publicly"): WordNet's adjective and adverb
// antonyms, by sense frequency; 0 when they are none.
func (wordnetEnglish) contrary(a, b string) float64 {
	best := 0.0
	for _, r := range wordnet.Relations(a) {
		if r.To == b && r.Kind == wordnet.Antonym && r.POS&(wordnet.Adj|wordnet.Adv) != 0 {
			best = math.Max(best, r.Weight)
		}
	}
	return best
}

func (wordnetEnglish) verbShare(k string) float64 {
	if wordnet.POSOf(k) == 0 {
		return math.NaN()
	}
	return wordnet.VerbShare(k)
}

func (wordnetEnglish) phrases() []generalPhrase {
	var out []generalPhrase
	for _, p := range wordnet.Phrases() {
		if p.POS&wordnet.Verb == 0 {
			continue // a reader needs the multi-word verbs: call off, take down
		}
		var ws []string
		for _, w := range p.Words {
			if !stopWords[w] {
				ws = append(ws, w)
			}
		}
		if len(ws) >= 2 {
			out = append(out, generalPhrase{words: ws, key: p.Key})
		}
	}
	return out
}

// lightEnglish is the general layer without a dictionary: the light
// stemmer and no relations. Tests use it to show what the dictionary adds.
type lightEnglish struct{}

func (lightEnglish) stem(w string) string                     { return lightStem(w) }
func (lightEnglish) relations(string, bool) []generalRelation { return nil }
func (lightEnglish) antonym(string, string) bool              { return false }
func (lightEnglish) contrary(string, string) float64          { return 0 }
func (lightEnglish) verbShare(string) float64                 { return math.NaN() }
func (lightEnglish) phrases() []generalPhrase                 { return nil }
func (lightEnglish) irregularVerb(w string) bool              { _, ok := irregular[w]; return ok }

var defaultGeneral generalEnglish = wordnetEnglish{}

// isAction reports whether a key names an action: a read verb, a word of
// either lexicon or of an opposite pair, or a word general English uses
// mostly as a verb.
func (r *relater) isAction(k string) bool {
	if r.isActionWord(k) {
		return true
	}
	return r.general.verbShare(k) >= 0.5
}

// isActionWord is isAction without general English: a word the lexicons
// or read verbs know as an action.
func (r *relater) isActionWord(k string) bool {
	return readVerbs[k] || r.domain.words[k] != nil || r.world.words[k] != nil || r.antonyms[k] != nil
}

// inFamily reports whether k is head or a word the domain lexicon relates
// to it at least at min: inFamily("purg", "delete", 0.8) is true.
func (r *relater) inFamily(k, head string, min float64) bool {
	h := key(head)
	return k == h || r.domain.weight(k, h) >= min
}
