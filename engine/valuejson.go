package engine

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herd-sh/herd/internal/jsonstr"

	"cel.dev/cel-go/common/types"
)

// AppendValueJSON appends to b the JSON encoding of r.Value() — the very
// bytes json.Marshal(r.Value()) gives (keys sorted, HTML-safe escaping) —
// without building the maps: a served world encodes every answer, and a
// list of 20 records as maps cost a map per record, a box per field and a
// sort of the keys per map. It fails, as json.Marshal does, on a value JSON
// cannot hold (a NaN or infinite float).
func (r *Result) AppendValueJSON(b []byte) ([]byte, error) {
	var err error
	switch {
	case r.Records != nil:
		b = append(b, `{"count":`...)
		b = strconv.AppendInt(b, int64(len(r.Records)), 10)
		b = append(b, `,"items":[`...)
		var order []*Field
		for i, rec := range r.Records {
			if i > 0 {
				b = append(b, ',')
			}
			if i == 0 || rec.typ != r.Records[i-1].typ {
				order = sortedFields(rec.typ)
			}
			if b, err = rec.appendMapJSON(b, order); err != nil {
				return b, err
			}
		}
		return append(b, "]}"...), nil
	case r.Deleted != "":
		b = append(b, `{"deleted":`...)
		return append(jsonstr.Append(b, r.Deleted), '}'), nil
	case r.Record != nil:
		return r.Record.appendMapJSON(b, sortedFields(r.Record.typ))
	}
	return append(b, `{"ok":true}`...), nil
}

// sortedFields is t's fields in the order json.Marshal writes a map's keys.
func sortedFields(t *RecordType) []*Field {
	order := slices.Clone(t.Fields)
	slices.SortFunc(order, func(a, b *Field) int { return strings.Compare(a.Name, b.Name) })
	return order
}

// appendMapJSON appends json.Marshal(rec.Map()), fields in order (sorted by
// name).
func (rec *Record) appendMapJSON(b []byte, order []*Field) ([]byte, error) {
	b = append(b, '{')
	first := true
	for _, f := range order {
		v := rec.vals[f.Index]
		if v == nil {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = jsonstr.Append(b, f.Name)
		b = append(b, ':')
		switch x := v.(type) {
		case types.String:
			b = jsonstr.Append(b, string(x))
		case types.Int:
			b = strconv.AppendInt(b, int64(x), 10)
		case types.Bool:
			b = strconv.AppendBool(b, bool(x))
		case types.Double:
			var err error
			if b, err = appendJSONFloat(b, float64(x)); err != nil {
				return b, fmt.Errorf("field %s: %w", f.Name, err)
			}
		case types.Timestamp:
			// RFC 3339 has nothing to escape: digits, letters, - : . +
			b = append(b, '"')
			b = x.Time.UTC().AppendFormat(b, time.RFC3339Nano)
			b = append(b, '"')
		default:
			// No field holds another kind; should one, encode it as Map does.
			enc, err := json.Marshal(jsonValue(v))
			if err != nil {
				return b, fmt.Errorf("field %s: %w", f.Name, err)
			}
			b = append(b, enc...)
		}
	}
	return append(b, '}'), nil
}

// appendJSONFloat is encoding/json's float64 encoding: as ES6 formats a
// number, exponents unpadded.
func appendJSONFloat(b []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, fmt.Errorf("json: unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// e-09 → e-9
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, nil
}
