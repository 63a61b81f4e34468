package scaffold

import (
	"fmt"
	"sort"
	"time"
)

// Sampleable reports whether calling a tool once to see its answer is
// safe: the server says it only reads (readOnlyHint) and stays inside its
// own world (openWorldHint false, stated — the spec's default is true),
// and it needs no argument herd would have to invent.
func (op *Op) Sampleable() bool {
	h := op.Hints
	if h == nil || !h.ReadOnly || h.OpenWorld {
		return false
	}
	for _, p := range op.Input.Properties {
		if p.Required {
			return false
		}
	}
	return true
}

// AddSample gives the source what one read-only call to a tool answered
// (a decoded JSON value: the call's structured content, or its text read
// as JSON). When the tool declares no output schema, the answer's shape
// is its output schema, and so the record types it lists are found as if
// declared. A declared schema wins: it says what every answer holds.
func (s *Source) AddSample(tool string, answer any) error {
	for i := range s.Ops {
		op := &s.Ops[i]
		if op.Name != tool {
			continue
		}
		if op.Output == nil && answer != nil {
			op.Output = schemaFromValue(answer, 0)
			op.sampled = true
		}
		return nil
	}
	return fmt.Errorf("%s has no tool %q", s.From, tool)
}

// maxSampleItems bounds how many elements of a list are read to learn
// its items' shape.
const maxSampleItems = 50

// schemaFromValue is the schema a JSON value has.
func schemaFromValue(v any, depth int) *Schema {
	s := &Schema{}
	if depth > maxSchemaDepth {
		return s
	}
	switch x := v.(type) {
	case map[string]any:
		s.Type = "object"
		names := make([]string, 0, len(x))
		for k := range x {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, n := range names {
			s.Properties = append(s.Properties, Property{Name: n, Schema: schemaFromValue(x[n], depth+1)})
		}
	case []any:
		s.Type = "array"
		var items *Schema
		for i, e := range x {
			if i == maxSampleItems {
				break
			}
			items = mergeSchemas(items, schemaFromValue(e, depth+1))
		}
		s.Items = items
	case string:
		s.Type = "string"
		if _, err := time.Parse(time.RFC3339, x); err == nil {
			s.Format = "date-time"
		}
	case float64:
		s.Type = "number"
		if x == float64(int64(x)) {
			s.Type = "integer"
		}
	case bool:
		s.Type = "boolean"
	}
	return s
}

// mergeSchemas is the schema of values of either shape: the union of two
// objects' properties, the wider of two number types.
func mergeSchemas(a, b *Schema) *Schema {
	switch {
	case a == nil || a.Type == "":
		return b
	case b == nil || b.Type == "":
		return a
	case a.Type == "integer" && b.Type == "number":
		return b
	case a.Type != "object" || b.Type != "object":
		return a
	}
	out := &Schema{Type: "object", Properties: append([]Property{}, a.Properties...)}
	for _, p := range b.Properties {
		if have := out.Prop(p.Name); have != nil {
			have.Schema = mergeSchemas(have.Schema, p.Schema)
		} else {
			out.Properties = append(out.Properties, p)
		}
	}
	sort.Slice(out.Properties, func(i, j int) bool { return out.Properties[i].Name < out.Properties[j].Name })
	return out
}
