package wnbuild

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/herd-sh/herd/internal/wordnet"
)

// Kind factors scale each relation by how directly a reader takes it as the
// same meaning: a synonym (same synset) fully, a derived form nearly so, a
// similar-to or verb-group neighbour less, a one-step hypernym or hyponym
// by half (a "remove" tool is a plausible reading of "delete", but only
// plausible), and an antonym pointer's extension to the rest of the two
// synsets by half (WordNet points "increase" at "decrease" word to word;
// "raise" ↔ "lower" by way of those synsets is an inference).
const (
	synonymFactor      = 1.0
	derivedFactor      = 0.8
	similarFactor      = 0.7
	hypernymFactor     = 0.5
	antonymFactor      = 1.0
	antonymExtendScale = 0.5
)

// Options tune what the table keeps.
type Options struct {
	// MinWeight drops relations weaker than this (after the cap at 1). The
	// weakest relations are rare senses of both words, which a reader would
	// not think of, and they are most of WordNet's pairs.
	MinWeight float64
	// SkipNounLexFiles are lexicographer files of nouns left out whole.
	SkipNounLexFiles []int
	// SkipInstances leaves out noun synsets that are instances (a synset
	// with an instance-hypernym pointer: people, places, works, named
	// events).
	SkipInstances bool
	// DropUntaggedPhrases leaves out multi-word nouns, adjectives and
	// adverbs in the senses where they have no tag count ("genetic
	// mutation", "dissolving agent"): they are two fifths of WordNet's
	// lemmas, a reader matches their words one by one anyway, and their
	// relations would be half the table. Multi-word verbs are all kept.
	DropUntaggedPhrases bool
	// Overrides fold surface forms to a base form beyond what the exception
	// lists allow (see Build); form → base.
	Overrides map[string]string
}

// DefaultOptions are what the embedded table is built with.
func DefaultOptions() Options {
	return Options{
		MinWeight: 0.06,
		// noun.animal and noun.plant are the taxonomy of living things
		// (genus and species names, a fifth of the nouns, nearly all
		// untagged), and instances are proper names; a tool text names
		// neither by a WordNet synonym, and they would be most of the table.
		SkipNounLexFiles:    []int{5, 20},
		SkipInstances:       true,
		DropUntaggedPhrases: true,
		// "found" and "saw" are verb lemmas of their own (found a company,
		// saw wood), so the exception rule keeps them; in a tool text they
		// are nearly always find and see.
		Overrides: map[string]string{"found": "find", "saw": "see"},
	}
}

// Stats describes a built table.
type Stats struct {
	Keys, Phrases, Relations, Exceptions int
	RawBytes                             int
}

// Build reads the dictionary (see readDict) and returns the encoded table,
// uncompressed, with its statistics.
//
// Weights. WordNet lists every sense a word has ever had, so "delete" sits
// in a synset with "cancel" (remove or make invisible) and "hide" in one
// with "obliterate". A reader takes two words as related only through a
// sense that is common for both. The sense distribution of a key K in part
// of speech p comes from the SemCor tag counts of index.sense, with add-one
// smoothing so an untagged sense still counts a little:
//
//	P(s | K, p) = (c(K, s) + 1) / (C(K, p) + n(K, p))
//
// where c(K, s) is the tag count of K's lemmas in synset s, C their total
// over K's synsets of part of speech p and n the number of those synsets.
// A relation between K in synset s and L in synset t weighs
//
//	factor(kind) · sqrt(P(s | K, p) · P(t | L, q))
//
// summed over the synset pairs that carry it and capped at 1. For synonyms
// the sum is the Bhattacharyya coefficient of the two words' sense
// distributions over the synsets they share: 1 for two words with the same
// senses in the same proportions, near 0 when the shared sense is rare for
// either word, and never above 1. The geometric mean, rather than a
// product, keeps a relation through the dominant sense of both words near 1
// regardless of how many senses they have.
//
// Shares are within one part of speech: a reader usually knows whether a
// word is the action or the thing, and POSShare gives the prior when it
// does not.
func Build(dictDir, excDir string, opt Options) ([]byte, Stats, error) {
	d, err := readDict(dictDir, excDir)
	if err != nil {
		return nil, Stats{}, err
	}
	return build(d, opt)
}

type relKey struct {
	from, to string
	kind     wordnet.Kind
	file     uint8
}

type keySense struct {
	key string
	id  synsetID
}

type builder struct {
	d    *dict
	fold map[string]string // surface form → key
	// senseCount is c(K, s); posTotal and posSenses are C(K, p) and n(K, p).
	senseCount map[keySense]int
	posTotal   map[string]*[4]int
	posSenses  map[string]*[4]int
	members    map[synsetID][]string // distinct keys of a synset, in word order
	rels       map[relKey]float64
	relOrder   []relKey // first-seen order, so float sums are reproducible
}

func build(d *dict, opt Options) ([]byte, Stats, error) {
	b := &builder{d: d, senseCount: map[keySense]int{}, posTotal: map[string]*[4]int{},
		posSenses: map[string]*[4]int{}, members: map[synsetID][]string{}, rels: map[relKey]float64{}}
	d = d.without(opt)
	b.d = d
	b.fold = foldMap(d, opt.Overrides)

	for _, s := range d.synsets {
		var keys []string
		for _, w := range s.words {
			k := b.key(w)
			if k == "" {
				continue
			}
			// A hyphenated lemma ("e-mail") is one written word, kept.
			if opt.DropUntaggedPhrases && s.id.file != 1 && strings.IndexByte(w, '_') >= 0 && d.counts[senseID{w, s.id}] == 0 {
				continue
			}
			ks := keySense{k, s.id}
			if _, seen := b.senseCount[ks]; !seen {
				keys = append(keys, k)
				b.senseCount[ks] = 0
				b.counts(k, b.posSenses)[s.id.file]++
			}
			c := d.counts[senseID{w, s.id}]
			b.senseCount[ks] += c
			b.counts(k, b.posTotal)[s.id.file] += c
		}
		b.members[s.id] = keys
	}

	for _, s := range d.synsets {
		b.relate(s)
	}
	return b.encode(opt)
}

// without returns the dictionary without the synsets opt leaves out;
// pointers into them are then skipped like pointers to a part of the
// dictionary not read.
func (d *dict) without(opt Options) *dict {
	out := &dict{byID: map[synsetID]*synset{}, counts: d.counts, exc: d.exc}
	for _, s := range d.synsets {
		if s.id.file == 0 {
			if slices.Contains(opt.SkipNounLexFiles, s.lexFile) {
				continue
			}
			if opt.SkipInstances && slices.ContainsFunc(s.pointers, func(p pointer) bool { return p.symbol == "@i" }) {
				continue
			}
		}
		out.synsets = append(out.synsets, s)
		out.byID[s.id] = s
	}
	return out
}

func (b *builder) counts(k string, m map[string]*[4]int) *[4]int {
	c := m[k]
	if c == nil {
		c = new([4]int)
		m[k] = c
	}
	return c
}

// foldMap decides which irregular forms Stem folds to their base: every
// form of the exception lists whose base's stem differs from its own, except
// a form that is itself a tagged lemma of the same part of speech ("lay" is
// lie's past but also a verb of its own; "data" is datum's plural but a noun
// of its own). Of several bases the most tagged wins; so does a form's most
// tagged base across parts of speech.
func foldMap(d *dict, overrides map[string]string) map[string]string {
	var lemmaCount [4]map[string]int
	for f := range lemmaCount {
		lemmaCount[f] = map[string]int{}
	}
	for _, s := range d.synsets {
		for _, w := range s.words {
			lemmaCount[s.id.file][w] += d.counts[senseID{w, s.id}] + 1 // +1: present, even untagged
		}
	}
	fold := map[string]string{}
	weight := map[string]int{}
	for f, list := range d.exc {
		for _, e := range list {
			if strings.ContainsAny(e.form, "_- ") {
				continue
			}
			if n, isLemma := lemmaCount[f][e.form]; isLemma && n > 1 {
				continue
			}
			best, bestN := "", -1
			for _, base := range e.bases {
				if strings.ContainsAny(base, "_- ") {
					continue
				}
				if n := lemmaCount[f][base]; n > bestN {
					best, bestN = base, n
				}
			}
			if best == "" {
				continue
			}
			target := wordnet.Porter2(best)
			if target == wordnet.Porter2(e.form) {
				continue
			}
			if prev, ok := weight[e.form]; ok && prev >= bestN {
				continue
			}
			fold[e.form], weight[e.form] = target, bestN
		}
	}
	// Porter2 strips -ize but not -ise, so "customise" and "customize"
	// would be two keys, each the other's synonym. Where WordNet has both
	// spellings, the -ise forms fold to the -ize ones' stems.
	isLemma := map[string]bool{}
	for _, s := range d.synsets {
		for _, w := range s.words {
			isLemma[w] = true
		}
	}
	for w := range isLemma {
		root, ok := strings.CutSuffix(w, "ise")
		if !ok || !isLemma[root+"ize"] || strings.ContainsAny(w, "_- ") {
			continue
		}
		for _, suf := range []string{"e", "es", "ed", "ing", "ation", "ations", "er", "ers"} {
			form, us := root+"is"+suf, root+"iz"+suf
			if _, done := fold[form]; !done && wordnet.Porter2(form) != wordnet.Porter2(us) {
				fold[form] = wordnet.Porter2(us)
			}
		}
	}
	for form, base := range overrides {
		fold[form] = wordnet.Porter2(base)
	}
	return fold
}

// key turns a data-file lemma into its table key: words split at "_" and
// "-", each stemmed as Stem would (folded if irregular, else Porter2), and
// joined by one space.
func (b *builder) key(lemma string) string {
	words := strings.FieldsFunc(lemma, func(r rune) bool { return r == '_' || r == '-' || r == ' ' })
	for i, w := range words {
		if k, ok := b.fold[w]; ok {
			words[i] = k
		} else {
			words[i] = wordnet.Porter2(w)
		}
	}
	return strings.Join(slices.DeleteFunc(words, func(w string) bool { return w == "" }), " ")
}

// p is P(s | K, p) with add-one smoothing.
func (b *builder) p(k string, id synsetID) float64 {
	c := b.senseCount[keySense{k, id}]
	return float64(c+1) / float64(b.posTotal[k][id.file]+b.posSenses[k][id.file])
}

func (b *builder) add(from, to string, kind wordnet.Kind, file uint8, w float64) {
	if from == to || w <= 0 {
		return
	}
	rk := relKey{from, to, kind, file}
	if _, ok := b.rels[rk]; !ok {
		b.relOrder = append(b.relOrder, rk)
	}
	b.rels[rk] += w
}

func (b *builder) relate(s *synset) {
	keys := b.members[s.id]
	for _, a := range keys {
		for _, c := range keys {
			b.add(a, c, wordnet.Synonym, s.id.file, synonymFactor*math.Sqrt(b.p(a, s.id)*b.p(c, s.id)))
		}
	}
	extended := map[synsetID]bool{}
	for _, ptr := range s.pointers {
		t, ok := b.d.byID[ptr.target]
		if !ok {
			continue // a pointer into a part of the dictionary not read (test fixtures)
		}
		tkeys := b.members[t.id]
		switch ptr.symbol {
		case "@":
			// Going down, the hyponym is one of the hypernym's k children:
			// "remove" has a hundred kinds (amputate, shuck, enucleate,
			// delete), "delete" three (expunge, rub out, score out). Each
			// child's share is taken as 1/√k, not 1/k: the children are not
			// equally likely, and the common ones are those a text uses, so
			// "remove" → "delete" keeps 0.08 while a kind of a hypernym with
			// two children keeps 0.84 of the upward weight.
			k := math.Sqrt(float64(max(1, hyponymCount(t))))
			for _, a := range keys {
				for _, c := range tkeys {
					pa, pc := b.p(a, s.id), b.p(c, t.id)
					b.add(a, c, wordnet.Hypernym, s.id.file, hypernymFactor*math.Sqrt(pa*pc))
					b.add(c, a, wordnet.Hyponym, t.id.file, hypernymFactor*math.Sqrt(pa*pc/k))
				}
			}
		case "&", "$":
			for _, a := range keys {
				for _, c := range tkeys {
					b.add(a, c, wordnet.Similar, s.id.file, similarFactor*math.Sqrt(b.p(a, s.id)*b.p(c, t.id)))
				}
			}
		case "!", "+":
			a, aok := b.word(s, ptr.src)
			c, cok := b.word(t, ptr.dst)
			if !aok || !cok {
				continue
			}
			if ptr.symbol == "+" {
				b.add(a, c, wordnet.Derived, s.id.file, derivedFactor*math.Sqrt(b.p(a, s.id)*b.p(c, t.id)))
				continue
			}
			b.add(a, c, wordnet.Antonym, s.id.file, antonymFactor*math.Sqrt(b.p(a, s.id)*b.p(c, t.id)))
			if extended[t.id] {
				continue // the two synsets' other members are related once, however many word pairs point
			}
			extended[t.id] = true
			for _, m := range keys {
				for _, n := range tkeys {
					if m == a && n == c {
						continue
					}
					b.add(m, n, wordnet.Antonym, s.id.file, antonymFactor*antonymExtendScale*math.Sqrt(b.p(m, s.id)*b.p(n, t.id)))
				}
			}
		}
	}
}

// hyponymCount is the number of a synset's hyponym pointers (not counting
// instances).
func hyponymCount(s *synset) int {
	n := 0
	for _, p := range s.pointers {
		if p.symbol == "~" {
			n++
		}
	}
	return n
}

// word returns the key of a synset's n-th word (1-based), as a lexical
// pointer names it.
func (b *builder) word(s *synset, n int) (string, bool) {
	if n < 1 || n > len(s.words) {
		return "", false
	}
	k := b.key(s.words[n-1])
	_, member := b.senseCount[keySense{k, s.id}] // false for a word left out
	return k, member
}

type encRel struct {
	to   string
	kind wordnet.Kind
	file uint8
	q    uint8
}

func (b *builder) encode(opt Options) ([]byte, Stats, error) {
	keySet := map[string]bool{}
	for k := range b.posSenses {
		keySet[k] = true
	}
	keys := make([]string, 0, len(keySet))
	for k := range keySet {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	index := make(map[string]int, len(keys))
	for i, k := range keys {
		index[k] = i
	}

	minQ := max(1, int(math.Ceil(opt.MinWeight*255-1e-9)))
	perKey := map[string][]encRel{}
	for _, rk := range b.relOrder {
		w := min(1, b.rels[rk])
		q := int(math.Round(w * 255))
		if q < minQ {
			continue
		}
		perKey[rk.from] = append(perKey[rk.from], encRel{rk.to, rk.kind, rk.file, uint8(q)})
	}

	// The layout is documented with the decoder (package wordnet, decode).
	st := Stats{Keys: len(keys)}
	var keyEnds, keyBlob, recStarts, recs []byte
	for _, k := range keys {
		keyBlob = append(keyBlob, k...)
		keyEnds = binary.LittleEndian.AppendUint32(keyEnds, uint32(len(keyBlob)))
		if strings.IndexByte(k, ' ') >= 0 {
			st.Phrases++
		}
	}
	for _, k := range keys {
		recStarts = binary.LittleEndian.AppendUint32(recStarts, uint32(len(recs)))
		var mask byte
		var m [4]int
		sum := 0
		for f := range 4 {
			if b.posSenses[k][f] > 0 {
				mask |= 1 << f
				m[f] = b.posTotal[k][f] + b.posSenses[k][f]
				sum += m[f]
			}
		}
		recs = append(recs, mask)
		for f := range 4 {
			if mask&(1<<f) != 0 {
				recs = append(recs, byte(max(1, math.Round(float64(m[f])/float64(sum)*255))))
			}
		}
		rs := perKey[k]
		slices.SortFunc(rs, func(x, y encRel) int {
			return cmp.Or(cmp.Compare(y.q, x.q), cmp.Compare(x.to, y.to), cmp.Compare(x.kind, y.kind), cmp.Compare(x.file, y.file))
		})
		recs = binary.AppendUvarint(recs, uint64(len(rs)))
		for _, r := range rs {
			i, ok := index[r.to]
			if !ok {
				return nil, st, fmt.Errorf("relation %s → %s: target is not a key", k, r.to)
			}
			recs = binary.AppendUvarint(recs, uint64(i))
			recs = append(recs, byte(r.kind)<<2|r.file, r.q)
		}
		st.Relations += len(rs)
	}
	recStarts = binary.LittleEndian.AppendUint32(recStarts, uint32(len(recs)))
	if uint64(len(recs)) > math.MaxUint32 || uint64(len(keyBlob)) > math.MaxUint32 {
		return nil, st, fmt.Errorf("table too large for 32-bit offsets: %d bytes of records", len(recs))
	}
	var out []byte
	out = append(out, wordnet.Magic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(keys)))
	out = append(out, keyEnds...)
	out = append(out, keyBlob...)
	out = append(out, recStarts...)
	out = append(out, recs...)

	forms := make([]string, 0, len(b.fold))
	for f := range b.fold {
		forms = append(forms, f)
	}
	slices.Sort(forms)
	// An exception whose target is not a key (its base is a lemma only in a
	// form the table does not hold) still merges the inflection; it is
	// stored as the target's text.
	out = binary.AppendUvarint(out, uint64(len(forms)))
	for _, f := range forms {
		out = binary.AppendUvarint(out, uint64(len(f)))
		out = append(out, f...)
		t := b.fold[f]
		out = binary.AppendUvarint(out, uint64(len(t)))
		out = append(out, t...)
	}
	st.Exceptions = len(forms)
	st.RawBytes = len(out)
	return out, st, nil
}
