package personas

import (
	"maps"
	"slices"
)

// lexicon holds weighted synonym relations between stems. A relation of
// weight w lets an intent word match a tool word at w × (1 − literalness).
// Members with spaces are phrases: they match as consecutive words.
type lexicon struct {
	words   map[string]map[string]float64 // stem → related stem → weight
	phrases map[string][]phrase           // stem → related phrases
}

type phrase struct {
	words  []string
	weight float64
}

// relation is a group of words related to each other at one weight (a
// clique), or, when pair is set, a relation between the first word and
// each of the others only.
type relation struct {
	weight float64
	pair   bool
	words  []string
}

func group(w float64, words ...string) relation { return relation{weight: w, words: words} }
func pair(w float64, from string, to ...string) relation {
	return relation{weight: w, pair: true, words: append([]string{from}, to...)}
}

// builtinLexicon is what every agent knows about words. The weights say how
// safely one word stands for another: hiding is archiving, but "remove
// from the list" only sounds like hiding (0.6) — which is exactly the
// misreading an ambiguous "Remove a contact" invites.
var builtinLexicon = []relation{
	group(1.0, "hide", "archive", "deactivate", "conceal"),
	pair(0.6, "hide", "remove"),
	group(1.0, "remove", "delete", "destroy", "erase"),
	group(1.0, "refund", "reverse", "return money"),
	group(1.0, "send", "email", "mail"),
	group(1.0, "replace", "overwrite"),
	group(1.0, "update", "change", "edit", "modify", "set"),
	group(0.8, "find", "look up", "search", "get", "list", "fetch", "lookup", "retrieve"),
	group(1.0, "cancel", "void"),
	pair(0.8, "return", "send back"),
	group(1.0, "charge", "bill", "pay"),
	group(1.0, "reply", "respond", "answer"),
	group(0.8, "upload", "put", "write", "save"),
	group(1.0, "trash", "bin"),
	group(1.0, "create", "add", "new", "insert"),
	group(1.0, "restore", "unarchive", "undelete", "recover"),
}

// worldRelationWeight is the weight of a world file's own lexicon entries:
// the world's author says these words mean the same thing there.
const worldRelationWeight = 1.0

// newLexicon builds the built-in lexicon extended by a world's entries
// (word → words it may stand for). Entries are applied in sorted order so
// the lexicon does not depend on map iteration (related keeps the best
// weight, so the order could only ever change the order of phrases).
func newLexicon(world map[string][]string) *lexicon {
	lx := &lexicon{words: map[string]map[string]float64{}, phrases: map[string][]phrase{}}
	for _, r := range builtinLexicon {
		lx.addRelation(r)
	}
	for _, k := range slices.Sorted(maps.Keys(world)) {
		lx.addRelation(pair(worldRelationWeight, k, world[k]...))
	}
	return lx
}

func (lx *lexicon) addRelation(r relation) {
	link := func(a, b string) {
		as, bs := stems(a), stems(b)
		if len(as) != 1 || (len(bs) == 1 && as[0] == bs[0]) || len(bs) == 0 {
			return // phrases are matched as targets only; a word is not its own synonym
		}
		if len(bs) > 1 {
			lx.addPhrase(as[0], bs, r.weight)
			return
		}
		m := lx.words[as[0]]
		if m == nil {
			m = map[string]float64{}
			lx.words[as[0]] = m
		}
		if r.weight > m[bs[0]] {
			m[bs[0]] = r.weight
		}
	}
	if r.pair {
		for _, b := range r.words[1:] {
			link(r.words[0], b)
			link(b, r.words[0])
		}
		return
	}
	for _, a := range r.words {
		for _, b := range r.words {
			link(a, b)
		}
	}
}

func (lx *lexicon) addPhrase(a string, words []string, w float64) {
	for i, p := range lx.phrases[a] {
		if slices.Equal(p.words, words) {
			if w > p.weight {
				lx.phrases[a][i].weight = w
			}
			return
		}
	}
	lx.phrases[a] = append(lx.phrases[a], phrase{words: words, weight: w})
}

// related returns the weight of the best relation between intent word a
// and any word or phrase in seq (0 when none).
func (lx *lexicon) related(a string, seq []string) float64 {
	best := 0.0
	if m := lx.words[a]; m != nil {
		for _, w := range seq {
			if x := m[w]; x > best {
				best = x
			}
		}
	}
	for _, p := range lx.phrases[a] {
		if p.weight > best && containsRun(seq, p.words) {
			best = p.weight
		}
	}
	return best
}

// containsRun reports whether run occurs in seq as consecutive words.
func containsRun(seq, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(seq); i++ {
		if slices.Equal(seq[i:i+len(run)], run) {
			return true
		}
	}
	return false
}

// antonyms: a tool whose name says the opposite of the goal's verb does
// the opposite. Pairs, both ways.
var antonyms = func() map[string]map[string]bool {
	pairs := [][2]string{
		{"hide", "restore"}, {"hide", "show"}, {"hide", "unhide"}, {"hide", "unarchive"}, {"hide", "reveal"},
		{"archive", "restore"}, {"archive", "unarchive"}, {"archive", "delete"}, {"delete", "restore"},
		{"delete", "undelete"}, {"delete", "create"}, {"remove", "restore"}, {"remove", "add"}, {"remove", "create"},
		{"lock", "unlock"}, {"enable", "disable"}, {"charge", "refund"}, {"open", "close"}, {"trash", "restore"},
		{"cancel", "create"}, {"send", "delete"}, {"reply", "delete"}, {"update", "delete"},
	}
	m := map[string]map[string]bool{}
	add := func(a, b string) {
		if m[a] == nil {
			m[a] = map[string]bool{}
		}
		m[a][b] = true
	}
	for _, p := range pairs {
		a, b := stem(p[0]), stem(p[1])
		add(a, b)
		add(b, a)
	}
	return m
}()
