package engine

import "math"

// InputSchema returns the JSON Schema (draft 2020-12) of the tool's
// arguments, as an MCP client sees it in tools/list. It is built from the
// params alone and says exactly what Session.Call accepts: the same types,
// required params, enum values and bounds, and no other properties. The maps
// hold only JSON-ready values (string, float64, int64, bool, []any,
// map[string]any), so encoding/json writes the same bytes every time (it
// sorts map keys).
func (t *Tool) InputSchema() map[string]any {
	props := make(map[string]any, len(t.Params))
	required := make([]any, 0, len(t.Params))
	for _, p := range t.Params {
		props[p.Name] = p.schema()
		if p.Required {
			required = append(required, p.Name)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"additionalProperties": false,
	}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// schema is one param's JSON Schema.
func (p *Param) schema() map[string]any {
	s := map[string]any{}
	switch p.Type {
	case ParamStr:
		s["type"] = "string"
		// For strings, min and max bound the length (in characters, which is
		// what JSON Schema counts and what Param.convert checks).
		if p.Min != nil {
			s["minLength"] = schemaLength(math.Ceil(*p.Min))
		}
		if p.Max != nil {
			s["maxLength"] = schemaLength(math.Floor(*p.Max))
		}
	case ParamEnum:
		s["type"] = "string"
		values := make([]any, len(p.Values))
		for i, v := range p.Values {
			values[i] = v
		}
		s["enum"] = values
	case ParamInt:
		s["type"] = "integer"
		p.schemaBounds(s)
	case ParamFloat:
		s["type"] = "number"
		p.schemaBounds(s)
	case ParamBool:
		s["type"] = "boolean"
	}
	if p.Description != "" {
		s["description"] = p.Description
	}
	if p.Default != nil {
		s["default"] = p.Default
	}
	return s
}

func (p *Param) schemaBounds(s map[string]any) {
	if p.Min != nil {
		s["minimum"] = schemaNumber(*p.Min)
	}
	if p.Max != nil {
		s["maximum"] = schemaNumber(*p.Max)
	}
}

// schemaNumber writes whole bounds as integers ("minimum": 1, not 1.0 — the
// same on the wire, but clearer to a human reading tools/list).
func schemaNumber(f float64) any {
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return int64(f)
	}
	return f
}

// schemaLength is a length bound: a count of characters, so a whole number
// that is not negative.
func schemaLength(f float64) int64 {
	if f < 0 {
		return 0
	}
	return int64(f)
}
