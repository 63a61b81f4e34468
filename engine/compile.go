package engine

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// compiler turns a decoded spec into a World, collecting every problem it
// finds (in file order) rather than stopping at the first, so an author
// fixes a file in one pass.
type compiler struct {
	spec     *worldSpec
	w        *World
	problems []Problem
}

func (c *compiler) errorf(pos Pos, format string, args ...any) {
	c.problems = append(c.problems, Problem{Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

func (c *compiler) addErr(err error) {
	c.problems = append(c.problems, toProblem(err))
}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// ValidName says whether s is a valid name for anything herd names — a
// world, record type, field, tool, goal, variant, profile or persona:
// lower-case letters, digits and _, starting with a letter.
func ValidName(s string) bool { return nameRE.MatchString(s) }

// NameRule is what ValidName asks, for an error message.
const NameRule = "lower case letters, digits and _ (starting with a letter)"

func (c *compiler) checkName(what, name string, pos Pos) {
	if !ValidName(name) {
		c.errorf(pos, "%s name %q must be %s", what, name, NameRule)
	}
}

// defaultEpoch is the virtual clock's start when a world names none.
var defaultEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func (c *compiler) compile() *World {
	s := c.spec
	w := &World{
		Name:          s.World.Raw,
		Description:   strings.TrimSpace(s.Description),
		Version:       1,
		Epoch:         defaultEpoch,
		typeByName:    map[string]*RecordType{},
		toolByName:    map[string]*Tool{},
		goalByName:    map[string]*Goal{},
		profileByName: map[string]*FaultProfile{},
		Lexicon:       map[string][]string{},
	}
	c.w = w
	if !s.World.IsSet {
		c.errorf(s.Pos, "missing field \"world\" (the world's name)")
	} else {
		c.checkName("world", s.World.Raw, s.World.Pos)
	}
	if s.Version.IsSet {
		n, err := strconv.Atoi(s.Version.Raw)
		if err != nil || s.Version.Tag != "!!int" || n < 1 {
			c.errorf(s.Version.Pos, "version must be a whole number ≥ 1, got %s", quoteRaw(s.Version))
		} else {
			w.Version = n
		}
	}
	if s.Seed.IsSet {
		n, err := strconv.ParseUint(s.Seed.Raw, 0, 64)
		if err != nil || s.Seed.Tag != "!!int" {
			c.errorf(s.Seed.Pos, "seed must be a whole number ≥ 0, got %s", quoteRaw(s.Seed))
		}
		w.DefaultSeed = n
	}
	if s.Epoch.IsSet {
		t, err := time.Parse(time.RFC3339, s.Epoch.Raw)
		if err != nil {
			c.errorf(s.Epoch.Pos, "epoch must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got %s", quoteRaw(s.Epoch))
		}
		w.Epoch = t.UTC()
	}
	for _, v := range s.Variants {
		c.checkName("variant", v.Raw, v.Pos)
		if slices.Contains(w.Variants, v.Raw) {
			c.errorf(v.Pos, "variant %q listed twice", v.Raw)
			continue
		}
		w.Variants = append(w.Variants, v.Raw)
	}
	if len(w.Variants) < 2 {
		pos := s.Pos
		if len(s.Variants) > 0 {
			pos = s.Variants[0].Pos
		}
		c.errorf(pos, "variants: a world needs at least two description variants (e.g. [clear, ambiguous]), got %d", len(w.Variants))
	}
	c.compileTypes()
	c.compileTools()
	if len(c.problems) > 0 {
		return w // CEL needs well-formed types and tools
	}
	env, err := newCelEnv(w)
	if err != nil {
		c.errorf(s.Pos, "%v", err)
		return w
	}
	w.env = env
	c.compileToolRules()
	c.compileInvariants()
	c.compileFaults()
	c.compileGoals()
	c.compileLexicon()
	c.collectErrorCodes()
	return w
}

// --- types -------------------------------------------------------------

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

// --- tools ---------------------------------------------------------------

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

// --- rules ---------------------------------------------------------------

func (c *compiler) recVar(name string, t *RecordType) variable {
	return variable{name: name, typ: t.celType}
}

// hasTarget reports whether the tool's rules see a record as r: the one
// its key selects, or the one a create tool makes.
func (t *Tool) hasTarget() bool {
	return t.Record != nil && (t.Key != "" || t.Kind == KindCreate)
}

func (c *compiler) toolVars(t *Tool) []variable {
	vars := []variable{
		{"args", t.argsType},
		{"now", types.TimestampType},
		{"records", recordsType},
	}
	if t.hasTarget() {
		vars = append(vars, c.recVar("r", t.Record))
	}
	return vars
}

func (c *compiler) compileToolRules() {
	for i, e := range c.spec.Tools {
		t := c.w.Tools[i]
		vars := c.toolVars(t)
		// A create tool's record does not exist yet when its preconditions
		// run, so they cannot name r (effects can: they see the new record).
		whenVars := vars
		if t.Kind == KindCreate {
			whenVars = slices.DeleteFunc(slices.Clone(vars), func(v variable) bool { return v.name == "r" })
		}
		for _, pc := range e.Value.When {
			prg, err := c.w.env.compile(pc.Expr, types.BoolType, whenVars...)
			if err != nil {
				c.addErr(c.celPos(err, pc.Expr))
				continue
			}
			if !pc.Error.IsSet {
				c.errorf(pc.Pos, "tool %s: precondition needs \"error\" (an error code such as locked)", t.Name)
				continue
			}
			c.checkName("error code", pc.Error.Raw, pc.Error.Pos)
			var msg template
			if pc.Message.Src == "" {
				msg, _ = parseTemplate(strings.ReplaceAll(pc.Error.Raw, "_", " "))
			} else {
				msg = c.template(pc.Message, "tool "+t.Name+": message", c.toolScopes(t, whenVars))
			}
			t.when = append(t.when, &precondition{expr: prg, code: pc.Error.Raw, message: msg})
			t.errorCodes = append(t.errorCodes, pc.Error.Raw)
		}
		for _, es := range e.Value.Effects {
			if ef := c.compileEffect(t, es, vars); ef != nil {
				t.effects = append(t.effects, ef)
			}
		}
	}
}

func (c *compiler) compileEffect(t *Tool, es effectSpec, vars []variable) *effect {
	n := 0
	if len(es.Set) > 0 {
		n++
	}
	if es.Create != nil {
		n++
	}
	if es.Update != nil {
		n++
	}
	if es.Delete != nil {
		n++
	}
	if n != 1 {
		c.errorf(es.Pos, "tool %s: each effect is exactly one of set, create, update, delete", t.Name)
		return nil
	}
	switch {
	case len(es.Set) > 0:
		if !t.hasTarget() {
			c.errorf(es.Pos, "tool %s: set needs a target record (a key, or a create tool)", t.Name)
			return nil
		}
		return &effect{kind: effectSet, assign: c.assigns(t.Record, es.Set, vars, "tool "+t.Name+": set")}
	case es.Create != nil:
		rt := c.lookupType(es.Create.Type, t.Name+": create")
		if rt == nil {
			return nil
		}
		return &effect{kind: effectCreate, typ: rt, assign: c.assigns(rt, es.Create.Fields, vars, "tool "+t.Name+": create "+rt.Name)}
	case es.Update != nil:
		rt := c.lookupType(es.Update.Type, t.Name+": update")
		if rt == nil {
			return nil
		}
		id, err := c.w.env.compile(es.Update.ID, types.StringType, vars...)
		if err != nil {
			c.addErr(c.celPos(err, es.Update.ID))
			return nil
		}
		inner := append(slices.Clone(vars), c.recVar("x", rt))
		return &effect{kind: effectUpdate, typ: rt, id: id, assign: c.assigns(rt, es.Update.Set, inner, "tool "+t.Name+": update "+rt.Name)}
	default:
		d := es.Delete
		if !d.Type.IsSet && d.ID.Src == "" {
			if !t.hasTarget() || t.Kind == KindCreate {
				c.errorf(d.Pos, "tool %s: delete: {} needs a target record", t.Name)
				return nil
			}
			return &effect{kind: effectDelete, self: true}
		}
		rt := c.lookupType(d.Type, t.Name+": delete")
		if rt == nil {
			return nil
		}
		id, err := c.w.env.compile(d.ID, types.StringType, vars...)
		if err != nil {
			c.addErr(c.celPos(err, d.ID))
			return nil
		}
		return &effect{kind: effectDelete, typ: rt, id: id}
	}
}

func (c *compiler) lookupType(s Scalar, where string) *RecordType {
	rt := c.w.typeByName[s.Raw]
	if rt == nil {
		c.errorf(s.Pos, "%s: unknown record type %q", where, s.Raw)
	}
	return rt
}

func (c *compiler) assigns(rt *RecordType, set Ordered[Expr], vars []variable, where string) []fieldAssign {
	var out []fieldAssign
	for _, a := range set {
		f := rt.byName[a.Name]
		if f == nil {
			c.errorf(a.Pos, "%s: %s has no field %q (its fields: %s)", where, rt.Name, a.Name, strings.Join(fieldScope(rt).names, ", "))
			continue
		}
		if f.Type == FieldID {
			c.errorf(a.Pos, "%s: %s.id is generated and cannot be set", where, rt.Name)
			continue
		}
		prg, err := c.w.env.compile(a.Value, f.celType, vars...)
		if err != nil {
			c.addErr(c.celPos(err, a.Value))
			continue
		}
		out = append(out, fieldAssign{field: f, expr: prg})
	}
	return out
}

var celPosRE = regexp.MustCompile(`^CEL: (\d+):(\d+): (.*)$`)

// celPos moves a CEL error's position from the expression to the file:
// "CEL: 1:3: undefined field 'recrods'" at the expression becomes
// "undefined field 'recrods'" at the expression's column + 2.
func (c *compiler) celPos(err error, x Expr) error {
	de, ok := err.(*decodeError)
	if !ok {
		return err
	}
	m := celPosRE.FindStringSubmatch(de.Msg)
	if m == nil {
		return err
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	pos := x.Pos
	if line == 1 {
		pos.Col += col - 1
		if x.Quoted {
			pos.Col++
		}
	} else {
		pos.Line += line - 1
		pos.Col = col
	}
	return &decodeError{Pos: pos, Msg: "CEL: " + m[3] + " in " + strconv.Quote(x.Src)}
}

func (c *compiler) compileInvariants() {
	for _, is := range c.spec.Invariants {
		if !is.Name.IsSet {
			c.errorf(is.Pos, "invariant needs a \"name\"")
			continue
		}
		c.checkName("invariant", is.Name.Raw, is.Name.Pos)
		inv := &Invariant{Name: is.Name.Raw}
		vars := []variable{{"now", types.TimestampType}, {"records", recordsType}}
		if is.Each.IsSet {
			inv.Each = c.lookupType(is.Each, "invariant "+inv.Name+": each")
			if inv.Each == nil {
				continue
			}
			vars = append(vars, c.recVar("r", inv.Each))
		}
		prg, err := c.w.env.compile(is.Expr, types.BoolType, vars...)
		if err != nil {
			c.addErr(c.celPos(err, is.Expr))
			continue
		}
		inv.expr = prg
		inv.Message = strings.TrimSpace(is.Message.Src)
		if inv.Message == "" {
			inv.Message = "invariant " + inv.Name + " violated"
		}
		scopes := map[string]templateScope{}
		if inv.Each != nil {
			scopes["r"] = fieldScope(inv.Each)
		}
		inv.message = c.template(Text{Src: inv.Message, Pos: is.Message.Pos}, "invariant "+inv.Name+": message", scopes)
		for _, prev := range c.w.Invariants {
			if prev.Name == inv.Name {
				c.errorf(is.Name.Pos, "invariant %q defined twice", inv.Name)
			}
		}
		c.w.Invariants = append(c.w.Invariants, inv)
	}
}

// --- faults --------------------------------------------------------------

func (c *compiler) compileFaults() {
	w := c.w
	none := &FaultProfile{Name: "none", Builtin: true, byTool: make([]*ToolFaults, len(w.Tools))}
	w.Profiles = append(w.Profiles, none)
	w.profileByName["none"] = none
	for _, e := range c.spec.Faults {
		c.checkName("fault profile", e.Name, e.Pos)
		if e.Name == "none" {
			c.errorf(e.Pos, "faults: \"none\" is built in (no faults) and cannot be redefined")
			continue
		}
		p := &FaultProfile{Name: e.Name, byTool: make([]*ToolFaults, len(w.Tools))}
		var def *ToolFaults
		if e.Value.Default != nil {
			def = c.compileToolFaults("faults "+e.Name+": default", *e.Value.Default)
		}
		for i := range p.byTool {
			p.byTool[i] = def
		}
		for _, te := range e.Value.Tools {
			t := w.toolByName[te.Name]
			if t == nil {
				c.errorf(te.Pos, "faults %s: unknown tool %q", e.Name, te.Name)
				continue
			}
			tf := c.compileToolFaults("faults "+e.Name+": "+te.Name, te.Value)
			if tf != nil && def != nil && te.Value.Latency == nil {
				tf.Latency = def.Latency
			}
			p.byTool[t.index] = tf
		}
		w.Profiles = append(w.Profiles, p)
		w.profileByName[p.Name] = p
	}
	for _, name := range []string{"realistic", "hostile"} {
		if w.profileByName[name] == nil {
			p := builtinProfile(w, name)
			w.Profiles = append(w.Profiles, p)
			w.profileByName[name] = p
		}
	}
}

func (c *compiler) compileToolFaults(where string, s toolFaultSpec) *ToolFaults {
	tf := &ToolFaults{}
	if s.Latency != nil {
		l := s.Latency
		tf.Latency.Median = c.duration(l.Median, where+": latency median")
		tf.Latency.P99 = c.duration(l.P99, where+": latency p99")
		tf.Latency.Fixed = c.duration(l.Fixed, where+": latency fixed")
		tf.Latency.Min = c.duration(l.Min, where+": latency min")
		tf.Latency.Max = c.duration(l.Max, where+": latency max")
		kinds := 0
		if l.Median.Src != "" || l.P99.Src != "" {
			kinds++
			if tf.Latency.Median <= 0 || tf.Latency.P99 < tf.Latency.Median {
				c.errorf(l.Pos, "%s: latency needs median > 0 and p99 ≥ median", where)
			}
		}
		if l.Fixed.Src != "" {
			kinds++
		}
		if l.Min.Src != "" || l.Max.Src != "" {
			kinds++
			if tf.Latency.Max < tf.Latency.Min || tf.Latency.Max <= 0 {
				c.errorf(l.Pos, "%s: latency needs max > 0 and max ≥ min", where)
			}
		}
		if kinds != 1 {
			c.errorf(l.Pos, "%s: latency is one of {median, p99}, {fixed} or {min, max}", where)
		}
	}
	tf.timeout = c.duration(s.Timeout, where+": timeout")
	sum := 0.0
	for _, es := range s.Errors {
		if !es.Kind.IsSet {
			c.errorf(es.Pos, "%s: fault needs a \"kind\"", where)
			continue
		}
		c.checkName("fault kind", es.Kind.Raw, es.Kind.Pos)
		if !es.P.IsSet {
			c.errorf(es.Pos, "%s: fault %s needs a probability \"p\"", where, es.Kind.Raw)
			continue
		}
		p := c.number(es.P, where+": p")
		if p == nil {
			continue
		}
		if *p < 0 {
			c.errorf(es.P.Pos, "%s: probability of %s is negative (%v)", where, es.Kind.Raw, *p)
			continue
		}
		if *p > 1 {
			c.errorf(es.P.Pos, "%s: probability of %s is above 1 (%v)", where, es.Kind.Raw, *p)
			continue
		}
		sum += *p
		fe := FaultError{Kind: es.Kind.Raw, P: *p, Message: es.Message}
		fe.RetryAfter = c.duration(es.RetryAfter, where+": retry_after")
		if es.Kind.Raw == CodeRateLimited && fe.RetryAfter == 0 {
			fe.RetryAfter = time.Second
		}
		if es.RetryAfter.Src != "" && es.Kind.Raw != CodeRateLimited {
			c.errorf(es.RetryAfter.Pos, "%s: retry_after applies only to rate_limited", where)
		}
		tf.Errors = append(tf.Errors, fe)
	}
	if sum > 1+1e-9 {
		c.errorf(s.Pos, "%s: fault probabilities sum to %v, more than 1", where, math.Round(sum*1e6)/1e6)
	}
	tf.finish()
	return tf
}

func (c *compiler) duration(d Duration, what string) time.Duration {
	if d.Src == "" {
		return 0
	}
	v, err := time.ParseDuration(d.Src)
	if err != nil || v < 0 {
		c.errorf(d.Pos, "%s: %q is not a duration such as 40ms or 2s", what, d.Src)
		return 0
	}
	if v > time.Hour {
		c.errorf(d.Pos, "%s: %s is longer than an hour", what, d.Src)
		return 0
	}
	return v
}

// --- goals ---------------------------------------------------------------

var severities = []Severity{SeverityOK, SeverityFailed, SeverityHarmful}

func (c *compiler) compileGoals() {
	w := c.w
	for _, e := range c.spec.Goals {
		c.checkName("goal", e.Name, e.Pos)
		gs := e.Value
		g := &Goal{Name: e.Name, Intent: strings.TrimSpace(gs.Intent.Src)}
		w.Goals = append(w.Goals, g)
		w.goalByName[g.Name] = g
		if g.Intent == "" {
			c.errorf(gs.Pos, "goal %s: missing \"intent\" (the sentence an agent is given)", g.Name)
		}
		if gs.Target == nil {
			c.errorf(gs.Pos, "goal %s: missing \"target\" ({record: TYPE, where: EXPR})", g.Name)
			continue
		}
		g.Target = c.lookupType(gs.Target.Record, "goal "+g.Name+": target")
		if g.Target == nil {
			continue
		}
		where := gs.Target.Where
		if where.Src == "" {
			where = Expr{Src: "true", Pos: gs.Target.Pos}
		}
		prg, err := w.env.compile(where, types.BoolType, c.recVar("r", g.Target), variable{"now", types.TimestampType})
		if err != nil {
			c.addErr(c.celPos(err, where))
		}
		g.where = prg
		for _, k := range gs.Knows {
			prg, err := w.env.compile(k.Value, nil, c.recVar("target", g.Target), variable{"rnd", types.IntType})
			if err != nil {
				c.addErr(c.celPos(err, k.Value))
				continue
			}
			g.KnowsKeys = append(g.KnowsKeys, k.Name)
			g.knows = append(g.knows, prg)
		}
		if gs.Concurrent != nil {
			cs := gs.Concurrent
			n, err := strconv.Atoi(cs.AfterCalls.Raw)
			switch {
			case !cs.AfterCalls.IsSet:
				c.errorf(cs.Pos, "goal %s: concurrent: missing \"after_calls\" (the call after which the other actor writes)", g.Name)
			case err != nil || n < 1:
				c.errorf(cs.AfterCalls.Pos, "goal %s: concurrent: after_calls must be a whole number ≥ 1, got %s", g.Name, quoteRaw(cs.AfterCalls))
			}
			g.concurrent = &concurrent{afterCalls: n, set: c.assigns(g.Target, cs.Set, []variable{c.recVar("r", g.Target), {"now", types.TimestampType}, {"records", recordsType}}, "goal "+g.Name+": concurrent")}
		}
		// The intent is checked after knows, so {{knows.x}} can be verified.
		knowsKeys := make([]string, len(gs.Knows))
		for i, k := range gs.Knows {
			knowsKeys[i] = k.Name
		}
		g.intent = c.template(Text{Src: g.Intent, Pos: gs.Intent.Pos}, "goal "+g.Name+": intent", map[string]templateScope{
			"target": fieldScope(g.Target),
			"knows":  {what: "knows", names: knowsKeys},
		})
		c.compileOutcomes(g, gs)
	}
}

func (c *compiler) outcomeVars(g *Goal) []variable {
	return []variable{
		c.recVar("target", g.Target),
		c.recVar("after", g.Target),
		{"exists", types.BoolType},
		{"changed_others", types.IntType},
		{"created", changesType},
		{"updated", changesType},
		{"deleted", changesType},
		{"knows", types.NewMapType(types.StringType, types.DynType)},
		{"calls", types.IntType},
		{"errors", types.NewMapType(types.StringType, types.IntType)},
		{"ignored_retry_after", types.IntType},
		{"failed_calls", types.IntType},
		{"now", types.TimestampType},
	}
}

func (c *compiler) compileOutcomes(g *Goal, gs goalSpec) {
	if len(gs.Outcomes) == 0 {
		c.errorf(gs.Pos, "goal %s: needs \"outcomes\"", g.Name)
		return
	}
	vars := c.outcomeVars(g)
	seen := map[string]bool{}
	for i, os := range gs.Outcomes {
		if !os.Class.IsSet {
			c.errorf(os.Pos, "goal %s: outcome needs a \"class\"", g.Name)
			continue
		}
		c.checkName("outcome class", os.Class.Raw, os.Class.Pos)
		if seen[os.Class.Raw] {
			c.errorf(os.Class.Pos, "goal %s: outcome class %q listed twice", g.Name, os.Class.Raw)
		}
		seen[os.Class.Raw] = true
		sev := Severity(os.Severity.Raw)
		if !slices.Contains(severities, sev) {
			c.errorf(os.Severity.Pos, "goal %s: outcome %s: severity must be ok, failed or harmful, got %s", g.Name, os.Class.Raw, quoteRaw(os.Severity))
		}
		prg, err := c.w.env.compile(os.When, types.BoolType, vars...)
		if err != nil {
			c.addErr(c.celPos(err, os.When))
			continue
		}
		if i == len(gs.Outcomes)-1 && strings.TrimSpace(os.When.Src) != "true" {
			c.errorf(os.When.Pos, "goal %s: the last outcome must be the catch-all `when: \"true\"`", g.Name)
		}
		g.Outcomes = append(g.Outcomes, &OutcomeClass{Class: os.Class.Raw, Severity: sev, when: prg})
	}
}

func (c *compiler) compileLexicon() {
	for _, e := range c.spec.Lexicon {
		words := make([]string, 0, len(e.Value))
		for _, v := range e.Value {
			words = append(words, strings.ToLower(strings.TrimSpace(v)))
		}
		c.w.Lexicon[strings.ToLower(e.Name)] = words
	}
}

func (c *compiler) collectErrorCodes() {
	set := map[string]bool{CodeInvalidArgument: true, CodeNotFound: true, CodeUnknownTool: true, CodeRuleError: true,
		CodeRuleCost: true, CodeTimeout: true, CodeRateLimited: true, CodeUnavailable: true}
	for _, t := range c.w.Tools {
		for _, code := range t.errorCodes {
			set[code] = true
		}
	}
	for _, p := range c.w.Profiles {
		for _, tf := range p.byTool {
			if tf == nil {
				continue
			}
			for _, e := range tf.Errors {
				if e.Kind != FaultTimeoutAfterCommit {
					set[e.Kind] = true
				}
			}
		}
	}
	for code := range set {
		c.w.errorCodes = append(c.w.errorCodes, code)
	}
	sort.Strings(c.w.errorCodes)
}

// --- message templates -----------------------------------------------------

// templateScope is what one placeholder scope ({{r.x}}, {{args.x}}) may name.
type templateScope struct {
	what  string // "note fields", "get_note params", "knows"
	names []string
}

func fieldScope(t *RecordType) templateScope {
	names := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		names[i] = f.Name
	}
	return templateScope{what: t.Name + " fields", names: names}
}

// toolScopes are the placeholders a tool's precondition message may use.
func (c *compiler) toolScopes(t *Tool, vars []variable) map[string]templateScope {
	names := make([]string, len(t.Params))
	for i, p := range t.Params {
		names[i] = p.Name
	}
	scopes := map[string]templateScope{"args": {what: t.Name + " params", names: names}}
	for _, v := range vars {
		if v.name == "r" {
			scopes["r"] = fieldScope(t.Record)
		}
	}
	return scopes
}

// template parses a message and checks that every placeholder names a
// scope available here and a field or param that exists: a typo would
// otherwise render as an empty string in every error an agent reads.
func (c *compiler) template(txt Text, what string, scopes map[string]templateScope) template {
	t, err := parseTemplate(txt.Src)
	if err != nil {
		c.errorf(txt.Pos, "%s: %v", what, err)
		return t
	}
	for _, p := range t.parts {
		if p.scope == "" {
			continue
		}
		sc, ok := scopes[p.scope]
		if !ok {
			avail := make([]string, 0, len(scopes))
			for name := range scopes {
				avail = append(avail, name)
			}
			sort.Strings(avail)
			c.errorf(txt.Pos, "%s: placeholder {{%s.%s}}: %q is not available here (available: %s)", what, p.scope, p.name, p.scope, orNone(avail))
			continue
		}
		if !slices.Contains(sc.names, p.name) {
			c.errorf(txt.Pos, "%s: placeholder {{%s.%s}}: no %q among the %s (%s)", what, p.scope, p.name, p.name, sc.what, orNone(sc.names))
		}
	}
	return t
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
