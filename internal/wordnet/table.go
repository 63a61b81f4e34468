package wordnet

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kljensen/snowball/english"
)

// Magic opens every encoded table; the digit is the format version.
const Magic = "herd-wordnet-2\n"

// Table is a relation table. It is immutable after Decode and safe for
// concurrent use.
//
// Loading must be cheap (it happens once per process, the first time a
// reader needs a word), so the encoding has fixed-width offsets to every
// key and every key's record, and a record's relations are decoded the
// first time they are asked for, then kept: a process touches a few hundred
// of the table's keys, not its 54,000.
type Table struct {
	raw      string   // the encoded table; keys and records are read in place
	keys     []string // sorted, byte order; substrings of raw
	recs     string   // the records: per key parts of speech, shares, relations
	recStart string   // len(keys)+1 little-endian uint32 offsets into recs
	excForms []string // sorted irregular surface forms
	excKeys  []string // the key each form folds to
	// decoded holds each key's relations once decoded: a cache of values
	// that never change, filled at most once per key.
	decoded   []atomic.Pointer[decoded]
	phrases   sync.Once
	phraseAll []Phrase
	// stems caches Stem: Porter2 costs about 1.7 µs and an allocation a
	// word, and a world's texts repeat the same few hundred words across
	// tools, variants and models. It holds at most maxCachedStems words so
	// that an untrusted world's text cannot grow it without bound.
	stems     sync.Map // normalized word → stem
	stemCount atomic.Int64
}

// maxCachedStems bounds the Stem cache (a few MB at most).
const maxCachedStems = 1 << 16

// Decode reads a table as the generator writes it and checks every record,
// so that a damaged table is an error here rather than a missing word later.
func Decode(data []byte) (*Table, error) {
	t, err := decode(string(data))
	if err != nil {
		return nil, err
	}
	for i := range t.keys {
		if _, _, err := t.record(i); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// reader reads fields of a string, remembering the first error.
type reader struct {
	b   string
	off int
	err error
}

func (d *reader) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("wordnet table: truncated or damaged at byte %d (%s)", d.off, what)
	}
}

func (d *reader) uvarint(what string) uint64 {
	var v uint64
	for shift := uint(0); d.err == nil; shift += 7 {
		if d.off >= len(d.b) || shift > 56 {
			d.fail(what)
			break
		}
		c := d.b[d.off]
		d.off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	return 0
}

func (d *reader) u32(what string) uint32 {
	if d.err != nil {
		return 0
	}
	if len(d.b)-d.off < 4 {
		d.fail(what)
		return 0
	}
	v := u32At(d.b, d.off)
	d.off += 4
	return v
}

func u32At(b string, off int) uint32 {
	return uint32(b[off]) | uint32(b[off+1])<<8 | uint32(b[off+2])<<16 | uint32(b[off+3])<<24
}

func (d *reader) byte(what string) byte {
	if d.err != nil {
		return 0
	}
	if d.off >= len(d.b) {
		d.fail(what)
		return 0
	}
	c := d.b[d.off]
	d.off++
	return c
}

// str returns the next n bytes as a substring: no copy.
func (d *reader) str(n uint64, what string) string {
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)-d.off) {
		d.fail(what)
		return ""
	}
	s := d.b[d.off : d.off+int(n)]
	d.off += int(n)
	return s
}

// decode reads the table's layout, its keys and its irregular forms; the
// records are read when asked for. The layout is:
//
//	Magic
//	u32 number of keys, u32 end offset of each key, the keys' bytes
//	u32 start offset of each key's record and the end of the last, the records
//	uvarint number of irregular forms, each: uvarint length, form,
//	    uvarint length, key
//
// A record is: a part-of-speech bit set, a share byte (/255) per part of
// speech in it, uvarint number of relations, each: uvarint index of the
// target key, a byte kind<<2 | part-of-speech bit number, a weight byte
// (/255). Relations are in the order Relations returns them.
func decode(raw string) (*Table, error) {
	if !strings.HasPrefix(raw, Magic) {
		return nil, errors.New("wordnet table: not a herd wordnet table (bad magic or old format)")
	}
	d := &reader{b: raw, off: len(Magic)}
	n := int(d.u32("key count"))
	if d.err == nil && n > (len(raw)-d.off)/4 {
		d.fail("key count")
	}
	if d.err != nil {
		return nil, d.err
	}
	ends := d.str(uint64(4*n), "key offsets")
	blobLen := 0
	if n > 0 && d.err == nil {
		blobLen = int(u32At(ends, 4*(n-1)))
	}
	blob := d.str(uint64(blobLen), "keys")
	starts := d.str(uint64(4*(n+1)), "record offsets")
	if d.err != nil {
		return nil, d.err
	}
	t := &Table{raw: raw, keys: make([]string, n), recStart: starts}
	prev := 0
	for i := range n {
		end := int(u32At(ends, 4*i))
		if end < prev || end > len(blob) {
			return nil, fmt.Errorf("wordnet table: key %d's offset %d is out of order", i, end)
		}
		t.keys[i] = blob[prev:end]
		if i > 0 && t.keys[i-1] >= t.keys[i] {
			return nil, fmt.Errorf("wordnet table: keys out of order at %q", t.keys[i])
		}
		prev = end
	}
	recLen := int(u32At(starts, 4*n))
	t.recs = d.str(uint64(recLen), "records")
	if d.err != nil {
		return nil, d.err
	}
	prev = 0
	for i := 0; i <= n; i++ {
		off := int(u32At(starts, 4*i))
		if off < prev || off > len(t.recs) {
			return nil, fmt.Errorf("wordnet table: record %d's offset %d is out of order", i, off)
		}
		prev = off
	}

	nExc := d.uvarint("exception count")
	if d.err == nil && nExc > uint64(len(raw)-d.off)/4 {
		d.fail("exception count")
	}
	t.excForms = make([]string, 0, nExc)
	t.excKeys = make([]string, 0, nExc)
	for i := uint64(0); i < nExc && d.err == nil; i++ {
		form := d.str(d.uvarint("exception length"), "exception")
		key := d.str(d.uvarint("exception key length"), "exception key")
		if d.err != nil {
			break
		}
		if key == "" || (i > 0 && t.excForms[i-1] >= form) {
			d.fail("exception")
			break
		}
		t.excForms = append(t.excForms, form)
		t.excKeys = append(t.excKeys, key)
	}
	if d.err == nil && d.off != len(raw) {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	t.decoded = make([]atomic.Pointer[decoded], n)
	return t, nil
}

// weights maps a stored weight byte to its value.
var weights = func() (w [256]float64) {
	for i := range w {
		w[i] = float64(i) / 255
	}
	return w
}()

// header reads key i's parts of speech and shares, and returns a reader
// positioned at its relation count.
func (t *Table) header(i int) (POS, [4]uint8, *reader) {
	d := &reader{b: t.recs[u32At(t.recStart, 4*i):u32At(t.recStart, 4*(i+1))]}
	mask := POS(d.byte("parts of speech"))
	if mask > Noun|Verb|Adj|Adv {
		d.fail("parts of speech")
	}
	var shares [4]uint8
	for b := range 4 {
		if mask&(1<<b) != 0 {
			shares[b] = d.byte("share")
		}
	}
	return mask, shares, d
}

// record decodes key i's relations.
func (t *Table) record(i int) ([]Relation, POS, error) {
	mask, _, d := t.header(i)
	n := d.uvarint("relation count")
	if d.err == nil && n > uint64(len(d.b)-d.off)/3 {
		d.fail("relation count")
	}
	if d.err != nil || n == 0 {
		return nil, mask, d.err
	}
	out := make([]Relation, n)
	for j := range out {
		to := d.uvarint("relation target")
		kp := d.byte("relation kind")
		w := d.byte("relation weight")
		kind := Kind(kp >> 2)
		if d.err == nil && (to >= uint64(len(t.keys)) || kind < Synonym || kind > Similar || w == 0) {
			d.fail("relation")
		}
		if d.err != nil {
			return nil, mask, fmt.Errorf("key %q: %w", t.keys[i], d.err)
		}
		out[j] = Relation{To: t.keys[to], Kind: kind, POS: 1 << (kp & 3), Weight: weights[w]}
	}
	if d.off != len(d.b) {
		d.fail("trailing record bytes")
		return nil, mask, fmt.Errorf("key %q: %w", t.keys[i], d.err)
	}
	return out, mask, nil
}

func (t *Table) index(key string) (int, bool) {
	i := sort.SearchStrings(t.keys, key)
	return i, i < len(t.keys) && t.keys[i] == key
}

// Len is the number of keys.
func (t *Table) Len() int { return len(t.keys) }

// Stem is the package-level Stem with this table's irregular forms.
func (t *Table) Stem(word string) string {
	w := normalize(word)
	if w == "" {
		return ""
	}
	if s, ok := t.stems.Load(w); ok {
		return s.(string)
	}
	s := t.stem(w)
	if t.stemCount.Load() < maxCachedStems {
		if _, loaded := t.stems.LoadOrStore(w, s); !loaded {
			t.stemCount.Add(1)
		}
	}
	return s
}

// stem is Stem of a normalized word, uncached.
func (t *Table) stem(w string) string {
	if i := sort.SearchStrings(t.excForms, w); i < len(t.excForms) && t.excForms[i] == w {
		return t.excKeys[i]
	}
	return english.Stem(w, true)
}

// decoded is one key's relations, all of them and split by the part of
// speech of the headword's sense, each in Relations order.
type decoded struct {
	all   []Relation
	byPOS [4][]Relation
}

// lookup returns key's decoded relations, decoding them on first use.
func (t *Table) lookup(key string) *decoded {
	i, ok := t.index(key)
	if !ok {
		return nil
	}
	if p := t.decoded[i].Load(); p != nil {
		return p
	}
	// A damaged record reads as a key without relations; Decode has
	// rejected such a table, and the embedded one is checked by its tests.
	rs, _, _ := t.record(i)
	dec := &decoded{all: rs[:len(rs):len(rs)]}
	if len(rs) > 0 {
		split := make([]Relation, 0, len(rs))
		for b := range 4 {
			start := len(split)
			for _, r := range rs {
				if posBit(r.POS) == b {
					split = append(split, r)
				}
			}
			if len(split) > start {
				dec.byPOS[b] = split[start:len(split):len(split)]
			}
		}
	}
	t.decoded[i].CompareAndSwap(nil, dec)
	return t.decoded[i].Load()
}

// posBit is the bit number of a one-bit POS.
func posBit(p POS) int {
	switch p {
	case Verb:
		return 1
	case Adj:
		return 2
	case Adv:
		return 3
	}
	return 0
}

// Relations is the package-level Relations on this table.
func (t *Table) Relations(key string) []Relation {
	if d := t.lookup(key); d != nil {
		return d.all
	}
	return nil
}

// RelationsAs is the package-level RelationsAs on this table.
func (t *Table) RelationsAs(key string, pos POS) []Relation {
	d := t.lookup(key)
	if d == nil || pos == 0 {
		return nil
	}
	var only []Relation
	parts := 0
	for b := range 4 {
		if pos&(1<<b) != 0 && d.byPOS[b] != nil {
			only = d.byPOS[b]
			parts++
		}
	}
	if parts <= 1 {
		return only
	}
	// Several parts of speech: a fresh slice, merged back into weight order.
	var out []Relation
	for _, r := range d.all {
		if pos&r.POS != 0 {
			out = append(out, r)
		}
	}
	return out
}

// RelatedAs is the package-level RelatedAs on this table.
func (t *Table) RelatedAs(a, b string, pos POS) (Relation, bool) {
	for _, r := range t.RelationsAs(a, pos) {
		if r.To == b {
			return r, true
		}
	}
	return Relation{}, false
}

// Related is the package-level Related on this table.
func (t *Table) Related(a, b string) (Relation, bool) {
	// Relations are sorted by weight, so the first match is the strongest.
	for _, r := range t.Relations(a) {
		if r.To == b {
			return r, true
		}
	}
	return Relation{}, false
}

// POSOf is the package-level POSOf on this table.
func (t *Table) POSOf(key string) POS {
	i, ok := t.index(key)
	if !ok {
		return 0
	}
	mask, _, d := t.header(i)
	if d.err != nil {
		return 0
	}
	return mask
}

// POSShare is the package-level POSShare on this table.
func (t *Table) POSShare(key string, p POS) float64 {
	i, ok := t.index(key)
	if !ok {
		return 0
	}
	_, shares, d := t.header(i)
	if d.err != nil {
		return 0
	}
	var sum float64
	for b := range 4 {
		if p&(1<<b) != 0 {
			sum += weights[shares[b]]
		}
	}
	return min(sum, 1)
}

// Phrases is the package-level Phrases on this table.
func (t *Table) Phrases() []Phrase {
	t.phrases.Do(func() {
		for i, k := range t.keys {
			if strings.IndexByte(k, ' ') >= 0 {
				mask, _, _ := t.header(i)
				t.phraseAll = append(t.phraseAll, Phrase{Key: k, Words: strings.Fields(k), POS: mask})
			}
		}
	})
	return t.phraseAll[:len(t.phraseAll):len(t.phraseAll)]
}

// PhrasesFrom is the package-level PhrasesFrom on this table.
func (t *Table) PhrasesFrom(first string) []Phrase {
	all := t.Phrases()
	// Keys sort byte-wise and ' ' sorts below every letter and digit, so the
	// phrases starting with "first " are one run.
	prefix := first + " "
	lo := sort.Search(len(all), func(i int) bool { return all[i].Key >= prefix })
	hi := lo
	for hi < len(all) && strings.HasPrefix(all[hi].Key, prefix) {
		hi++
	}
	if lo == hi {
		return nil
	}
	return all[lo:hi:hi]
}
