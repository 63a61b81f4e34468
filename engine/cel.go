package engine

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/cost"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/common/types/traits"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
)

// The world's records, a call's arguments and the "records" view are CEL
// object types declared through a custom type provider, so expressions are
// type-checked at load ("r.recrods" is an error in the file, not at run
// time) and field access at run time is a slice index, with no conversion
// to maps.

// costLimit bounds the work one evaluation may do. A comprehension over a few
// thousand records fits; a nested one over every pair of them does not, and
// is stopped with ErrCostExceeded instead of hanging the world.
const costLimit = 200_000

// structDesc describes one object type to the CEL checker and interpreter.
type structDesc struct {
	typ    *types.Type
	fields map[string]*types.FieldType
	names  []string
}

// celEnv is the world's CEL environment: its object types and base env.
type celEnv struct {
	structs map[string]*structDesc
	base    *cel.Env
	adapter types.Adapter
}

// celProvider adapts celEnv to cel-go's types.Provider, delegating every
// type it does not own to the standard provider.
type celProvider struct {
	e    *celEnv
	next types.Provider
}

func (p *celProvider) EnumValue(name string) ref.Val { return p.next.EnumValue(name) }
func (p *celProvider) FindIdent(name string) (ref.Val, bool) {
	return p.next.FindIdent(name)
}
func (p *celProvider) FindStructType(name string) (*types.Type, bool) {
	if d, ok := p.e.structs[name]; ok {
		return types.NewTypeTypeWithParam(d.typ), true
	}
	return p.next.FindStructType(name)
}
func (p *celProvider) FindStructFieldNames(name string) ([]string, bool) {
	if d, ok := p.e.structs[name]; ok {
		return d.names, true
	}
	return p.next.FindStructFieldNames(name)
}
func (p *celProvider) FindStructFieldType(name, field string) (*types.FieldType, bool) {
	if d, ok := p.e.structs[name]; ok {
		ft, ok := d.fields[field]
		return ft, ok
	}
	return p.next.FindStructFieldType(name, field)
}
func (p *celProvider) NewValue(name string, fields map[string]ref.Val) ref.Val {
	if _, ok := p.e.structs[name]; ok {
		return types.NewErr("herd: %s values cannot be constructed in expressions", name)
	}
	return p.next.NewValue(name, fields)
}

func (e *celEnv) addStruct(t *types.Type) *structDesc {
	d := &structDesc{typ: t, fields: map[string]*types.FieldType{}}
	e.structs[t.TypeName()] = d
	return d
}

// The CEL object types of the "records" view and of an outcome rule's
// created/updated/deleted lists. A record type is "herd.NAME" with a
// lower-case NAME, so these capitalised names never collide with one: a
// world may well call a type "records" or "changes".
var (
	recordsType = types.NewObjectType("herd.Records")
	changesType = types.NewObjectType("herd.Changes")
)

func (d *structDesc) addField(name string, t *types.Type, isSet ref.FieldTester, get ref.FieldGetter) {
	d.fields[name] = &types.FieldType{Type: t, IsSet: isSet, GetFrom: get}
	d.names = append(d.names, name)
}

// celTypeOf is the CEL type of a record field.
func celTypeOf(ft FieldType) *types.Type {
	switch ft {
	case FieldInt:
		return types.IntType
	case FieldFloat:
		return types.DoubleType
	case FieldBool:
		return types.BoolType
	case FieldDatetime:
		return types.TimestampType
	default: // str, enum, ref, id
		return types.StringType
	}
}

func paramCelType(pt ParamType) *types.Type {
	switch pt {
	case ParamInt:
		return types.IntType
	case ParamFloat:
		return types.DoubleType
	case ParamBool:
		return types.BoolType
	default:
		return types.StringType
	}
}

// newCelEnv declares the world's types: one object type per record type,
// one per tool's arguments, recordsType (every type's current records)
// and changesType (created/updated/deleted lists for outcome rules).
func newCelEnv(w *World) (*celEnv, error) {
	e := &celEnv{structs: map[string]*structDesc{}}
	for _, rt := range w.Types {
		d := e.addStruct(types.NewObjectType("herd." + rt.Name))
		rt.celType = d.typ
		for _, f := range rt.Fields {
			idx := f.Index
			f.celType = celTypeOf(f.Type)
			d.addField(f.Name, f.celType,
				func(o any) bool { return o.(*Record).vals[idx] != nil },
				func(o any) (any, error) {
					r := o.(*Record)
					if v := r.vals[idx]; v != nil {
						return v, nil
					}
					return nil, fmt.Errorf("%s %s has no %s", r.typ.Name, r.id, r.typ.Fields[idx].Name)
				})
		}
	}
	recs := e.addStruct(recordsType)
	chg := e.addStruct(changesType)
	for _, rt := range w.Types {
		ti := rt.index
		lt := types.NewListType(rt.celType)
		recs.addField(rt.Name, lt, func(any) bool { return true }, func(o any) (any, error) {
			return o.(*recordsView).list(ti), nil
		})
		chg.addField(rt.Name, lt, func(any) bool { return true }, func(o any) (any, error) {
			return o.(*changeList).list(ti), nil
		})
	}
	for _, t := range w.Tools {
		d := e.addStruct(types.NewObjectType("herd.args." + t.Name))
		t.argsType = d.typ
		for _, p := range t.Params {
			idx := p.index
			p.celType = paramCelType(p.Type)
			d.addField(p.Name, p.celType,
				func(o any) bool { return o.(*argValues).vals[idx] != nil },
				func(o any) (any, error) {
					a := o.(*argValues)
					if v := a.vals[idx]; v != nil {
						return v, nil
					}
					return nil, fmt.Errorf("argument %s was not given (test with has(args.%s))", a.tool.Params[idx].Name, a.tool.Params[idx].Name)
				})
		}
	}
	env, err := cel.NewEnv(
		cel.CustomTypeProvider(&celProvider{e: e, next: types.NewEmptyRegistry()}),
		ext.Strings(),
		// Rebind replace (same overload ids and signatures, so only the
		// implementation changes) to refuse before allocating a result
		// bigger than maxRuleString: its output is quadratic in its input,
		// and cel-go charges the cost only after the call returns.
		cel.Function("replace",
			cel.MemberOverload("string_replace_string_string",
				[]*cel.Type{cel.StringType, cel.StringType, cel.StringType}, cel.StringType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return boundedReplace(args[0], args[1], args[2], -1) })),
			cel.MemberOverload("string_replace_string_string_int",
				[]*cel.Type{cel.StringType, cel.StringType, cel.StringType, cel.IntType}, cel.StringType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					n, _ := args[3].(types.Int)
					return boundedReplace(args[0], args[1], args[2], int64(n))
				})),
		),
		cel.Function("sum",
			cel.Overload("sum_list_int", []*cel.Type{cel.ListType(cel.IntType)}, cel.IntType,
				cel.UnaryBinding(sum[types.Int])),
			cel.Overload("sum_list_double", []*cel.Type{cel.ListType(cel.DoubleType)}, cel.DoubleType,
				cel.UnaryBinding(sum[types.Double])),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("cel environment: %w", err)
	}
	e.base = env
	e.adapter = env.CELTypeAdapter()
	return e, nil
}

// maxRuleString bounds a string a rule may build with replace. Records hold
// short text (at most maxStoredString bytes); a rule that needs more is
// broken or hostile.
const maxRuleString = 1 << 20

// boundedReplace is strings.Replace that computes the result's size first
// and fails, as a blown cost limit, instead of building a huge string.
func boundedReplace(str, old, repl ref.Val, n int64) ref.Val {
	s, ok1 := str.(types.String)
	o, ok2 := old.(types.String)
	r, ok3 := repl.(types.String)
	if !ok1 || !ok2 || !ok3 {
		return types.NewErr("replace: want strings")
	}
	count := int64(0)
	if o == "" {
		count = int64(utf8.RuneCountInString(string(s))) + 1
	} else {
		count = int64(strings.Count(string(s), string(o)))
	}
	if n >= 0 && n < count {
		count = n
	}
	size := int64(len(s)) + count*(int64(len(r))-int64(len(o)))
	if size > maxRuleString {
		return types.NewErr("cost limit exceeded: replace would build a string of %d bytes (rules may build at most %d)", size, maxRuleString)
	}
	return types.String(strings.Replace(string(s), string(o), string(r), int(n)))
}

// summable is a CEL number sum adds up.
type summable interface {
	types.Int | types.Double
	ref.Val
}

// sum adds up a list of ints or of doubles (the checker has already
// picked the overload, so every element is an N).
func sum[N summable](v ref.Val) ref.Val {
	l, ok := v.(traits.Lister)
	if !ok {
		return types.NewErr("sum: not a list")
	}
	var total N
	it := l.Iterator()
	for it.HasNext() == types.True {
		n, ok := it.Next().(N)
		if !ok {
			return types.NewErr("sum: mixed element types")
		}
		total += n
	}
	return total
}

// variable is one name an expression may use, with its type.
type variable struct {
	name string
	typ  *types.Type
}

// program is a compiled, type-checked expression.
type program struct {
	src string
	pos Pos
	prg cel.Program
	// tracked: evaluated with a runtime cost limit; false when the static
	// worst case is already within it.
	tracked bool
	// maxCost is the static worst case of an untracked program: what one
	// evaluation is charged to a loadMeter, which cannot read its actual
	// cost.
	maxCost uint64
}

// sizeBounds tells cel-go's static cost estimator how big the values an
// expression reads can be: a record field or an argument that is a string
// holds at most maxStoredString bytes (Param.convert and txn.checkWrites
// enforce it). Lists of records have no bound, so a rule that walks them
// keeps its runtime cost limit.
type sizeBounds struct{}

func (sizeBounds) EstimateSize(n cost.AstNode) *cost.SizeEstimate {
	path := n.Path()
	if len(path) < 2 || n.Type() != types.StringType || strings.HasPrefix(path[len(path)-1], "@") {
		return nil
	}
	switch path[0] {
	case "r", "x", "args", "target", "after", "records", "created", "updated", "deleted":
		est := cost.SizeEstimate{Min: 0, Max: maxStoredString}
		return &est
	}
	return nil
}

func (sizeBounds) EstimateCallCost(fn, overloadID string, target *cost.AstNode, args []cost.AstNode) *cost.CallEstimate {
	// sum walks its list; cel-go knows nothing of our function.
	if fn == "sum" && len(args) == 1 {
		size := args[0].ComputedSize()
		if size == nil {
			return cost.NewCallEstimate(cost.Estimate{Min: 1, Max: math.MaxUint64}, nil)
		}
		return cost.NewCallEstimate(cost.Estimate{Min: 1, Max: size.Max + 1}, nil)
	}
	return nil
}

// ErrCostExceeded is returned when an expression does more work than the
// cost limit allows.
var ErrCostExceeded = errors.New("the rule exceeded its cost limit")

// compile type-checks src against vars and checks its result type.
func (e *celEnv) compile(x Expr, want *types.Type, vars ...variable) (*program, error) {
	opts := make([]cel.EnvOption, 0, len(vars))
	for _, v := range vars {
		opts = append(opts, cel.Variable(v.name, v.typ))
	}
	env, err := e.base.Extend(opts...)
	if err != nil {
		return nil, &decodeError{Pos: x.Pos, Msg: fmt.Sprintf("cel environment: %v", err)}
	}
	if strings.TrimSpace(x.Src) == "" {
		return nil, &decodeError{Pos: x.Pos, Msg: "empty expression"}
	}
	ast, iss := env.Compile(x.Src)
	if iss != nil && iss.Err() != nil {
		msg := friendlyCEL(oneLine(iss.Err().Error()))
		if strings.Contains(msg, "undeclared reference") {
			names := make([]string, len(vars))
			for i, v := range vars {
				names[i] = v.name
			}
			msg += " (names available here: " + strings.Join(names, ", ") + ")"
		}
		if strings.Contains(msg, "undefined field") {
			msg += e.fieldHint(vars)
		}
		return nil, &decodeError{Pos: x.Pos, Msg: "CEL: " + msg}
	}
	if want != nil && !ast.OutputType().IsAssignableType(want) && ast.OutputType() != types.DynType {
		return nil, &decodeError{Pos: x.Pos, Msg: fmt.Sprintf("CEL: expression %q has type %s, want %s", x.Src, ast.OutputType(), want)}
	}
	// Runtime cost tracking costs an allocation per evaluation and a
	// wrapper around every node. An expression whose worst case, given the
	// size bounds below, is within the limit cannot exceed it, so it runs
	// untracked; anything over unbounded data (records.T) stays tracked.
	opts2 := []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}
	tracked, maxCost := true, uint64(0)
	if est, err := env.EstimateCost(ast, sizeBounds{}); err == nil && est.Max <= costLimit {
		tracked, maxCost = false, est.Max
	} else {
		opts2 = append(opts2, cel.CostLimit(costLimit))
	}
	prg, err := env.Program(ast, opts2...)
	if err != nil {
		return nil, &decodeError{Pos: x.Pos, Msg: "CEL: " + oneLine(err.Error())}
	}
	return &program{src: x.Src, pos: x.Pos, prg: prg, tracked: tracked, maxCost: maxCost}, nil
}

// fieldHint lists the fields of the record-typed names in scope, for an
// "undefined field" error: " (r has: id, title, archived)".
func (e *celEnv) fieldHint(vars []variable) string {
	var parts []string
	for _, v := range vars {
		if v.name == "records" || v.typ.Kind() != types.StructKind {
			continue
		}
		if d, ok := e.structs[v.typ.TypeName()]; ok {
			parts = append(parts, v.name+" has: "+strings.Join(d.names, ", "))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, "; ") + ")"
}

// oneLine folds cel-go's multi-line error (with its caret diagram) into
// one line: "ERROR: <input>:1:3: undefined field 'recrods'".
func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	out := strings.TrimSpace(lines[0])
	out = strings.TrimPrefix(out, "ERROR: <input>:")
	return out
}

var (
	celOverloadRE = regexp.MustCompile(`found no matching overload for '([^']*)' applied to '\(([^']*)\)'`)
	celSyntaxRE   = regexp.MustCompile(`Syntax error: (?:mismatched|extraneous) input '(.*)' expecting (?:\{.*\}|\S+)`)
	celContainer  = regexp.MustCompile(` \(in container '[^']*'\)`)
	celOperators  = map[string]string{"_+_": "+", "_-_": "-", "_*_": "*", "_/_": "/", "_%_": "%",
		"_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">=", "_==_": "==", "_!=_": "!=", "!_": "!", "-_": "-",
		"_&&_": "&&", "_||_": "||", "_?_:_": "?:", "_[_]": "[]", "@in": "in"}
)

// friendlyCEL rewrites cel-go's checker and parser phrasing into what a
// world author can act on: "found no matching overload for '_+_' applied to
// '(bool, int)'" becomes "operator '+' cannot be applied to (bool, int)",
// and a syntax error loses the list of every token the grammar allows.
func friendlyCEL(msg string) string {
	msg = celContainer.ReplaceAllString(msg, "")
	if m := celOverloadRE.FindStringSubmatchIndex(msg); m != nil {
		fn, args := msg[m[2]:m[3]], msg[m[4]:m[5]]
		what := "function '" + fn + "'"
		if op, ok := celOperators[fn]; ok {
			what = "operator '" + op + "'"
		}
		return msg[:m[0]] + what + " cannot be applied to (" + args + ")" + msg[m[1]:]
	}
	if m := celSyntaxRE.FindStringSubmatchIndex(msg); m != nil {
		tok := msg[m[2]:m[3]]
		repl := "syntax error: unexpected '" + tok + "'"
		if tok == "<EOF>" {
			repl = "syntax error: the expression ends too early"
		}
		return msg[:m[0]] + repl + msg[m[1]:]
	}
	return msg
}

// eval runs the program against an activation.
func (p *program) eval(act *activation) (ref.Val, error) {
	v, _, err := p.evalDetails(act)
	return v, err
}

// evalMetered runs the program and charges what it cost to m.
func (p *program) evalMetered(act *activation, m *loadMeter) (ref.Val, error) {
	v, cost, err := p.evalDetails(act)
	// A budget blown inside the evaluation (records listed) is the error
	// to report, whatever CEL made of it.
	if merr := m.charge(cost); merr != nil {
		return nil, merr
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// evalBoolMetered is evalBool charged to m.
func (p *program) evalBoolMetered(act *activation, m *loadMeter) (bool, error) {
	v, err := p.evalMetered(act, m)
	if err != nil {
		return false, err
	}
	return toBool(p, v)
}

// evalDetails runs the program and says what it cost: the actual cost of
// a tracked program, the static worst case of an untracked one.
func (p *program) evalDetails(act *activation) (ref.Val, uint64, error) {
	v, det, err := p.prg.Eval(act)
	cost := p.maxCost
	if det != nil {
		if c := det.ActualCost(); c != nil {
			cost = *c
		}
	}
	if err != nil {
		if strings.Contains(err.Error(), "cost limit exceeded") {
			return nil, costLimit, fmt.Errorf("%w (%d units): %s", ErrCostExceeded, costLimit, p.src)
		}
		return nil, cost, fmt.Errorf("rule %q: %v", p.src, err)
	}
	return v, cost, nil
}

// evalBool runs a boolean program.
func (p *program) evalBool(act *activation) (bool, error) {
	v, err := p.eval(act)
	if err != nil {
		return false, err
	}
	return toBool(p, v)
}

func toBool(p *program, v ref.Val) (bool, error) {
	b, ok := v.(types.Bool)
	if !ok {
		return false, fmt.Errorf("rule %q: result is %s, not bool", p.src, v.Type().TypeName())
	}
	return bool(b), nil
}

// activation is the set of variables one evaluation sees. One struct with
// named slots (rather than a map) keeps evaluation allocation-free.
type activation struct {
	r, x, args, now, records ref.Val
	// more resolves the names only some expressions have: a goal's knows
	// (knowsVars) or its outcome rules (outcomeVars); nil elsewhere.
	more moreNames
	// clock is the virtual time when hasClock; now is boxed from it on
	// first use, since most rules never read it and boxing allocates.
	clock    time.Time
	hasClock bool
}

func (a *activation) ResolveName(name string) (any, bool) {
	var v ref.Val
	switch name {
	case "r":
		v = a.r
	case "x":
		v = a.x
	case "args":
		v = a.args
	case "now":
		if a.now == nil && a.hasClock {
			a.now = types.Timestamp{Time: a.clock}
		}
		v = a.now
	case "records":
		v = a.records
	default:
		if a.more != nil {
			v = a.more.resolve(name)
		}
	}
	return v, v != nil
}

// moreNames resolves the names an activation has beyond its fixed slots.
type moreNames interface {
	resolve(name string) ref.Val
}

func (a *activation) Parent() interpreter.Activation { return nil }

// --- ref.Val implementations ---------------------------------------------

var errNoConversion = errors.New("herd: no conversion")

// Records are CEL values directly: ref.Val on *Record avoids a wrapper.
func (r *Record) ConvertToNative(t reflect.Type) (any, error) {
	if reflect.TypeOf(r).AssignableTo(t) {
		return r, nil
	}
	return nil, errNoConversion
}
func (r *Record) ConvertToType(t ref.Type) ref.Val {
	if t == types.TypeType {
		return r.typ.celType
	}
	return types.NewErr("herd: cannot convert %s to %s", r.typ.Name, t.TypeName())
}
func (r *Record) Equal(o ref.Val) ref.Val {
	other, ok := o.(*Record)
	if !ok {
		return types.False
	}
	return types.Bool(r.sameAs(other))
}
func (r *Record) Type() ref.Type { return r.typ.celType }
func (r *Record) Value() any     { return r }

// argValues are a call's validated arguments, positional by param.
type argValues struct {
	tool *Tool
	vals []ref.Val
}

func (a *argValues) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }
func (a *argValues) ConvertToType(t ref.Type) ref.Val {
	return types.NewErr("herd: cannot convert arguments")
}
func (a *argValues) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(a)) }
func (a *argValues) Type() ref.Type          { return a.tool.argsType }
func (a *argValues) Value() any              { return a }

// recordsView exposes a session's current records to rules ("records.T").
type recordsView struct {
	s *Session
	// meter, while seeding, is charged for every record a rule lists:
	// building the list is work CEL's own cost does not see.
	meter *loadMeter
}

func (v *recordsView) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }
func (v *recordsView) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("herd: cannot convert records")
}
func (v *recordsView) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(v)) }
func (v *recordsView) Type() ref.Type          { return recordsType }
func (v *recordsView) Value() any              { return v }

func (v *recordsView) list(typeIndex int) ref.Val {
	// One pass straight into the CEL list: an invariant lists a type on
	// every checked call, and an intermediate []*Record doubled its garbage.
	t := v.s.base.world.Types[typeIndex]
	vals := make([]ref.Val, 0, len(v.s.base.recs[typeIndex])+len(v.s.created))
	v.s.each(t, func(r *Record) bool {
		vals = append(vals, r)
		return true
	})
	if v.meter != nil {
		if err := v.meter.listed(len(vals)); err != nil {
			return types.NewErr("%s", err.Error())
		}
	}
	return types.NewRefValList(v.s.base.world.env.adapter, vals)
}

// changeList exposes the records of each type created, updated or deleted
// in an episode, for outcome rules ("created.refund").
type changeList struct {
	world  *World
	byType [][]*Record
}

func (c *changeList) ConvertToNative(reflect.Type) (any, error) { return nil, errNoConversion }
func (c *changeList) ConvertToType(ref.Type) ref.Val {
	return types.NewErr("herd: cannot convert changes")
}
func (c *changeList) Equal(o ref.Val) ref.Val { return types.Bool(o == ref.Val(c)) }
func (c *changeList) Type() ref.Type          { return changesType }
func (c *changeList) Value() any              { return c }

func (c *changeList) list(typeIndex int) ref.Val {
	recs := c.byType[typeIndex]
	vals := make([]ref.Val, len(recs))
	for i, r := range recs {
		vals[i] = r
	}
	return types.NewRefValList(c.world.env.adapter, vals)
}
