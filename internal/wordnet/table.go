package wordnet

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/kljensen/snowball/english"
)

// Magic opens every encoded table; the digit is the format version.
const Magic = "herd-wordnet-1\n"

// Table is a decoded relation table. It is immutable after Decode and safe
// for concurrent use.
type Table struct {
	keys      []string   // sorted, byte order
	pos       []POS      // per key
	shares    [][4]uint8 // per key: share of tag counts per part of speech, /255
	relStart  []uint32   // per key: start in rels; relStart[len(keys)] = len(rels)
	rels      []Relation
	excForms  []string // sorted irregular surface forms
	excKeys   []string // the key each form folds to
	phrases   sync.Once
	phraseAll []Phrase
}

// Decode reads a table as the generator writes it. The embedded table is
// decoded in place, without this copy.
func Decode(data []byte) (*Table, error) {
	return decode(string(data))
}

// decoder reads the table's fields, remembering the first error.
type decoder struct {
	b   string
	off int
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("wordnet table: truncated or damaged at byte %d (%s)", d.off, what)
	}
}

func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	// One byte is the common case (a small count, a key index below 128
	// is rare, but lengths and weights are small), so it skips the loop.
	if d.off < len(d.b) && d.b[d.off] < 0x80 {
		v := d.b[d.off]
		d.off++
		return uint64(v)
	}
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if d.off >= len(d.b) {
			break
		}
		c := d.b[d.off]
		d.off++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.fail(what)
	return 0
}

func (d *decoder) byte(what string) byte {
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

// str returns the next n bytes as a substring of the table: no copy.
func (d *decoder) str(n uint64, what string) string {
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

// count reads a count and checks it against the bytes left, each counted
// item taking at least minBytes, so a damaged count cannot make decode
// allocate without bound.
func (d *decoder) count(minBytes int, what string) int {
	n := d.uvarint(what)
	if d.err == nil && n > uint64((len(d.b)-d.off)/minBytes+1) {
		d.fail(what + " count")
		return 0
	}
	return int(n)
}

// decode reads a table held in a string. Keys, relation targets and
// irregular forms are substrings of raw, so decoding allocates only the
// per-key arrays and the relation slab.
func decode(raw string) (*Table, error) {
	if !strings.HasPrefix(raw, Magic) {
		return nil, errors.New("wordnet table: not a herd wordnet table (bad magic)")
	}
	d := &decoder{b: raw, off: len(Magic)}

	nKeys := d.count(2, "keys")
	t := &Table{keys: make([]string, nKeys)}
	for i := 0; i < nKeys && d.err == nil; i++ {
		t.keys[i] = d.str(d.uvarint("key length"), "key")
		if d.err == nil && i > 0 && t.keys[i-1] >= t.keys[i] {
			return nil, fmt.Errorf("wordnet table: keys out of order at %q", t.keys[i])
		}
	}

	nRels := d.count(3, "relations")
	t.rels = make([]Relation, nRels)
	t.pos = make([]POS, nKeys)
	t.shares = make([][4]uint8, nKeys)
	t.relStart = make([]uint32, nKeys+1)
	r := 0
	for i := 0; i < nKeys && d.err == nil; i++ {
		mask := POS(d.byte("parts of speech"))
		if mask > Noun|Verb|Adj|Adv {
			d.fail("parts of speech")
			break
		}
		t.pos[i] = mask
		for b := 0; b < 4; b++ {
			if mask&(1<<b) != 0 {
				t.shares[i][b] = d.byte("share")
			}
		}
		t.relStart[i] = uint32(r)
		n := d.count(3, "key relations")
		if n > nRels-r {
			d.fail("relation count")
			break
		}
		if !d.relations(t.rels[r:r+n], t.keys) {
			break
		}
		r += n
	}
	t.relStart[nKeys] = uint32(r)
	if d.err == nil && r != nRels {
		d.fail("relation total")
	}

	nExc := d.count(2, "exceptions")
	t.excForms = make([]string, 0, nExc)
	t.excKeys = make([]string, 0, nExc)
	for i := 0; i < nExc && d.err == nil; i++ {
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
	return t, nil
}

// weights maps a stored weight byte to its value.
var weights = func() (w [256]float64) {
	for i := range w {
		w[i] = float64(i) / 255
	}
	return w
}()

// relations decodes len(out) relations, each a target key index (uvarint),
// a byte of kind<<2 | part-of-speech bit number, and a weight byte. It is
// the loop the load time is spent in, so it reads the string directly.
func (d *decoder) relations(out []Relation, keys []string) bool {
	b, off := d.b, d.off
	for j := range out {
		var to uint64
		for shift := uint(0); ; shift += 7 {
			if off >= len(b) || shift > 28 {
				d.off = off
				d.fail("relation target")
				return false
			}
			c := b[off]
			off++
			to |= uint64(c&0x7f) << shift
			if c < 0x80 {
				break
			}
		}
		if off+2 > len(b) || to >= uint64(len(keys)) {
			d.off = off
			d.fail("relation")
			return false
		}
		kp, w := b[off], b[off+1]
		off += 2
		kind := Kind(kp >> 2)
		if kind < Synonym || kind > Similar || w == 0 {
			d.off = off
			d.fail("relation kind or weight")
			return false
		}
		out[j] = Relation{To: keys[to], Kind: kind, POS: 1 << (kp & 3), Weight: weights[w]}
	}
	d.off = off
	return true
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
	if i := sort.SearchStrings(t.excForms, w); i < len(t.excForms) && t.excForms[i] == w {
		return t.excKeys[i]
	}
	return english.Stem(w, true)
}

// Relations is the package-level Relations on this table.
func (t *Table) Relations(key string) []Relation {
	i, ok := t.index(key)
	if !ok || t.relStart[i] == t.relStart[i+1] {
		return nil
	}
	return t.rels[t.relStart[i]:t.relStart[i+1]:t.relStart[i+1]]
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
	if i, ok := t.index(key); ok {
		return t.pos[i]
	}
	return 0
}

// POSShare is the package-level POSShare on this table.
func (t *Table) POSShare(key string, p POS) float64 {
	i, ok := t.index(key)
	if !ok {
		return 0
	}
	var sum float64
	for b := 0; b < 4; b++ {
		if p&(1<<b) != 0 {
			sum += float64(t.shares[i][b]) / 255
		}
	}
	return min(sum, 1)
}

// Phrases is the package-level Phrases on this table.
func (t *Table) Phrases() []Phrase {
	t.phrases.Do(func() {
		for i, k := range t.keys {
			if strings.IndexByte(k, ' ') >= 0 {
				t.phraseAll = append(t.phraseAll, Phrase{Key: k, Words: strings.Fields(k), POS: t.pos[i]})
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
