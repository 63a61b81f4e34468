package engine

import (
	"fmt"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// txn buffers one call's writes so that a call that fails half-way through
// its effects changes nothing. Reads inside the call see its own writes.
type txn struct {
	s       *Session
	writes  []*Record // nil entries never stored; deletions are in dels
	keys    []recKey
	deleted []bool
}

func (tx *txn) get(t *RecordType, id string) *Record {
	for i := len(tx.keys) - 1; i >= 0; i-- {
		if tx.keys[i].t == t.index && tx.keys[i].id == id {
			if tx.deleted[i] {
				return nil
			}
			return tx.writes[i]
		}
	}
	return tx.s.Get(t, id)
}

func (tx *txn) put(r *Record) {
	tx.keys = append(tx.keys, recKey{r.typ.index, r.id})
	tx.writes = append(tx.writes, r)
	tx.deleted = append(tx.deleted, false)
}

func (tx *txn) remove(t *RecordType, id string) {
	tx.keys = append(tx.keys, recKey{t.index, id})
	tx.writes = append(tx.writes, nil)
	tx.deleted = append(tx.deleted, true)
}

// commit stores the buffered writes in the session's overlay.
func (tx *txn) commit() {
	s := tx.s
	for i, k := range tx.keys {
		if tx.deleted[i] {
			s.remove(s.base.world.Types[k.t], k.id)
			continue
		}
		if _, inBase := s.base.index[k.t][k.id]; !inBase {
			if _, known := s.overlay[k]; !known {
				s.created = append(s.created, k)
			}
		}
		s.put(tx.writes[i])
	}
}

// checkBounds refuses writes that leave an int or float field outside the
// min/max its declaration gives.
func (tx *txn) checkBounds() *ToolError {
	for i, r := range tx.writes {
		if tx.deleted[i] || r == nil {
			continue
		}
		for _, f := range r.typ.Fields {
			if f.Min == nil && f.Max == nil {
				continue
			}
			var x float64
			switch v := r.vals[f.Index].(type) {
			case types.Int:
				x = float64(v)
			case types.Double:
				x = float64(v)
			default:
				continue
			}
			if f.Min != nil && x < *f.Min {
				return &ToolError{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s.%s would be %v, below its minimum %v", r.typ.Name, f.Name, x, *f.Min)}
			}
			if f.Max != nil && x > *f.Max {
				return &ToolError{Code: CodeInvalidArgument, Message: fmt.Sprintf("%s.%s would be %v, above its maximum %v", r.typ.Name, f.Name, x, *f.Max)}
			}
		}
	}
	return nil
}

// precondition is one compiled `when` entry.
type precondition struct {
	expr    *program
	code    string
	message template
}

func (pc *precondition) render(act *activation) string { return pc.message.render(act) }

// fieldAssign is one `field: expr` of a set.
type fieldAssign struct {
	field *Field
	expr  *program
}

type effectKind int

const (
	effectSet effectKind = iota
	effectCreate
	effectUpdate
	effectDelete
)

// effect is one compiled entry of a tool's `effects`.
type effect struct {
	kind   effectKind
	typ    *RecordType // create/update/delete of another record
	id     *program    // update/delete of another record
	assign []fieldAssign
	self   bool // delete: {} deletes the target
}

// apply runs the effect; it returns the record it created, if any.
func (ef *effect) apply(s *Session, tx *txn, act *activation) (*Record, *ToolError) {
	switch ef.kind {
	case effectSet:
		r, _ := act.r.(*Record)
		if r == nil {
			return nil, &ToolError{Code: CodeRuleError, Message: "set: the tool has no target record"}
		}
		cur := tx.get(r.typ, r.id)
		if cur == nil {
			return nil, &ToolError{Code: CodeRuleError, Message: "set: the target was deleted earlier in this call"}
		}
		act.r = cur
		next := cur.clone()
		for _, a := range ef.assign {
			v, err := a.expr.eval(act)
			if err != nil {
				return nil, ruleError(err)
			}
			next.vals[a.field.Index] = v
		}
		tx.put(next)
		act.r = next
		return nil, nil
	case effectCreate:
		rec := &Record{typ: ef.typ, id: s.newID(ef.typ), vals: make([]ref.Val, len(ef.typ.Fields))}
		rec.vals[ef.typ.idField.Index] = types.String(rec.id)
		for _, f := range ef.typ.Fields {
			if f.Type != FieldID && f.Default != nil {
				rec.vals[f.Index] = celValue(f.Default)
			}
		}
		for _, a := range ef.assign {
			v, err := a.expr.eval(act)
			if err != nil {
				return nil, ruleError(err)
			}
			rec.vals[a.field.Index] = v
		}
		tx.put(rec)
		return rec, nil
	case effectUpdate, effectDelete:
		if ef.self {
			r, _ := act.r.(*Record)
			if r == nil {
				return nil, &ToolError{Code: CodeRuleError, Message: "delete: the tool has no target record"}
			}
			tx.remove(r.typ, r.id)
			return nil, nil
		}
		idv, err := ef.id.eval(act)
		if err != nil {
			return nil, ruleError(err)
		}
		id, _ := idv.(types.String)
		other := tx.get(ef.typ, string(id))
		if other == nil {
			return nil, &ToolError{Code: CodeNotFound, Message: fmt.Sprintf("no %s %q", ef.typ.Name, string(id))}
		}
		if ef.kind == effectDelete {
			tx.remove(ef.typ, other.id)
			return nil, nil
		}
		saved := act.x
		act.x = other
		next := other.clone()
		for _, a := range ef.assign {
			v, err := a.expr.eval(act)
			if err != nil {
				act.x = saved
				return nil, ruleError(err)
			}
			next.vals[a.field.Index] = v
		}
		act.x = saved
		tx.put(next)
		return nil, nil
	}
	return nil, nil
}

// template is a message with {{r.field}}, {{args.param}}, {{target.field}}
// and {{knows.key}} placeholders, parsed once at load.
type template struct {
	parts []templatePart
}

type templatePart struct {
	text  string
	scope string // "" for literal text, else r, args, target, knows
	name  string
}

func parseTemplate(src string) (template, error) {
	var t template
	for {
		i := strings.Index(src, "{{")
		if i < 0 {
			if src != "" {
				t.parts = append(t.parts, templatePart{text: src})
			}
			return t, nil
		}
		if i > 0 {
			t.parts = append(t.parts, templatePart{text: src[:i]})
		}
		j := strings.Index(src[i:], "}}")
		if j < 0 {
			return t, fmt.Errorf("unclosed {{ in %q", src)
		}
		ref := strings.TrimSpace(src[i+2 : i+j])
		scope, name, ok := strings.Cut(ref, ".")
		if !ok || name == "" {
			return t, fmt.Errorf("placeholder {{%s}} must be scope.name (r.field, args.param, target.field, knows.key)", ref)
		}
		switch scope {
		case "r", "args", "target", "knows":
		default:
			return t, fmt.Errorf("placeholder {{%s}}: unknown scope %q", ref, scope)
		}
		t.parts = append(t.parts, templatePart{scope: scope, name: name})
		src = src[i+j+2:]
	}
}

func (t template) render(act *activation) string {
	if len(t.parts) == 1 && t.parts[0].scope == "" {
		return t.parts[0].text
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.scope == "" {
			b.WriteString(p.text)
			continue
		}
		b.WriteString(lookupForTemplate(act, p.scope, p.name))
	}
	return b.String()
}

func lookupForTemplate(act *activation, scope, name string) string {
	switch scope {
	case "r":
		if r, ok := act.r.(*Record); ok {
			return r.String(name)
		}
	case "args":
		if a, ok := act.args.(*argValues); ok {
			if p := a.tool.byName[name]; p != nil && a.vals[p.index] != nil {
				return fmt.Sprint(goValue(a.vals[p.index]))
			}
		}
	case "target":
		if r, ok := act.extra["target"].(*Record); ok {
			return r.String(name)
		}
	case "knows":
		if m, ok := act.extra["knows"]; ok {
			if mm, ok := m.Value().(map[string]any); ok {
				return fmt.Sprint(mm[name])
			}
		}
	}
	return ""
}
