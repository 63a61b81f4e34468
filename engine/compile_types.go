package engine

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Record types and their fields: types, generators, bounds, defaults.

func (c *compiler) compileTypes() {
	w := c.w
	if len(c.spec.Types) == 0 {
		c.errorf(c.spec.Pos, "types: a world needs at least one record type")
	}
	for _, e := range c.spec.Types {
		c.checkName("type", e.Name, e.Pos)
		t := &RecordType{Name: e.Name, index: len(w.Types), byName: map[string]*Field{}}
		w.Types = append(w.Types, t)
		w.typeByName[e.Name] = t
		ts := e.Value
		if ts.Count.IsSet {
			n, err := strconv.Atoi(ts.Count.Raw)
			if err != nil || ts.Count.Tag != "!!int" || n < 0 || n > 100000 {
				c.errorf(ts.Count.Pos, "type %s: count must be a whole number from 0 to 100000, got %s", e.Name, quoteRaw(ts.Count))
			}
			t.Count = n
		}
		if len(ts.Fields) == 0 {
			c.errorf(e.Pos, "type %s: no fields", e.Name)
		}
		for _, fe := range ts.Fields {
			c.checkName("field", fe.Name, fe.Pos)
			f := c.compileField(t, fe)
			if f == nil {
				continue
			}
			f.Index = len(t.Fields)
			t.Fields = append(t.Fields, f)
			t.byName[f.Name] = f
			if f.Type == FieldID {
				if fe.Name != "id" {
					c.errorf(fe.Pos, "type %s: the id field must be named \"id\", not %q", e.Name, fe.Name)
				} else if t.idField != nil {
					c.errorf(fe.Pos, "type %s: more than one id field", e.Name)
				}
				t.idField = f
			}
		}
		if t.idField == nil && len(ts.Fields) > 0 {
			c.errorf(e.Pos, "type %s: needs a field `id: {type: id}`", e.Name)
		}
	}
}

func quoteRaw(s Scalar) string {
	if s.Tag == "!!str" {
		return strconv.Quote(s.Raw)
	}
	return s.Raw
}

var fieldTypeByName = map[string]FieldType{"str": FieldStr, "int": FieldInt, "float": FieldFloat, "bool": FieldBool,
	"datetime": FieldDatetime, "enum": FieldEnum, "ref": FieldRef, "id": FieldID}

func (c *compiler) compileField(t *RecordType, fe Entry[fieldSpec]) *Field {
	fs := fe.Value
	where := fmt.Sprintf("%s.%s", t.Name, fe.Name)
	ft, ok := fieldTypeByName[fs.Type.Raw]
	if !fs.Type.IsSet {
		c.errorf(fs.Pos, "field %s: missing \"type\" (one of str, int, float, bool, datetime, enum, ref, id)", where)
		return nil
	}
	if !ok {
		c.errorf(fs.Type.Pos, "field %s: unknown type %q (one of str, int, float, bool, datetime, enum, ref, id)", where, fs.Type.Raw)
		return nil
	}
	f := &Field{Name: fe.Name, Type: ft, Nullable: fs.Nullable, p: -1, Prefix: fs.Prefix}
	only := func(s Scalar, key string, allowed ...FieldType) bool {
		if s.IsSet && !slices.Contains(allowed, ft) {
			c.errorf(s.Pos, "field %s: %q does not apply to %s fields", where, key, ft)
			return false
		}
		return s.IsSet
	}
	if fs.Prefix != "" && ft != FieldID {
		c.errorf(fs.Pos, "field %s: \"prefix\" applies only to id fields", where)
	}
	if only(fs.Min, "min", FieldInt, FieldFloat) {
		f.Min = c.number(fs.Min, where+": min")
	}
	if only(fs.Max, "max", FieldInt, FieldFloat) {
		f.Max = c.number(fs.Max, where+": max")
	}
	if f.Min != nil && f.Max != nil && *f.Min > *f.Max {
		c.errorf(fs.Max.Pos, "field %s: max %v is below min %v", where, *f.Max, *f.Min)
	}
	// Bounds are compared with int64 values and drawn from by the seeding
	// generators: keep them where float64 holds every whole number.
	for _, b := range []struct {
		s Scalar
		v *float64
	}{{fs.Min, f.Min}, {fs.Max, f.Max}} {
		switch {
		case b.v == nil:
		case math.Abs(*b.v) > maxExactInt:
			c.errorf(b.s.Pos, "field %s: %s is out of range (at most ±2^53)", where, b.s.Raw)
		case ft == FieldInt && *b.v != math.Trunc(*b.v):
			c.errorf(b.s.Pos, "field %s: bounds of an int field must be whole numbers, got %s", where, b.s.Raw)
		}
	}
	if only(fs.P, "p", FieldBool) {
		if p := c.probability(fs.P, where+": p"); p != nil {
			f.p = *p
		}
	}
	if only(fs.NearDuplicates, "near_duplicates", FieldStr) {
		if p := c.probability(fs.NearDuplicates, where+": near_duplicates"); p != nil {
			f.nearDup = *p
		}
	}
	if only(fs.MaxDays, "max_days", FieldDatetime) {
		n, err := strconv.Atoi(fs.MaxDays.Raw)
		if err != nil || n <= 0 || n > maxDaysLimit {
			c.errorf(fs.MaxDays.Pos, "field %s: max_days must be a whole number from 1 to %d, got %s", where, maxDaysLimit, quoteRaw(fs.MaxDays))
		}
		f.maxDays = n
	}
	if ft == FieldEnum {
		if len(fs.Values) == 0 {
			c.errorf(fs.Pos, "field %s: enum needs \"values\"", where)
		}
		for _, v := range fs.Values {
			if slices.Contains(f.Values, v.Raw) {
				c.errorf(v.Pos, "field %s: value %q listed twice", where, v.Raw)
			}
			if len(v.Raw) > maxStoredString {
				c.errorf(v.Pos, "field %s: a value %d bytes long (records hold at most %d)", where, len(v.Raw), maxStoredString)
			}
			f.Values = append(f.Values, v.Raw)
		}
		if len(fs.Weights) > 0 {
			if len(fs.Weights) != len(fs.Values) {
				c.errorf(fs.Weights[0].Pos, "field %s: %d weights for %d values", where, len(fs.Weights), len(fs.Values))
			}
			for _, ws := range fs.Weights {
				x := c.number(ws, where+": weight")
				if x != nil && *x < 0 {
					c.errorf(ws.Pos, "field %s: weight %v is negative", where, *x)
				}
				if x != nil {
					f.enumWeights = append(f.enumWeights, *x)
				}
			}
		}
	} else if len(fs.Values) > 0 {
		c.errorf(fs.Values[0].Pos, "field %s: \"values\" applies only to enum fields", where)
	} else if len(fs.Weights) > 0 {
		c.errorf(fs.Weights[0].Pos, "field %s: \"weights\" applies only to enum fields", where)
	}
	if only(fs.Ref, "ref", FieldRef) {
		rt := c.w.typeByName[fs.Ref.Raw]
		switch {
		case fs.Ref.Raw == t.Name:
			f.Ref = t
		case rt == nil:
			c.errorf(fs.Ref.Pos, "field %s: ref to unknown type %q (a ref must name a type declared above it)", where, fs.Ref.Raw)
		default:
			f.Ref = rt
		}
	} else if ft == FieldRef {
		c.errorf(fs.Pos, "field %s: ref fields need \"ref: TYPE\"", where)
	}
	if fs.Gen.IsSet {
		g, ok := generators[fs.Gen.Raw]
		switch {
		case !ok:
			c.errorf(fs.Gen.Pos, "field %s: unknown generator %q (one of %s)", where, fs.Gen.Raw, strings.Join(generatorNames(), ", "))
		case !slices.Contains(g.types, ft):
			c.errorf(fs.Gen.Pos, "field %s: generator %q makes %s values, not %s", where, fs.Gen.Raw, g.types[0], ft)
		default:
			f.gen = g.fn
			f.Gen = fs.Gen.Raw
		}
	}
	if only(fs.From, "from", FieldStr) {
		src := t.byName[fs.From.Raw]
		if src == nil {
			c.errorf(fs.From.Pos, "field %s: from %q must name a field declared above it", where, fs.From.Raw)
		}
		f.from = src
	}
	if fs.Default.IsSet {
		if ft == FieldID || ft == FieldRef {
			c.errorf(fs.Default.Pos, "field %s: %s fields take no default", where, ft)
		} else if v, err := scalarValue(fs.Default, ft, f.Values); err != nil {
			c.errorf(fs.Default.Pos, "field %s: default: %v", where, err)
		} else if str, ok := v.(string); ok && len(str) > maxStoredString {
			c.errorf(fs.Default.Pos, "field %s: default is %d bytes long (records hold at most %d)", where, len(str), maxStoredString)
		} else if outOfBounds(v, f.Min, f.Max) {
			c.errorf(fs.Default.Pos, "field %s: default %v is outside its min and max", where, v)
		} else {
			f.Default, f.defaultVal = v, celValue(v)
		}
	}
	return f
}

// outOfBounds reports whether v, a number, lies outside [lo, hi] (nil: no
// bound). Only int and float fields have bounds.
func outOfBounds(v any, lo, hi *float64) bool {
	var x float64
	switch n := v.(type) {
	case int64:
		x = float64(n)
	case float64:
		x = n
	default:
		return false
	}
	return lo != nil && x < *lo || hi != nil && x > *hi
}

// maxDaysLimit bounds gen: past (a century is plenty for test data).
const maxDaysLimit = 36500

// maxExactInt is the largest magnitude a float64 holds exactly (2^53).
const maxExactInt = 1 << 53

func generatorNames() []string {
	names := make([]string, 0, len(generators))
	for n := range generators {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func (c *compiler) number(s Scalar, what string) *float64 {
	if s.Tag != "!!int" && s.Tag != "!!float" {
		c.errorf(s.Pos, "%s must be a number, got %s", what, quoteRaw(s))
		return nil
	}
	x, err := strconv.ParseFloat(s.Raw, 64)
	if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
		c.errorf(s.Pos, "%s must be a finite number, got %s", what, s.Raw)
		return nil
	}
	return &x
}

func (c *compiler) probability(s Scalar, what string) *float64 {
	x := c.number(s, what)
	if x == nil {
		return nil
	}
	if *x < 0 || *x > 1 {
		c.errorf(s.Pos, "%s must be a probability between 0 and 1, got %v", what, *x)
		return nil
	}
	return x
}

// scalarValue converts a YAML scalar to a Go value of a field type.
func scalarValue(s Scalar, ft FieldType, enum []string) (any, error) {
	switch ft {
	case FieldStr:
		if s.Tag != "!!str" {
			return nil, fmt.Errorf("want text, got %s", s.Raw)
		}
		return s.Raw, nil
	case FieldEnum:
		if !slices.Contains(enum, s.Raw) {
			return nil, fmt.Errorf("%q is not one of the values (%s)", s.Raw, strings.Join(enum, ", "))
		}
		return s.Raw, nil
	case FieldInt:
		if s.Tag != "!!int" {
			return nil, fmt.Errorf("want a whole number, got %s", quoteRaw(s))
		}
		return strconv.ParseInt(s.Raw, 0, 64)
	case FieldFloat:
		if s.Tag != "!!int" && s.Tag != "!!float" {
			return nil, fmt.Errorf("want a number, got %s", quoteRaw(s))
		}
		return strconv.ParseFloat(s.Raw, 64)
	case FieldBool:
		if s.Tag != "!!bool" {
			return nil, fmt.Errorf("want true or false, got %s", quoteRaw(s))
		}
		return strconv.ParseBool(strings.ToLower(s.Raw))
	case FieldDatetime:
		t, err := time.Parse(time.RFC3339, s.Raw)
		if err != nil {
			return nil, fmt.Errorf("want an RFC 3339 time, got %s", quoteRaw(s))
		}
		return t.UTC(), nil
	}
	return nil, fmt.Errorf("no default for %s", ft)
}
