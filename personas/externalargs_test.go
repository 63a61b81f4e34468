package personas

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

var testSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"n":     map[string]any{"type": "integer", "minimum": 3.0, "maximum": 9.0},
		"mode":  map[string]any{"type": "string", "enum": []any{"fast", "slow"}},
		"when":  map[string]any{"type": "string", "format": "date-time"},
		"name":  map[string]any{"type": "string", "minLength": 2.0, "maxLength": 5.0},
		"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 2.0},
		"ratio": map[string]any{"type": []any{"number", "null"}, "exclusiveMinimum": 0.0, "maximum": 1.0},
	},
	"required":             []any{"n", "mode"},
	"additionalProperties": false,
}

// Generated arguments satisfy the schema: required present, values within
// enums, bounds, formats and lengths — on the bounds too.
func TestValidArgs(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 500 {
		a := validArgs(testSchema, rng, i%2 == 0)
		n, ok := a["n"].(int64)
		if !ok || n < 3 || n > 9 {
			t.Fatalf("n = %v", a["n"])
		}
		if m := a["mode"]; m != "fast" && m != "slow" {
			t.Fatalf("mode = %v", m)
		}
		if w, ok := a["when"]; ok {
			if _, err := time.Parse(time.RFC3339, w.(string)); err != nil {
				t.Fatalf("when = %v", w)
			}
		}
		if s, ok := a["name"]; ok && (len(s.(string)) < 2 || len(s.(string)) > 5) {
			t.Fatalf("name = %q", s)
		}
		if tg, ok := a["tags"]; ok && len(tg.([]any)) > 2 {
			t.Fatalf("tags = %v", tg)
		}
		if r, ok := a["ratio"]; ok && (r.(float64) <= 0 || r.(float64) > 1) {
			t.Fatalf("ratio = %v", r)
		}
		for k := range a {
			if _, known := testSchema["properties"].(map[string]any)[k]; !known {
				t.Fatalf("unknown property %q", k)
			}
		}
	}
}

// Every mutation breaks the schema in the way it says.
func TestInvalidArgs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	seen := map[string]bool{}
	for range 400 {
		a, how, ok := invalidArgs(testSchema, rng)
		if !ok {
			t.Fatal("no mutation for a schema with constraints")
		}
		seen[strings.Fields(how)[0]] = true
		broken := false
		switch {
		case strings.HasPrefix(how, "missing required"):
			_, hasN := a["n"]
			_, hasMode := a["mode"]
			broken = !hasN || !hasMode
		case how == "unknown property":
			_, broken = a["x_herd_unknown"]
		case strings.HasPrefix(how, "wrong type for "):
			p := strings.TrimPrefix(how, "wrong type for ")
			switch p {
			case "n", "ratio", "tags":
				_, broken = a[p].(string)
			default:
				_, isStr := a[p].(string)
				broken = !isStr
			}
		case strings.Contains(how, "below its minimum"):
			broken = a["n"].(float64) < 3
		case strings.Contains(how, "above its maximum"):
			p := strings.Fields(how)[0]
			v, _ := number(a[p])
			limit, _ := number(testSchema["properties"].(map[string]any)[p].(map[string]any)["maximum"])
			broken = v > limit
		case strings.Contains(how, "not in its enum"):
			broken = a["mode"] != "fast" && a["mode"] != "slow"
		case strings.Contains(how, "longer than"):
			broken = len(a["name"].(string)) > 5
		}
		if !broken {
			t.Fatalf("%q did not break the arguments: %v", how, a)
		}
	}
	if len(seen) < 5 {
		t.Errorf("mutations seen: %v", seen)
	}
	if _, _, ok := invalidArgs(map[string]any{"type": "object"}, rng); ok {
		t.Error("a schema that refuses nothing got a mutation")
	}
}

// A schema comes from the server under test and may ask for anything: the
// arguments made from it stay bounded, and nothing panics.
func TestArgsFromHostileSchemas(t *testing.T) {
	prop := func(p map[string]any) map[string]any {
		return map[string]any{"type": "object", "properties": map[string]any{"x": p}, "required": []any{"x"}}
	}
	for name, s := range map[string]map[string]any{
		"int64 bounds":      prop(map[string]any{"type": "integer", "minimum": -9.2e18, "maximum": 9.2e18}),
		"huge int bounds":   prop(map[string]any{"type": "integer", "minimum": -1e300, "maximum": 1e300}),
		"negative lengths":  prop(map[string]any{"type": "string", "minLength": -5.0, "maxLength": -3.0}),
		"huge minLength":    prop(map[string]any{"type": "string", "minLength": 1e12}),
		"huge minItems":     prop(map[string]any{"type": "array", "minItems": 1e12}),
		"negative minItems": prop(map[string]any{"type": "array", "minItems": -1e9, "maxItems": 3.0}),
	} {
		rng := rand.New(rand.NewPCG(5, 6))
		for i := range 50 {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s: panic: %v", name, r)
					}
				}()
				a := validArgs(s, rng, i%2 == 0)
				switch x := a["x"].(type) {
				case int64:
					if x < -maxExactInt || x > maxExactInt {
						t.Fatalf("%s: integer %d past ±2^53", name, x)
					}
				case string:
					if len(x) > maxStringLen {
						t.Fatalf("%s: a string of %d bytes", name, len(x))
					}
				case []any:
					if len(x) > maxArrayItems {
						t.Fatalf("%s: an array of %d items", name, len(x))
					}
				default:
					t.Fatalf("%s: x = %v (%T)", name, a["x"], a["x"])
				}
				invalidArgs(s, rng)
			}()
		}
	}
}
