package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// txn buffers one call's writes so that a call that fails half-way through
// its effects changes nothing. Reads inside the call see its own writes.
// A call writes a handful of records, so the first few writes live in an
// array inside the txn (which stays on the caller's stack); only a call
// that writes more spills to the heap.
type txn struct {
	s      *Session
	n      int
	inline [txnInline]txnEntry
	spill  []txnEntry
}

// txnEntry is one buffered write: a record, or a deletion (rec == nil).
type txnEntry struct {
	key recKey
	rec *Record
}

// txnInline is how many writes fit in the txn before it spills.
const txnInline = 4

// at returns the i-th buffered write.
func (tx *txn) at(i int) *txnEntry {
	if i < txnInline {
		return &tx.inline[i]
	}
	return &tx.spill[i-txnInline]
}

func (tx *txn) add(e txnEntry) {
	if tx.n < txnInline {
		tx.inline[tx.n] = e
	} else {
		tx.spill = append(tx.spill, e)
	}
	tx.n++
}

func (tx *txn) get(t *RecordType, id string) *Record {
	for i := tx.n - 1; i >= 0; i-- {
		if e := tx.at(i); e.key.t == t.index && e.key.id == id {
			return e.rec
		}
	}
	return tx.s.Get(t, id)
}

// owns reports whether r was made by this call and not yet stored, so it
// may still be modified in place.
func (tx *txn) owns(r *Record) bool {
	for i := 0; i < tx.n; i++ {
		if tx.at(i).rec == r {
			return true
		}
	}
	return false
}

func (tx *txn) put(r *Record) {
	for i := tx.n - 1; i >= 0; i-- {
		if e := tx.at(i); e.key.t == r.typ.index && e.key.id == r.id {
			if e.rec == r {
				return // already the latest write: it was changed in place
			}
			break
		}
	}
	tx.add(txnEntry{key: recKey{r.typ.index, r.id}, rec: r})
}

func (tx *txn) remove(t *RecordType, id string) {
	tx.add(txnEntry{key: recKey{t.index, id}})
}

// commit stores the buffered writes in the session's overlay.
func (tx *txn) commit() {
	s := tx.s
	for i := 0; i < tx.n; i++ {
		e := tx.at(i)
		s.noteWrite(e.key)
		if s.staleSeen != nil {
			s.countStaleOverwrite(e.key, e.rec)
		}
		if e.rec == nil {
			s.remove(s.base.world.Types[e.key.t], e.key.id)
			continue
		}
		if _, inBase := s.base.index[e.key.t][e.key.id]; !inBase {
			if _, known := s.overlay[e.key]; !known {
				s.addCreated(e.key)
			}
		}
		s.put(e.rec)
	}
}

// checkWrites refuses a call whose writes would leave a record that the
// world's declarations forbid: a value of the wrong type (an expression of
// dynamic type can produce one), an enum value not in the list, a number
// outside its field's min/max, or a float that is not finite (JSON has no
// NaN). Such a call changes nothing, like any other failed call.
func (tx *txn) checkWrites() *ToolError {
	for i := 0; i < tx.n; i++ {
		r := tx.at(i).rec
		if r == nil {
			continue
		}
		for _, f := range r.typ.Fields {
			v := r.vals[f.Index]
			if v == nil {
				continue
			}
			if err := checkFieldValue(r, f, v); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkFieldValue(r *Record, f *Field, v ref.Val) *ToolError {
	bad := func(format string, a ...any) *ToolError {
		return &ToolError{Code: CodeInvalidArgument, Message: r.typ.Name + "." + f.Name + " " + fmt.Sprintf(format, a...)}
	}
	var x float64
	ok := false
	switch val := v.(type) {
	case types.String:
		ok = f.Type == FieldStr || f.Type == FieldRef || f.Type == FieldID || f.Type == FieldEnum
		if len(val) > maxStoredString {
			return bad("would be %d bytes long (at most %d)", len(val), maxStoredString)
		}
		if f.Type == FieldEnum && !slices.Contains(f.Values, string(val)) {
			return bad("would be %q, not one of %s", string(val), strings.Join(f.Values, ", "))
		}
	case types.Bool:
		ok = f.Type == FieldBool
	case types.Timestamp:
		ok = f.Type == FieldDatetime
	case types.Int:
		ok, x = f.Type == FieldInt, float64(val)
	case types.Double:
		ok, x = f.Type == FieldFloat, float64(val)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return bad("would be %v, not a finite number", x)
		}
	}
	if !ok {
		return &ToolError{Code: CodeRuleError, Message: fmt.Sprintf("%s.%s is a %s field, but a rule gave it a %s value", r.typ.Name, f.Name, f.Type, v.Type().TypeName())}
	}
	// Only int and float fields have bounds.
	if f.Min != nil && x < *f.Min {
		return bad("would be %v, below its minimum %v", x, *f.Min)
	}
	if f.Max != nil && x > *f.Max {
		return bad("would be %v, above its maximum %v", x, *f.Max)
	}
	return nil
}

// precondition is one compiled `when` entry.
type precondition struct {
	expr    *program
	code    string
	message template
}

func (pc *precondition) render(act *activation) string { return pc.message.render(act.placeholder) }

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
		// Every expression sees r as it was before this effect: evaluate
		// them all, then write.
		var buf [8]ref.Val
		vals := buf[:0]
		for _, a := range ef.assign {
			v, err := a.expr.eval(act)
			if err != nil {
				return nil, ruleError(err)
			}
			vals = append(vals, v)
		}
		next := cur
		if !tx.owns(cur) { // a stored record is immutable: copy it
			next = cur.clone()
		}
		for i, a := range ef.assign {
			next.vals[a.field.Index] = vals[i]
		}
		tx.put(next)
		act.r = next
		return nil, nil
	case effectCreate:
		rec := s.newRecordWithDefaults(ef.typ)
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

// template is a message with {{scope.name}} placeholders, parsed once at
// load: {{r.field}} and {{args.param}} in rule messages, {{target.field}}
// and {{knows.key}} in a goal's intent.
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
		// Which scopes and names exist depends on where the template is
		// used; the compiler checks that (compiler.template).
		t.parts = append(t.parts, templatePart{scope: scope, name: name})
		src = src[i+j+2:]
	}
}

// render fills each placeholder with value(scope, name). The caller knows
// which scopes its template may hold: the compiler allowed no others.
func (t template) render(value func(scope, name string) string) string {
	if len(t.parts) == 1 && t.parts[0].scope == "" {
		return t.parts[0].text
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.scope == "" {
			b.WriteString(p.text)
			continue
		}
		b.WriteString(value(p.scope, p.name))
	}
	return b.String()
}

// placeholder is the text of {{r.field}} or {{args.param}} in a rule's
// message: a precondition's or an invariant's.
func (a *activation) placeholder(scope, name string) string {
	switch scope {
	case "r":
		if r, ok := a.r.(*Record); ok {
			return r.String(name)
		}
	case "args":
		if av, ok := a.args.(*argValues); ok {
			if p := av.tool.byName[name]; p != nil && av.vals[p.index] != nil {
				return fmt.Sprint(goValue(av.vals[p.index]))
			}
		}
	}
	return ""
}
