package engine

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// Record is one record of the world. Records are immutable once stored: a
// write makes a new Record in the session's overlay, so the base and other
// sessions never see it. Field values are CEL values (types.String,
// types.Int, types.Double, types.Bool, types.Timestamp), positional by
// Field.Index; nil means absent (a nullable field without a value).
type Record struct {
	typ  *RecordType
	id   string
	vals []ref.Val
}

// RecordType returns the record's type. (Type is CEL's.)
func (r *Record) RecordType() *RecordType { return r.typ }

// ID returns the record's id.
func (r *Record) ID() string { return r.id }

// Get returns a field as a Go value: string, int64, float64, bool,
// time.Time, or nil when absent or unknown.
func (r *Record) Get(field string) any {
	f := r.typ.byName[field]
	if f == nil {
		return nil
	}
	return goValue(r.vals[f.Index])
}

// Has reports whether the record has a value for field.
func (r *Record) Has(field string) bool {
	f := r.typ.byName[field]
	return f != nil && r.vals[f.Index] != nil
}

// String returns a field as text (empty when absent).
func (r *Record) String(field string) string {
	f := r.typ.byName[field]
	if f == nil {
		return ""
	}
	// Switch on the CEL value itself: going through Get would box every
	// string into an interface just to unbox it again.
	switch x := r.vals[f.Index].(type) {
	case types.String:
		return string(x)
	case types.Int:
		return strconv.FormatInt(int64(x), 10)
	case types.Double:
		return strconv.FormatFloat(float64(x), 'f', -1, 64)
	case types.Bool:
		return strconv.FormatBool(bool(x))
	case types.Timestamp:
		return x.Time.UTC().Format(time.RFC3339Nano)
	}
	return ""
}

// Map returns the record as a JSON-ready map (datetimes as RFC 3339).
func (r *Record) Map() map[string]any {
	m := make(map[string]any, len(r.vals))
	for i, f := range r.typ.Fields {
		if v := r.vals[i]; v != nil {
			m[f.Name] = jsonValue(v)
		}
	}
	return m
}

// MarshalJSON writes the record's fields in declaration order, so that the
// same state always serialises to the same bytes.
func (r *Record) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	r.appendJSON(&b)
	return b.Bytes(), nil
}

func (r *Record) appendJSON(b *bytes.Buffer) {
	b.WriteByte('{')
	first := true
	for i, f := range r.typ.Fields {
		v := r.vals[i]
		if v == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteString(strconv.Quote(f.Name))
		b.WriteByte(':')
		enc, _ := json.Marshal(jsonValue(v))
		b.Write(enc)
	}
	b.WriteByte('}')
}

func (r *Record) sameAs(o *Record) bool {
	if r == o {
		return true
	}
	if r.typ != o.typ || r.id != o.id {
		return false
	}
	for i, v := range r.vals {
		w := o.vals[i]
		if (v == nil) != (w == nil) {
			return false
		}
		if v != nil && v.Equal(w) != types.True {
			return false
		}
	}
	return true
}

// clone returns a copy of r that may be modified before it is stored.
func (r *Record) clone() *Record {
	c := newRecord(r.typ, r.id)
	copy(c.vals, r.vals)
	return c
}

// recordWith is a Record and room for its values, allocated together.
type recordWith[B any] struct {
	Record
	buf B
}

// newRecord allocates a record of t with no values. A record and its
// values are one allocation for types of up to 16 fields (most are): every
// write copies a record, so this halves the allocations of a call.
func newRecord(t *RecordType, id string) *Record {
	var r *Record
	switch n := len(t.Fields); {
	case n <= 4:
		x := new(recordWith[[4]ref.Val])
		x.vals = x.buf[:n:n]
		r = &x.Record
	case n <= 8:
		x := new(recordWith[[8]ref.Val])
		x.vals = x.buf[:n:n]
		r = &x.Record
	case n <= 16:
		x := new(recordWith[[16]ref.Val])
		x.vals = x.buf[:n:n]
		r = &x.Record
	default:
		r = &Record{vals: make([]ref.Val, n)}
	}
	r.typ, r.id = t, id
	return r
}

func goValue(v ref.Val) any {
	switch x := v.(type) {
	case nil:
		return nil
	case types.String:
		return string(x)
	case types.Int:
		return int64(x)
	case types.Double:
		return float64(x)
	case types.Bool:
		return bool(x)
	case types.Timestamp:
		return x.Time
	}
	return v.Value()
}

func jsonValue(v ref.Val) any {
	if t, ok := v.(types.Timestamp); ok {
		return t.Time.UTC().Format(time.RFC3339Nano)
	}
	return goValue(v)
}
