package personas

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"sync"
	"unicode"
)

// An exerciser that invents an id or a path gets "not found" — a correct
// answer, but one that tests little. So a run keeps the values it sees in
// answers (the ids a list returns, the paths a search finds) under the
// names of the fields that carried them, and an exerciser filling a
// property of that name uses one of them most of the time: it calls
// get_item with an item a list_items answered, as an agent would.

// Bounds on what a run learns: a server's answers may be huge, and any
// number of them.
const (
	maxKnownKeys     = 128
	maxKnownPerKey   = 32
	maxKnownValueLen = 512
	maxLearnBytes    = 64 << 10 // of an answer's text
	maxLearnDepth    = 8
	maxLearnValues   = 256 // per answer
)

// Known holds the values a run has seen in a server's answers, by field
// name. It is shared by every agent of a run and safe for concurrent use;
// the zero value is not usable (NewKnown), and a nil *Known knows nothing.
type Known struct {
	mu    sync.Mutex
	byKey map[string]*ring
}

// ring keeps the latest values of one key (writes make new ones, deletes
// retire old ones: recent values are likelier to exist).
type ring struct {
	vals []string
	next int
}

func (r *ring) add(v string) {
	for _, x := range r.vals {
		if x == v {
			return
		}
	}
	if len(r.vals) < maxKnownPerKey {
		r.vals = append(r.vals, v)
		return
	}
	r.vals[r.next] = v
	r.next = (r.next + 1) % maxKnownPerKey
}

// NewKnown is an empty store.
func NewKnown() *Known { return &Known{byKey: map[string]*ring{}} }

// Learn keeps the values of an answer: string fields of its structured
// content and of its text when that is JSON, by field name, and lines of
// its text that are absolute paths, as "path".
func (k *Known) Learn(a Answer) {
	if k == nil || a.Kind != AnswerResult {
		return
	}
	var found []keyValue
	add := func(key, v string) {
		if len(found) < maxLearnValues && v != "" && len(v) <= maxKnownValueLen {
			found = append(found, keyValue{key, v})
		}
	}
	if a.Data != nil {
		walkValues("", a.Data, 0, add)
	}
	text := a.Text
	if len(text) > maxLearnBytes {
		text = text[:maxLearnBytes]
	}
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "{") || strings.HasPrefix(t, "[") {
		var v any
		if json.Unmarshal([]byte(t), &v) == nil {
			walkValues("", v, 0, add)
		}
	}
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "/") && !strings.ContainsAny(line, "\t\"'<>|*") {
			add("path", line)
		}
	}
	if len(found) == 0 {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, f := range found {
		r := k.byKey[f.key]
		if r == nil {
			if len(k.byKey) >= maxKnownKeys {
				continue
			}
			r = &ring{}
			k.byKey[f.key] = r
		}
		r.add(f.v)
	}
}

type keyValue struct{ key, v string }

// walkValues calls add for every string (or string in an array) held by a
// named field of v, under each key the field's name gives.
func walkValues(field string, v any, depth int, add func(key, v string)) {
	if depth > maxLearnDepth {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		for name, fv := range x {
			walkValues(name, fv, depth+1, add)
		}
	case []any:
		for _, e := range x {
			walkValues(field, e, depth+1, add)
		}
	case string:
		if field != "" {
			for _, key := range keysOf(field) {
				add(key, x)
			}
		}
	}
}

// keysOf are the keys a field or property name files under: the whole
// name, normalized, and its last word (entityName is entityname and
// name; ids is id). A name that says path, file or directory is a path.
func keysOf(name string) []string {
	parts := nameParts(name)
	if len(parts) == 0 {
		return nil
	}
	for i, p := range parts {
		parts[i] = singular(p)
	}
	keys := []string{strings.Join(parts, "")}
	if last := parts[len(parts)-1]; last != keys[0] {
		keys = append(keys, last)
	}
	for _, p := range parts {
		switch p {
		case "path", "file", "filename", "filepath", "dir", "directory", "folder", "source", "destination", "src", "dst", "root":
			if keys[0] != "path" {
				keys = append(keys, "path")
			}
			return keys
		}
	}
	return keys
}

// singular drops a plural "s" (names, ids; not "status" or "class").
func singular(w string) string {
	if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") {
		return w[:len(w)-1]
	}
	if w == "ids" {
		return "id"
	}
	return w
}

// pick is a known value for the property called name that fits the
// string schema s, if the run has one.
func (k *Known) pick(name string, s schema, rng *rand.Rand) (string, bool) {
	if k == nil || name == "" {
		return "", false
	}
	if _, ok := s["format"]; ok {
		return "", false // a date or an email is drawn as one
	}
	if _, ok := s["pattern"]; ok {
		return "", false
	}
	lo, hasLo := number(s["minLength"])
	hi, hasHi := number(s["maxLength"])
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range keysOf(name) {
		r := k.byKey[key]
		if r == nil {
			continue
		}
		var fit []string
		for _, v := range r.vals {
			n := float64(len([]rune(v)))
			if (!hasLo || n >= lo) && (!hasHi || n <= hi) && !strings.ContainsFunc(v, unicode.IsControl) {
				fit = append(fit, v)
			}
		}
		if len(fit) > 0 {
			return fit[rng.IntN(len(fit))], true
		}
	}
	return "", false
}
