package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Variant is the one description variant of a scaffolded world: the
// server's own texts.
const Variant = "yours"

// q quotes a string as a YAML double-quoted scalar (JSON's escaping is
// YAML's).
func q(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// oneLine flattens a text to one line for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func num(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

type emitter struct {
	b bytes.Buffer
}

func (e *emitter) line(indent int, format string, args ...any) {
	e.b.WriteString(strings.Repeat("  ", indent))
	fmt.Fprintf(&e.b, format, args...)
	e.b.WriteByte('\n')
}

// notes writes "# check: …" lines above a thing.
func (e *emitter) notes(indent int, notes []string) {
	for _, n := range notes {
		e.line(indent, "# check: %s", oneLine(n))
	}
}

// comments writes plain comment lines.
func (e *emitter) comments(indent int, lines ...string) {
	for _, l := range lines {
		if l == "" {
			e.line(0, "#")
			continue
		}
		e.line(indent, "# %s", l)
	}
}

// emit writes the draft as a world file.
func (d *draft) emit() []byte {
	e := &emitter{}
	src := d.src
	who := src.Name
	if src.Version != "" {
		who += " " + src.Version
	}
	e.comments(0,
		fmt.Sprintf("A herd world drafted from the %d tools of the %s %s", len(src.Ops), src.Kind, who),
		fmt.Sprintf("(%s).", src.From),
		"",
		"It validates and runs as it is, but it is a draft: herd guessed the record",
		"types from the schemas and what each tool does from its annotations, name",
		"and schema. Lines marked `check:` are guesses to confirm against the real",
		"server; the format is in docs/worlds.md.",
		"",
		fmt.Sprintf("The one variant, %s, is the server's own descriptions; a descriptions", Variant),
		"file adds a rewrite as a second variant, to compare the two paired (the same",
		"agents under each wording).",
	)
	if len(d.header) > 0 {
		e.comments(0, "")
		e.comments(0, d.header...)
	}
	e.line(0, "world: %s", d.world)
	e.line(0, "version: 1")
	e.line(0, "description: %s", q(fmt.Sprintf("A draft fake of %s (%s), scaffolded from its tools: %s, %s and %s to check.",
		who, src.Kind, count(len(d.types), "record type"), count(len(d.tools), "tool"), count(len(d.goals), "goal"))))
	if about := oneLine(src.About); about != "" {
		e.line(0, "instructions: %s", q(about))
	}
	e.line(0, "seed: 1")
	e.line(0, "variants: [%s]   # the server's texts; a descriptions file adds more", Variant)
	e.line(0, "")
	e.line(0, "types:")
	for _, t := range d.types {
		e.line(1, "# %s: read from %s.", t.name, t.from)
		e.line(1, "%s:", t.name)
		e.line(2, "count: %d   # check: how many to seed", t.count)
		e.line(2, "fields:")
		for _, f := range t.fields {
			e.notes(3, f.notes)
			e.line(3, "%s: %s%s", f.name, f.yaml(t), origComment(f.orig, f.name))
		}
	}
	e.line(0, "")
	e.line(0, "tools:")
	for _, t := range d.tools {
		d.emitTool(e, t)
	}
	e.line(0, "")
	e.line(0, "goals:")
	for _, g := range d.goals {
		d.emitGoal(e, g)
	}
	return e.b.Bytes()
}

func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func origComment(orig, name string) string {
	if orig != "" && orig != name {
		return "   # API: " + orig
	}
	return ""
}

func (f *field) yaml(t *rtype) string {
	parts := []string{"type: " + f.typ}
	switch f.typ {
	case "id":
		parts = append(parts, "prefix: "+q(t.prefix))
	case "enum":
		vals := make([]string, len(f.values))
		for i, v := range f.values {
			vals[i] = q(v)
		}
		parts = append(parts, "values: ["+strings.Join(vals, ", ")+"]")
	case "bool":
		parts = append(parts, "p: "+num(f.p))
	case "int", "float":
		lo, hi := 0.0, 100.0
		if f.gen == "amount" {
			lo, hi = 100, 100000
		}
		if f.min != nil {
			lo = *f.min
		}
		if f.max != nil {
			hi = *f.max
		}
		if hi < lo {
			hi = lo
		}
		if f.typ == "int" {
			lo, hi = float64(int64(lo)), float64(int64(hi))
		}
		parts = append(parts, "gen: "+f.gen, "min: "+num(lo), "max: "+num(hi))
	case "str", "datetime":
		if f.gen != "" {
			parts = append(parts, "gen: "+f.gen)
		}
		if f.fromName != "" {
			parts = append(parts, "from: "+f.fromName)
		}
		if f.nearDup {
			parts = append(parts, "near_duplicates: 0.1")
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (d *draft) emitTool(e *emitter, t *tool) {
	op := t.op
	head := op.Name
	if op.Method != "" {
		head = op.Method + " " + op.Path + " (" + op.Name + ")"
	}
	e.line(1, "# %s → %s%s.", head, t.role.kind(), recordOf(t))
	e.notes(1, t.notes)
	e.line(1, "%s:", t.name)
	e.line(2, "kind: %s", t.role.kind())
	if t.record != nil {
		e.line(2, "record: %s", t.record.name)
	}
	if t.key != "" && t.key != "id" {
		e.line(2, "key: %s", t.key)
	}
	desc := descriptionOf(op, t.name)
	if strings.TrimSpace(op.Description) == "" {
		e.line(2, "# check: the server sends no description; this is its title or name")
	}
	e.line(2, "descriptions:")
	e.line(3, "%s: %s", Variant, q(desc))
	if h := op.Hints; h != nil {
		e.line(2, "annotations: {readOnly: %t, destructive: %t, idempotent: %t, openWorld: %t}   # as the server sends them",
			h.ReadOnly, !h.ReadOnly && h.Destructive, h.Idempotent, h.OpenWorld)
	}
	if len(t.params) > 0 {
		e.line(2, "params:")
		for _, p := range t.params {
			e.notes(3, p.notes)
			e.line(3, "%s: %s%s", p.name, p.yaml(), origComment(p.orig, p.name))
		}
	} else {
		e.line(2, "params: {}")
	}
	if t.searchParam != "" {
		e.line(2, "search: {param: %s, fields: [%s]}", t.searchParam, strings.Join(t.searchFields, ", "))
	}
	switch t.role {
	case roleFieldAdd:
		f, v := t.field.name, t.value.name
		val := "args." + v
		if !t.value.required {
			val = fmt.Sprintf("has(args.%s) ? args.%s : r.%s", v, v, f)
		}
		expr := val
		if t.field.typ == "str" {
			expr = fmt.Sprintf("r.%s == '' ? (%s) : r.%s + '; ' + (%s)", f, val, f, val)
		}
		e.line(2, "effects:")
		e.line(3, "- set: {%s: %s}", f, q(expr))
	case roleFieldClear:
		e.line(2, "effects:")
		e.line(3, "- set: {%s: %s}", t.field.name, q(zeroOf(t.field)))
	case roleDeleteBy:
		var conds []string
		for _, p := range t.params {
			if t.record.field(p.name) == nil {
				continue // not a field: says nothing of which record
			}
			c := fmt.Sprintf("q.%s == args.%s", p.name, p.name)
			if !p.required {
				c = fmt.Sprintf("(!has(args.%s) || %s)", p.name, c)
			}
			conds = append(conds, c)
		}
		match := strings.Join(conds, " && ")
		rec := t.record.name
		e.line(2, "when:")
		e.line(3, "- {expr: %s, error: not_found, message: %s}", q(fmt.Sprintf("records.%s.exists(q, %s)", rec, match)), q("no "+words(rec)+" matches those fields"))
		e.line(2, "effects:")
		e.line(3, "- delete: {type: %s, id: %s}", rec, q(fmt.Sprintf("records.%s.filter(q, %s)[0].id", rec, match)))
	}
}

func recordOf(t *tool) string {
	switch {
	case t.record == nil:
		return ""
	case t.field != nil:
		return " on " + t.record.name + "." + t.field.name
	}
	return " on " + t.record.name
}

func zeroOf(f *field) string {
	switch f.typ {
	case "int":
		return "0"
	case "float":
		return "0.0"
	case "bool":
		return "false"
	}
	return "''"
}

func (p *param) yaml() string {
	parts := []string{"type: " + p.typ}
	if p.required {
		parts = append(parts, "required: true")
	}
	if p.typ == "enum" {
		vals := make([]string, len(p.values))
		for i, v := range p.values {
			vals[i] = q(v)
		}
		parts = append(parts, "values: ["+strings.Join(vals, ", ")+"]")
	}
	if p.min != nil {
		parts = append(parts, "min: "+num(*p.min))
	}
	if p.max != nil {
		parts = append(parts, "max: "+num(*p.max))
	}
	if p.description != "" {
		parts = append(parts, "description: "+q(oneLine(p.description)))
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func (d *draft) emitGoal(e *emitter, g *goal) {
	var why []string
	var destroyers, marked []string
	for _, r := range g.rivals {
		if r.role == roleDelete || r.role == roleDeleteBy || r.role == roleFieldClear {
			destroyers = append(destroyers, r.name)
		} else {
			marked = append(marked, r.name)
		}
	}
	if len(destroyers) > 0 {
		why = append(why, fmt.Sprintf("An agent that takes %s instead destroys data.", strings.Join(destroyers, " or ")))
	}
	if len(marked) > 0 {
		why = append(why, fmt.Sprintf("The server marks %s destructive.", strings.Join(marked, " and ")))
	}
	e.line(1, "# %s", strings.TrimSpace("The tool meant: "+g.meant.name+". "+strings.Join(why, " ")))
	for _, n := range g.notes {
		e.line(1, "# check: %s", oneLine(n))
	}
	e.line(1, "# check: the intent is worded from the tool; write it as your users ask.")
	e.line(1, "%s:", g.name)
	e.line(2, "intent: %s", q(g.intent))
	if g.where != "" {
		e.line(2, "target: {record: %s, where: %s}", g.record.name, q(g.where))
	} else {
		e.line(2, "target: {record: %s}", g.record.name)
	}
	kn := make([]string, len(g.knows))
	for i, k := range g.knows {
		kn[i] = k[0] + ": " + q(k[1])
	}
	e.line(2, "knows: {%s}", strings.Join(kn, ", "))
	e.line(2, "outcomes:")
	width := 0
	for _, c := range g.classes {
		width = max(width, len(c.name))
	}
	for _, c := range g.classes {
		pad := strings.Repeat(" ", width-len(c.name))
		e.line(3, "- {class: %s,%s severity: %s,%s when: %s}", c.name, pad, c.severity, strings.Repeat(" ", 7-len(c.severity)), q(c.when))
	}
}
