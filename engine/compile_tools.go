package engine

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types/ref"
)

// Tools: kinds, params, the shape each kind needs, annotations.

var toolKinds = []ToolKind{KindGet, KindList, KindCreate, KindUpdate, KindDelete, KindCustom}

var paramTypeByName = map[string]ParamType{"str": ParamStr, "int": ParamInt, "float": ParamFloat, "bool": ParamBool, "enum": ParamEnum}

func (c *compiler) compileTools() {
	w := c.w
	if len(c.spec.Tools) == 0 {
		c.errorf(c.spec.Pos, "tools: a world needs at least one tool")
	}
	for _, e := range c.spec.Tools {
		c.checkName("tool", e.Name, e.Pos)
		ts := e.Value
		t := &Tool{Name: e.Name, index: len(w.Tools), byName: map[string]*Param{}, descriptions: map[string]string{}, limit: 20}
		w.Tools = append(w.Tools, t)
		w.toolByName[e.Name] = t
		kind := ToolKind(ts.Kind.Raw)
		if !ts.Kind.IsSet {
			c.errorf(ts.Pos, "tool %s: missing \"kind\" (get, list, create, update, delete or custom)", e.Name)
		} else if !slices.Contains(toolKinds, kind) {
			c.errorf(ts.Kind.Pos, "tool %s: unknown kind %q (get, list, create, update, delete or custom)", e.Name, ts.Kind.Raw)
		}
		t.Kind = kind
		if ts.Record.IsSet {
			t.Record = w.typeByName[ts.Record.Raw]
			if t.Record == nil {
				c.errorf(ts.Record.Pos, "tool %s: unknown record type %q", e.Name, ts.Record.Raw)
			}
		} else if kind != KindCustom {
			c.errorf(ts.Pos, "tool %s: missing \"record\" (the record type it works on)", e.Name)
		}
		// Descriptions: one per world variant, none for unknown variants.
		for _, d := range ts.Descriptions {
			if !w.HasVariant(d.Name) {
				c.errorf(d.Pos, "tool %s: unknown variant %q (the world's variants are %s)", e.Name, d.Name, strings.Join(w.Variants, ", "))
				continue
			}
			if strings.TrimSpace(d.Value) == "" {
				c.errorf(d.Pos, "tool %s: empty description for variant %q", e.Name, d.Name)
			}
			t.descriptions[d.Name] = strings.TrimSpace(d.Value)
		}
		for _, v := range w.Variants {
			if _, ok := t.descriptions[v]; !ok {
				pos := e.Pos
				if len(ts.Descriptions) > 0 {
					pos = ts.Descriptions[0].Pos
				}
				c.errorf(pos, "tool %s: no description for variant %q (every tool describes itself under each of %s)", e.Name, v, strings.Join(w.Variants, ", "))
			}
		}
		t.variants = w.Variants
		// Params.
		for _, pe := range ts.Params {
			c.checkName("param", pe.Name, pe.Pos)
			p := c.compileParam(t, pe)
			if p == nil {
				continue
			}
			p.index = len(t.Params)
			t.Params = append(t.Params, p)
			t.byName[p.Name] = p
		}
		c.compileToolShape(t, ts)
		c.compileAnnotations(t, ts.Annotations)
	}
}

func (c *compiler) compileParam(t *Tool, pe Entry[paramSpec]) *Param {
	ps := pe.Value
	where := t.Name + "." + pe.Name
	pt, ok := paramTypeByName[ps.Type.Raw]
	if !ps.Type.IsSet {
		c.errorf(ps.Pos, "param %s: missing \"type\" (str, int, float, bool or enum)", where)
		return nil
	}
	if !ok {
		c.errorf(ps.Type.Pos, "param %s: unknown type %q (str, int, float, bool or enum)", where, ps.Type.Raw)
		return nil
	}
	p := &Param{Name: pe.Name, Type: pt, Required: ps.Required, Description: strings.TrimSpace(ps.Description)}
	if ps.Min.IsSet {
		if pt == ParamBool || pt == ParamEnum {
			c.errorf(ps.Min.Pos, "param %s: \"min\" does not apply to %s params", where, pt)
		}
		p.Min = c.number(ps.Min, where+": min")
	}
	if ps.Max.IsSet {
		if pt == ParamBool || pt == ParamEnum {
			c.errorf(ps.Max.Pos, "param %s: \"max\" does not apply to %s params", where, pt)
		}
		p.Max = c.number(ps.Max, where+": max")
	}
	if p.Min != nil && p.Max != nil && *p.Min > *p.Max {
		c.errorf(ps.Max.Pos, "param %s: max %v is below min %v", where, *p.Max, *p.Min)
	}
	// A str param's min and max are lengths; an int param's are whole
	// numbers. Either way InputSchema must be able to state them exactly.
	for _, b := range []struct {
		s Scalar
		v *float64
	}{{ps.Min, p.Min}, {ps.Max, p.Max}} {
		switch {
		case b.v == nil:
		case math.Abs(*b.v) > maxExactInt:
			c.errorf(b.s.Pos, "param %s: %s is out of range (at most ±2^53)", where, b.s.Raw)
		case pt == ParamStr && (*b.v < 0 || *b.v != math.Trunc(*b.v)):
			c.errorf(b.s.Pos, "param %s: a str param's min and max are lengths (whole numbers ≥ 0), got %s", where, b.s.Raw)
		case pt == ParamInt && *b.v != math.Trunc(*b.v):
			c.errorf(b.s.Pos, "param %s: bounds of an int param must be whole numbers, got %s", where, b.s.Raw)
		}
	}
	if pt == ParamEnum {
		if len(ps.Values) == 0 {
			c.errorf(ps.Pos, "param %s: enum needs \"values\"", where)
		}
		for _, v := range ps.Values {
			p.Values = append(p.Values, v.Raw)
		}
	} else if len(ps.Values) > 0 {
		c.errorf(ps.Values[0].Pos, "param %s: \"values\" applies only to enum params", where)
	}
	if ps.Default.IsSet {
		ft := map[ParamType]FieldType{ParamStr: FieldStr, ParamInt: FieldInt, ParamFloat: FieldFloat, ParamBool: FieldBool, ParamEnum: FieldEnum}[pt]
		v, err := scalarValue(ps.Default, ft, p.Values)
		var cv ref.Val
		if err == nil {
			// A default stands in for an argument: it passes the same checks.
			cv, err = p.convert(v)
		}
		if err != nil {
			c.errorf(ps.Default.Pos, "param %s: default: %v", where, err)
		} else {
			p.Default, p.defaultVal = v, cv
			if p.Required {
				c.errorf(ps.Default.Pos, "param %s: a required param cannot have a default", where)
			}
		}
	}
	if t.Record != nil {
		if f := t.Record.byName[pe.Name]; f != nil {
			p.Field = f
			if !paramFits(pt, f.Type) {
				c.errorf(ps.Type.Pos, "param %s: type %s does not match field %s.%s (%s)", where, pt, t.Record.Name, f.Name, f.Type)
			}
		}
	}
	return p
}

// paramFits reports whether a param of type pt can carry a field of ft.
func paramFits(pt ParamType, ft FieldType) bool {
	switch ft {
	case FieldStr, FieldRef, FieldID:
		return pt == ParamStr
	case FieldEnum:
		return pt == ParamEnum || pt == ParamStr
	case FieldInt:
		return pt == ParamInt
	case FieldFloat:
		return pt == ParamFloat || pt == ParamInt
	case FieldBool:
		return pt == ParamBool
	case FieldDatetime:
		return false
	}
	return false
}

func (c *compiler) compileToolShape(t *Tool, ts toolSpec) {
	// The key selects the target of get/update/delete (and custom when named).
	switch {
	case ts.Key.IsSet:
		t.Key = ts.Key.Raw
	case t.Kind == KindGet || t.Kind == KindUpdate || t.Kind == KindDelete:
		t.Key = "id"
	}
	if t.Key != "" {
		p := t.byName[t.Key]
		switch {
		case t.Record == nil:
			if ts.Key.IsSet { // a missing record is reported already
				c.errorf(ts.Key.Pos, "tool %s: \"key\" needs a \"record\"", t.Name)
			}
		case p == nil:
			c.errorf(ts.Pos, "tool %s: needs a param %q to select the %s (or set \"key\")", t.Name, t.Key, t.Record.Name)
		case !p.Required || p.Type != ParamStr:
			c.errorf(ts.Pos, "tool %s: key param %q must be a required str", t.Name, t.Key)
		}
		if p != nil && p.Field == nil && t.Record != nil {
			p.Field = t.Record.idField
		}
	}
	if ts.Idempotency.IsSet {
		p := t.byName[ts.Idempotency.Raw]
		if p == nil || p.Type != ParamStr {
			c.errorf(ts.Idempotency.Pos, "tool %s: idempotency must name a str param, %q is not one", t.Name, ts.Idempotency.Raw)
		}
		t.Idempotency = ts.Idempotency.Raw
	}
	isList := t.Kind == KindList
	for _, inc := range ts.Include {
		if !isList {
			c.errorf(inc.Pos, "tool %s: \"include\" applies only to list tools", t.Name)
			break
		}
		p := t.byName[inc.Name]
		if t.Record == nil {
			break // a missing or unknown record is reported already
		}
		f := t.Record.byName[inc.Value.Raw]
		if p == nil || p.Type != ParamBool {
			c.errorf(inc.Pos, "tool %s: include: %q must be a bool param", t.Name, inc.Name)
		} else if f == nil || f.Type != FieldBool {
			c.errorf(inc.Value.Pos, "tool %s: include: %q must be a bool field of %s", t.Name, inc.Value.Raw, t.Record.Name)
		} else {
			t.include = append(t.include, includeFlag{param: p, field: f})
			p.Field = nil // not an equality filter
		}
	}
	if ts.Search != nil {
		if !isList {
			c.errorf(ts.Search.Pos, "tool %s: \"search\" applies only to list tools", t.Name)
		} else if t.Record != nil {
			p := t.byName[ts.Search.Param.Raw]
			if p == nil || p.Type != ParamStr {
				c.errorf(ts.Search.Param.Pos, "tool %s: search: param %q must be a str param", t.Name, ts.Search.Param.Raw)
			} else {
				sr := &searchRule{param: p}
				for _, fs := range ts.Search.Fields {
					f := t.Record.byName[fs.Raw]
					if f == nil || (f.Type != FieldStr && f.Type != FieldEnum && f.Type != FieldID) {
						c.errorf(fs.Pos, "tool %s: search: %q is not a text field of %s", t.Name, fs.Raw, t.Record.Name)
						continue
					}
					sr.fields = append(sr.fields, f)
				}
				if len(sr.fields) == 0 && len(ts.Search.Fields) == 0 {
					c.errorf(ts.Search.Pos, "tool %s: search needs \"fields\"", t.Name)
				}
				t.search = sr
				p.Field = nil
			}
		}
	}
	if ts.Limit.IsSet {
		if !isList {
			c.errorf(ts.Limit.Pos, "tool %s: \"limit\" applies only to list tools", t.Name)
		}
		n, err := strconv.Atoi(ts.Limit.Raw)
		if err != nil || n < 1 || n > 1000 {
			c.errorf(ts.Limit.Pos, "tool %s: limit must be a whole number from 1 to 1000", t.Name)
		}
		t.limit = n
	}
	if p := t.byName["limit"]; p != nil && isList && p.Field == nil {
		if p.Type != ParamInt {
			c.errorf(ts.Pos, "tool %s: param \"limit\" must be an int", t.Name)
		}
		t.limitParam = p
	}
	if (t.Kind == KindGet || t.Kind == KindList) && (len(ts.Effects) > 0) {
		c.errorf(ts.Effects[0].Pos, "tool %s: %s tools cannot have effects", t.Name, t.Kind)
	}
	if t.Kind == KindList && len(ts.When) > 0 {
		c.errorf(ts.When[0].Pos, "tool %s: list tools cannot have preconditions", t.Name)
	}
}

type includeFlag struct {
	param *Param
	field *Field
}

type searchRule struct {
	param  *Param
	fields []*Field
}

func (c *compiler) compileAnnotations(t *Tool, a annotationSpec) {
	// Honest defaults: reads are read-only, deletes destructive.
	t.Annotations.ReadOnly = t.Kind == KindGet || t.Kind == KindList
	t.Annotations.Destructive = t.Kind == KindDelete
	if a.ReadOnly != nil {
		t.Annotations.ReadOnly = *a.ReadOnly
	}
	if a.Destructive != nil {
		t.Annotations.Destructive = *a.Destructive
	}
	if a.Idempotent != nil {
		t.Annotations.Idempotent = *a.Idempotent
	}
	if a.OpenWorld != nil {
		t.Annotations.OpenWorld = *a.OpenWorld
	}
}
