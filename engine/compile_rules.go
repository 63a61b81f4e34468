package engine

import (
	"regexp"
	"slices"
	"strconv"
	"strings"

	"cel.dev/cel-go/common/types"
)

// Rules: tool preconditions and effects, world invariants, as CEL.

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

var celPosRE = regexp.MustCompile(`^CEL: (-?\d+):(-?\d+): (.*)$`)

// celPos moves a CEL error's position from the expression to the file:
// "CEL: 1:3: undefined field 'recrods'" at the expression becomes
// "undefined field 'recrods'" at the expression's column + 2. An error
// cel-go places nowhere ("-1:0: expression recursion limit exceeded") is
// placed at the expression.
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
	switch {
	case line < 1 || col < 1:
		// No place in the expression: the expression's own position.
	case line == 1:
		pos.Col += col - 1
		if x.Quoted {
			pos.Col++
		}
	default:
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
