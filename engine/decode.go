package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// DecodeRecord parses one record of type t from its JSON — the shape
// Record.MarshalJSON and Record.Map write, which is what a served world's
// tool results carry and what a snapshot holds. A client of a served world
// uses it to hold the records it was given as the same Records an
// in-process caller gets, so that code reading them (the persona agents)
// runs unchanged over MCP. Fields are checked as a write's are: unknown
// fields, wrong types and out-of-bounds values are errors, and the id
// must be present.
func (t *RecordType) DecodeRecord(data []byte) (*Record, error) {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return t.RecordFromJSON(m)
}

// RecordFromJSON is DecodeRecord for a JSON object already decoded into Go
// values, as encoding/json leaves them in a map[string]any (numbers as
// float64, or json.Number with UseNumber): an MCP client has decoded a
// result's structured content once already, and need not parse it again.
// An integer decoded as a float64 of 2^53 or more is refused: it may
// have been rounded.
func (t *RecordType) RecordFromJSON(m map[string]any) (*Record, error) {
	r := newRecord(t, "")
	// Fields in declaration order, so that a record with several problems
	// always reports the same one.
	known := 0
	for _, f := range t.Fields {
		v, ok := m[f.Name]
		if !ok {
			continue
		}
		known++
		cv, err := fieldFromJSON(f, v)
		if err != nil {
			return nil, fmt.Errorf("field %s: %w", f.Name, err)
		}
		r.vals[f.Index] = cv
	}
	if known < len(m) {
		var unknown []string
		for k := range m {
			if t.byName[k] == nil {
				unknown = append(unknown, k)
			}
		}
		return nil, fmt.Errorf("unknown field %q", slices.Min(unknown))
	}
	id, ok := r.vals[t.idField.Index].(types.String)
	if !ok || id == "" {
		return nil, fmt.Errorf("missing id")
	}
	r.id = string(id)
	for _, f := range t.Fields {
		if v := r.vals[f.Index]; v != nil {
			if terr := checkFieldValue(r, f, v); terr != nil {
				return nil, errors.New(terr.Message)
			}
		}
	}
	return r, nil
}

// fieldFromJSON converts a JSON value to a field's value.
func fieldFromJSON(f *Field, v any) (ref.Val, error) {
	switch f.Type {
	case FieldStr, FieldEnum, FieldRef, FieldID:
		if s, ok := v.(string); ok {
			return types.String(s), nil
		}
		return nil, fmt.Errorf("want a string, got %s", jsonKind(v))
	case FieldBool:
		if b, ok := v.(bool); ok {
			return types.Bool(b), nil
		}
		return nil, fmt.Errorf("want a bool, got %s", jsonKind(v))
	case FieldInt:
		switch n := v.(type) {
		case json.Number:
			if i, err := n.Int64(); err == nil {
				return types.Int(i), nil
			}
			return nil, fmt.Errorf("want an integer, got %s", n)
		case float64:
			// A decoder without UseNumber: exact only below 2^53 (2^53+1
			// decodes as 2^53 too).
			if n != math.Trunc(n) || math.Abs(n) >= maxExactInt {
				return nil, fmt.Errorf("want an integer below 2^53 in magnitude (decoded as a float), got %v", n)
			}
			return types.Int(int64(n)), nil
		}
		return nil, fmt.Errorf("want an integer, got %s", jsonKind(v))
	case FieldFloat:
		switch n := v.(type) {
		case json.Number:
			if x, err := n.Float64(); err == nil {
				return types.Double(x), nil
			}
			return nil, fmt.Errorf("want a number, got %s", n)
		case float64:
			return types.Double(n), nil
		}
		return nil, fmt.Errorf("want a number, got %s", jsonKind(v))
	case FieldDatetime:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("want an RFC 3339 time, got %s", jsonKind(v))
		}
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			return nil, fmt.Errorf("want an RFC 3339 time, got %q", s)
		}
		return types.Timestamp{Time: t.UTC()}, nil
	}
	return nil, fmt.Errorf("unsupported field type %s", f.Type)
}
