package personas

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode"
)

// schema is a JSON Schema as a tool list carries it (decoded JSON).
type schema = map[string]any

// Limits on what a schema can ask for. The schema comes from the server
// under test, which may ask for anything — a minItems of ten million, a
// negative maxLength, integer bounds past int64 — and must get a bounded
// value, never a panic.
const (
	maxStringLen  = 10_000
	maxArrayItems = 100
	// maxExactInt is the largest integer a JSON number holds exactly
	// (2^53); integer bounds are clamped to ±maxExactInt, so that the
	// span between them fits an int64.
	maxExactInt = 1 << 53
)

// toSchema reads a tool's input schema, whatever Go shape the SDK gave it.
func toSchema(v any) schema {
	if m, ok := v.(map[string]any); ok {
		return m
	}
	return nil
}

// schemaType is the schema's type: the first non-null one of a list; ""
// when it names none (then its enum or const decides).
func schemaType(s schema) string {
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		for _, x := range t {
			if str, ok := x.(string); ok && str != "null" {
				return str
			}
		}
	}
	if _, ok := s["properties"]; ok {
		return "object"
	}
	return ""
}

// firstOption is the schema itself, or its first anyOf/oneOf/allOf branch.
func firstOption(s schema) schema {
	for _, k := range []string{"anyOf", "oneOf", "allOf"} {
		if opts, ok := s[k].([]any); ok && len(opts) > 0 {
			if o, ok := opts[0].(map[string]any); ok {
				return o
			}
		}
	}
	return s
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

// SchemaProperties reads an object schema (JSON Schema as decoded into
// maps): its properties, their names in order, and the required ones.
// Both the argument generator and the CLI's lint of a server's tools read
// schemas through it.
func SchemaProperties(s map[string]any) (props map[string]any, names []string, required []string) {
	props, _ = s["properties"].(map[string]any)
	for n := range props {
		names = append(names, n)
	}
	slices.Sort(names)
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if str, ok := r.(string); ok {
				required = append(required, str)
			}
		}
	}
	return props, names, required
}

// validArgs makes arguments the schema accepts: every required property,
// each optional one with probability one half; values within enums,
// bounds, lengths and formats. With boundary, numbers sit on their bounds
// and strings at their length limits — valid, and where servers break.
func validArgs(s schema, rng *rand.Rand, boundary bool) map[string]any {
	m := argMaker{rng: rng, boundary: boundary}
	return m.object(s, 0)
}

// argMaker draws one call's arguments. Where the run has learned real
// values for a property (known, from earlier answers), it uses one of
// them most of the time; guessed says some string value was not fixed by
// the schema (an enum, a const, a default).
type argMaker struct {
	rng      *rand.Rand
	boundary bool
	known    *Known
	guessed  bool
}

// object draws an object schema's properties.
func (m *argMaker) object(s schema, depth int) map[string]any {
	args := map[string]any{}
	props, names, required := SchemaProperties(firstOption(s))
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		if !slices.Contains(required, n) && m.rng.IntN(2) == 0 {
			continue
		}
		args[n] = m.value(n, ps, depth)
	}
	return args
}

func validValue(s schema, rng *rand.Rand, boundary bool, depth int) any {
	m := argMaker{rng: rng, boundary: boundary}
	return m.value("", s, depth)
}

// value draws a value of schema s for the property called name ("" for
// an array's items).
func (m *argMaker) value(name string, s schema, depth int) any {
	rng, boundary := m.rng, m.boundary
	s = firstOption(s)
	if c, ok := s["const"]; ok {
		return c
	}
	if e, ok := s["enum"].([]any); ok && len(e) > 0 {
		return e[rng.IntN(len(e))]
	}
	slow := slowLimit(name)
	if d, ok := s["default"]; ok && rng.IntN(4) == 0 && slow == nil {
		return d
	}
	switch schemaType(s) {
	case "integer":
		lo, hi := bounds(s, true)
		lo, hi = slow.clamp(lo, hi)
		if boundary {
			return int64(pick2(rng, lo, hi))
		}
		return int64(lo) + rng.Int64N(int64(hi-lo)+1)
	case "number":
		lo, hi := bounds(s, false)
		lo, hi = slow.clamp(lo, hi)
		if slow != nil && slow.count {
			// A number of steps is drawn whole: 0.05 steps of a
			// 2-second job is one step of 40 seconds.
			return math.Floor(lo + rng.Float64()*(hi-lo+1-1e-9))
		}
		if boundary {
			return pick2(rng, lo, hi)
		}
		// Two decimals read well; rounding must not leave the bounds
		// (an exclusive minimum of 0 is 0.001 here).
		return min(max(math.Round((lo+rng.Float64()*(hi-lo))*100)/100, lo), hi)
	case "boolean":
		return rng.IntN(2) == 0
	case "array":
		items, _ := s["items"].(map[string]any)
		lo, _ := number(s["minItems"])
		lo = min(max(lo, 0), maxArrayItems)
		hi := 3.0
		if mx, ok := number(s["maxItems"]); ok {
			hi = min(hi, mx)
		}
		n := int(lo)
		if hi > lo {
			n += rng.IntN(int(hi-lo) + 1)
		}
		out := make([]any, n)
		for i := range out {
			if depth > 4 {
				out[i] = "x"
				continue
			}
			// An array's items are named after the array (paths, ids).
			out[i] = m.value(name, items, depth+1)
		}
		return out
	case "object":
		if depth > 4 {
			return map[string]any{}
		}
		return m.object(s, depth+1)
	case "null":
		return nil
	}
	// A string is a guess, learnt or made up: a server that says the id
	// or path is not found (or is a directory, or exists already) is
	// right to.
	m.guessed = true
	if v, ok := m.known.pick(name, s, rng); ok && rng.IntN(4) != 0 {
		return v
	}
	return validString(s, rng, boundary)
}

// slowLimits are the largest values the exerciser sends a number whose
// name says it is a wait or an amount of work (count: a whole number of
// steps, at least one): a schema that allows a 100-second "duration" is
// right to, but a call that asks for it measures the exerciser's
// patience, not the server. The first matching name part wins.
var slowLimits = []slowNumber{
	{"millis", 500, false}, {"ms", 500, false},
	{"duration", 2, false}, {"seconds", 2, false}, {"secs", 2, false}, {"timeout", 2, false}, {"delay", 2, false},
	{"sleep", 2, false}, {"wait", 2, false}, {"interval", 2, false},
	{"steps", 3, true}, {"iterations", 3, true}, {"repeat", 3, true}, {"count", 5, true},
}

// slowNumber is a kind of number the exerciser keeps small.
type slowNumber struct {
	part  string
	limit float64
	count bool
}

// slowLimit is the limit on a number called name (nil: none).
func slowLimit(name string) *slowNumber {
	if name == "" {
		return nil
	}
	for _, part := range nameParts(name) {
		for i := range slowLimits {
			if part == slowLimits[i].part {
				return &slowLimits[i]
			}
		}
	}
	return nil
}

// clamp lowers a number's upper bound to the limit (never below its lower
// bound, so that the value stays valid) and raises a count's lower bound
// to one where the schema allows it. A nil limit changes nothing.
func (l *slowNumber) clamp(lo, hi float64) (float64, float64) {
	if l == nil {
		return lo, hi
	}
	hi = min(hi, max(l.limit, lo))
	if l.count && lo < 1 && hi >= 1 {
		lo = 1
	}
	return lo, hi
}

// nameParts splits a property name into lower-case words: camelCase,
// snake_case and kebab-case ("durationMs" is duration, ms).
func nameParts(name string) []string {
	var parts []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			parts = append(parts, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	prevLower := false
	for _, r := range name {
		switch {
		case r == '_' || r == '-' || r == '.' || r == ' ':
			flush()
			prevLower = false
			continue
		case unicode.IsUpper(r) && prevLower:
			flush()
		}
		cur = append(cur, r)
		prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
	}
	flush()
	return parts
}

// bounds are a number schema's inclusive limits (default 0 to 100).
func bounds(s schema, integer bool) (lo, hi float64) {
	lo, hi = 0, 100
	step := 1e-3
	if integer {
		step = 1
	}
	if v, ok := number(s["minimum"]); ok {
		lo = v
	}
	if v, ok := number(s["exclusiveMinimum"]); ok {
		lo = v + step
	}
	if v, ok := number(s["maximum"]); ok {
		hi = v
	} else if lo > hi {
		hi = lo + 100
	}
	if v, ok := number(s["exclusiveMaximum"]); ok {
		hi = v - step
	}
	if _, ok := s["minimum"]; !ok && hi < lo {
		lo = hi - 100
	}
	if integer {
		lo = min(max(math.Ceil(lo), -maxExactInt), maxExactInt)
		hi = min(max(math.Floor(hi), -maxExactInt), maxExactInt)
	}
	if hi < lo {
		hi = lo
	}
	return lo, hi
}

func pick2(rng *rand.Rand, a, b float64) float64 {
	if rng.IntN(2) == 0 {
		return a
	}
	return b
}

var words = []string{"alpha", "harbor", "copper", "meadow", "signal", "orbit", "lantern", "violet", "summit", "delta"}

func validString(s schema, rng *rand.Rand, boundary bool) string {
	switch s["format"] {
	case "date-time":
		return time.Date(2025, time.Month(1+rng.IntN(12)), 1+rng.IntN(28), rng.IntN(24), 0, 0, 0, time.UTC).Format(time.RFC3339)
	case "date":
		return fmt.Sprintf("2025-%02d-%02d", 1+rng.IntN(12), 1+rng.IntN(28))
	case "email":
		return fmt.Sprintf("%s%d@example.com", words[rng.IntN(len(words))], rng.IntN(1000))
	case "uri", "url":
		return fmt.Sprintf("https://example.com/%s", words[rng.IntN(len(words))])
	case "uuid":
		return fmt.Sprintf("%08x-%04x-4%03x-8%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Int64N(1<<48))
	}
	lo, hasLo := number(s["minLength"])
	hi, hasHi := number(s["maxLength"])
	if !hasHi {
		hi = max(lo, 24)
	}
	w := words[rng.IntN(len(words))]
	if rng.IntN(2) == 0 {
		w += " " + words[rng.IntN(len(words))]
	}
	n := float64(len(w))
	if boundary && (hasLo || hasHi) {
		n = pick2(rng, lo, hi)
	}
	k := int(max(min(max(n, lo), hi, maxStringLen), 0))
	if k > len(w) {
		w += strings.Repeat("x", k-len(w))
	}
	return w[:k]
}

// mutation is one way to make a tool's arguments invalid by its schema.
type mutation struct {
	name  string
	apply func(args map[string]any, rng *rand.Rand)
}

// invalidArgs makes arguments the schema refuses, and says how: a missing
// required property, a wrong type, a number out of bounds, a value not in
// an enum, an unknown property where none is allowed. ok is false when the
// schema refuses nothing a client can send (no properties, extras allowed).
func invalidArgs(s schema, rng *rand.Rand) (args map[string]any, how string, ok bool) {
	s = firstOption(s)
	props, names, required := SchemaProperties(s)
	var ms []mutation
	if len(required) > 0 {
		ms = append(ms, mutation{"missing required " + strings.Join(required, ", "), func(a map[string]any, r *rand.Rand) {
			delete(a, required[r.IntN(len(required))])
		}})
	}
	for _, n := range names {
		ps, _ := props[n].(map[string]any)
		ps = firstOption(ps)
		t := schemaType(ps)
		if t != "" {
			ms = append(ms, mutation{"wrong type for " + n, func(a map[string]any, _ *rand.Rand) { a[n] = wrongTypeFor(t) }})
		}
		if e, ok := ps["enum"].([]any); ok && len(e) > 0 {
			ms = append(ms, mutation{n + " not in its enum", func(a map[string]any, _ *rand.Rand) { a[n] = "no-such-value-\u2603" }})
		}
		if v, ok := number(ps["minimum"]); ok {
			ms = append(ms, mutation{n + " below its minimum", func(a map[string]any, _ *rand.Rand) { a[n] = v - 1 }})
		}
		if v, ok := number(ps["maximum"]); ok {
			ms = append(ms, mutation{n + " above its maximum", func(a map[string]any, _ *rand.Rand) { a[n] = v + 1 }})
		}
		if v, ok := number(ps["maxLength"]); ok && v >= 0 && v < 5000 {
			ms = append(ms, mutation{n + " longer than its maxLength", func(a map[string]any, _ *rand.Rand) {
				a[n] = strings.Repeat("x", int(v)+1)
			}})
		}
	}
	if ap, ok := s["additionalProperties"].(bool); ok && !ap {
		ms = append(ms, mutation{"unknown property", func(a map[string]any, _ *rand.Rand) { a["x_herd_unknown"] = true }})
	}
	if len(ms) == 0 {
		return nil, "", false
	}
	m := ms[rng.IntN(len(ms))]
	args = validArgs(s, rng, false)
	for _, r := range required { // the mutation, not a missing value, must be what is wrong
		if _, present := args[r]; !present {
			ps, _ := props[r].(map[string]any)
			args[r] = validValue(ps, rng, false, 0)
		}
	}
	m.apply(args, rng)
	return args, m.name, true
}

func wrongTypeFor(t string) any {
	switch t {
	case "string":
		return 12345
	case "integer", "number":
		return "lots"
	case "boolean":
		return "yes"
	case "array":
		return "not-an-array"
	case "object":
		return "not-an-object"
	}
	return []any{1, 2}
}
