package scaffold

import (
	"fmt"
	"strings"
)

// The draft model: what the emitter writes as YAML. Every guess the
// inference makes is kept as a note beside the thing it is about, and
// written as a "# check:" comment.

type draft struct {
	world  string
	header []string // the caller's comment lines for the file's head
	src    *Source
	types  []*rtype
	tools  []*tool
	goals  []*goal
}

type rtype struct {
	name   string
	prefix string
	count  int
	fields []*field
	from   string // where the type was read from, for its comment
}

func (t *rtype) field(name string) *field {
	for _, f := range t.fields {
		if f.name == name {
			return f
		}
	}
	return nil
}

// label is the field an agent is told to name the record by: a name or a
// title when the type has one, else the id.
func (t *rtype) label() *field {
	for _, n := range []string{"name", "title", "full_name", "display_name", "subject", "email", "path"} {
		if f := t.field(n); f != nil && f.typ == "str" {
			return f
		}
	}
	for _, f := range t.fields {
		if f.typ == "str" && strings.HasSuffix(f.name, "_name") {
			return f
		}
	}
	return t.field("id")
}

type field struct {
	name     string
	orig     string // as the API names it
	typ      string // id, str, int, float, bool, enum, datetime
	values   []string
	gen      string
	min, max *float64
	p        float64 // bool: probability of true
	nearDup  bool
	fromName string // gen email: the field to derive it from
	notes    []string
}

// roles are what a tool does in the world, finer than its kind.
type role int

const (
	roleGet role = iota
	roleList
	roleCreate
	roleUpdate
	roleDelete
	roleFieldAdd   // update: appends to one field of the target (add_observations)
	roleFieldClear // custom: empties one field of the target (delete_observations)
	roleDeleteBy   // custom: deletes the record whose fields match the arguments (delete_relations)
	roleCustom     // custom: no effects herd can infer
)

func (r role) kind() string {
	switch r {
	case roleGet:
		return "get"
	case roleList:
		return "list"
	case roleCreate:
		return "create"
	case roleUpdate, roleFieldAdd:
		return "update"
	case roleDelete:
		return "delete"
	}
	return "custom"
}

func (r role) writes() bool { return r != roleGet && r != roleList }

type tool struct {
	name   string
	op     *Op
	role   role
	record *rtype
	key    string // the param that selects the target, "" for none
	params []*param
	field  *field // roleFieldAdd/roleFieldClear: the field written
	value  *param // roleFieldAdd: the param whose value is written
	// searchParam is a list tool's free-text param, searched over
	// searchFields ("" for none).
	searchParam  string
	searchFields []string
	notes        []string
	// destroys: the tool erases data, as the server says (destructiveHint)
	// or as its kind does.
	destroys bool
}

func (t *tool) param(name string) *param {
	for _, p := range t.params {
		if p.name == name {
			return p
		}
	}
	return nil
}

type param struct {
	name        string
	orig        string
	typ         string // str, int, float, bool, enum
	values      []string
	required    bool
	description string
	min, max    *float64
	notes       []string
}

// infer builds the draft's types and tools from the source.
func infer(src *Source, world string) (*draft, error) {
	d := &draft{world: world, src: src}
	ops := make([]*opInfo, len(src.Ops))
	for i, n := range toolNames(src) {
		ops[i] = classify(&src.Ops[i], n)
	}
	d.collectTypes(ops)
	for _, oi := range ops {
		d.tools = append(d.tools, d.buildTool(oi))
	}
	d.finishFields()
	return d, nil
}

// opInfo is what classify learned about one operation.
type opInfo struct {
	op     *Op
	name   string
	verb   string
	fam    verbFamily
	object string // the name's object, singular snake ("entity", "pet")
	// args are the operation's arguments, flattened: a single list (or
	// object) of records becomes that record's properties.
	args      []Property
	batchOf   string // the name of the list argument flattened away
	readOnly  bool
	destroys  bool
	pathParam string // an OpenAPI operation's last path param
	resource  string // an OpenAPI path's resource (/pets/{petId} → pet)
}

func classify(op *Op, name string) *opInfo {
	oi := &opInfo{op: op, name: name}
	var obj []string
	oi.verb, oi.fam, obj = splitVerb(name)
	oi.object = singularName(strings.Join(obj, "_"))
	oi.args = op.Input.Properties
	if len(oi.args) == 1 {
		a := oi.args[0]
		switch {
		case a.Schema.Type == "array" && a.Schema.Items != nil && a.Schema.Items.Type == "object" && len(a.Schema.Items.Properties) > 0:
			oi.args, oi.batchOf = a.Schema.Items.Properties, a.Name
		case a.Schema.Type == "object" && len(a.Schema.Properties) > 0:
			oi.args, oi.batchOf = a.Schema.Properties, a.Name
		}
	}
	switch {
	case op.Method != "":
		oi.readOnly = op.Method == "GET"
		oi.destroys = op.Method == "DELETE"
		if len(op.PathParams) > 0 {
			oi.pathParam = op.PathParams[len(op.PathParams)-1]
		}
		oi.resource = pathResource(op.Path)
		switch op.Method {
		case "POST":
			if oi.fam == verbUnknown || oi.fam == verbRead || oi.fam == verbList {
				oi.fam = verbCreate
				if oi.pathParam != "" {
					oi.fam = verbOther
				}
			}
		case "PUT", "PATCH":
			if oi.fam != verbOther {
				oi.fam = verbUpdate
			}
		case "DELETE":
			oi.fam = verbDelete
		case "GET":
			if oi.pathParam != "" {
				oi.fam = verbRead
			} else {
				oi.fam = verbList
			}
		}
	case op.Hints != nil:
		// Annotations first: the spec's destructive hint matters only when
		// the tool is not read-only.
		oi.readOnly = op.Hints.ReadOnly
		oi.destroys = !op.Hints.ReadOnly && op.Hints.Destructive && (op.Hints.DestructiveSent || oi.fam == verbDelete)
	default:
		oi.readOnly = oi.fam == verbRead || oi.fam == verbList
		oi.destroys = oi.fam == verbDelete
	}
	if oi.readOnly && oi.fam != verbRead && oi.fam != verbList {
		oi.fam = verbRead // read-only whatever its name says (open_nodes)
	}
	return oi
}

// pathResource is the last literal segment of an OpenAPI path, singular
// (/pets/{petId} → pet, /stores/{id}/orders → order).
func pathResource(path string) string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for i := len(segs) - 1; i >= 0; i-- {
		s := segs[i]
		if s != "" && !strings.HasPrefix(s, "{") {
			return singularName(Name(s))
		}
	}
	return ""
}

// collectTypes finds the record types: the records create tools take,
// the lists of records read tools return, and an OpenAPI path's resource.
func (d *draft) collectTypes(ops []*opInfo) {
	for _, oi := range ops {
		switch {
		case oi.fam == verbCreate && !oi.readOnly:
			name := oi.resource
			if oi.batchOf != "" && name == "" {
				name = singularName(Name(oi.batchOf))
			}
			if name == "" {
				name = oi.object
			}
			d.addFields(name, oi.args, fmt.Sprintf("what %s takes", oi.name))
		case oi.readOnly && oi.op.Output != nil:
			out := oi.op.Output
			// what returns: "create_entities returns" or, for an answer
			// herd asked for, "… returned when herd called it".
			verb := "returns"
			if oi.op.sampled {
				verb = "returned when herd called it"
			}
			returns := func(of string) string { return fmt.Sprintf("%s %s %s", of, oi.name, verb) }
			if out.Type == "array" && out.Items != nil && out.Items.Type == "object" {
				name := firstNonEmpty(oi.resource, oi.object)
				d.addFields(name, out.Items.Properties, returns("what"))
				continue
			}
			if out.Type == "object" && oi.resource != "" && len(out.Properties) > 0 && !hasRecordList(out) {
				d.addFields(oi.resource, out.Properties, returns("what"))
				continue
			}
			for _, p := range out.Properties {
				if p.Schema.Type == "array" && p.Schema.Items != nil && p.Schema.Items.Type == "object" {
					d.addFields(singularName(Name(p.Name)), p.Schema.Items.Properties, returns("the "+p.Name))
				}
			}
		}
	}
	for _, oi := range ops {
		if oi.resource != "" && d.typeNamed(oi.resource) == nil {
			d.addFields(oi.resource, nil, fmt.Sprintf("the path %s", oi.op.Path))
		}
	}
	d.sharedNounTypes(ops)
	if len(d.types) == 0 {
		// Nothing looks like a record: one type named after the first
		// tool's object, so that the tools have something to work on.
		name := "record"
		for _, oi := range ops {
			if oi.object != "" {
				name = oi.object
				break
			}
		}
		t := d.addFields(name, ops[0].args, fmt.Sprintf("no tool takes or returns a list of records; guessed from %s", ops[0].name))
		t.count = 20
	}
}

// notNouns are name parts that say how a tool acts, not what on
// (get_file_info, read_multiple_files): never a record type's name.
var notNouns = map[string]bool{"info": true, "details": true, "detail": true, "multiple": true, "many": true,
	"all": true, "batch": true, "bulk": true, "text": true, "media": true, "tree": true, "size": true, "sizes": true,
	"status": true, "metadata": true, "one": true, "single": true, "allowed": true}

// headNoun is the word of a tool's object that names what it acts on:
// the last word that is not a qualifier (read_text_file → file,
// get_file_info → file).
func headNoun(object string) string {
	parts := strings.Split(object, "_")
	for i := len(parts) - 1; i >= 0; i-- {
		if p := singular(parts[i]); p != "" && !notNouns[p] {
			return p
		}
	}
	return ""
}

// sharedNounTypes adds a record type for a noun that two or more tools'
// names act on and no type has yet (read_file, write_file, move_file →
// file): a server whose create tools take no records and whose reads
// declare no output still names its records in its tools. Its fields are
// the scalar params of the tools that write it.
func (d *draft) sharedNounTypes(ops []*opInfo) {
	count := map[string]int{}
	var order []string
	for _, oi := range ops {
		n := headNoun(oi.object)
		if n == "" || d.typeNamed(n) != nil || d.isField(n) || d.outputType(oi) != nil {
			continue
		}
		if count[n] == 0 {
			order = append(order, n)
		}
		count[n]++
	}
	for _, n := range order {
		if count[n] < 2 {
			continue
		}
		var writers []string
		t := d.addFields(n, nil, "")
		for _, oi := range ops {
			// Only what creates or rewrites the record says what it holds;
			// flags (dry_run) are options of a call, not fields.
			if headNoun(oi.object) != n || oi.readOnly || oi.fam != verbCreate && oi.fam != verbUpdate {
				continue
			}
			writers = append(writers, oi.name)
			for _, a := range oi.args {
				st := a.Schema.Type
				if st != "object" && st != "boolean" && !(st == "array" && a.Schema.Items != nil && a.Schema.Items.Type == "object") {
					d.addFields(n, []Property{a}, "")
				}
			}
		}
		t.from = fmt.Sprintf("the %d tools named for %ss", count[n], n)
		if len(writers) > 0 {
			t.from += fmt.Sprintf(" (fields: the params of %s)", strings.Join(writers, ", "))
		}
	}
}

// outputType is the type whose records a tool's result lists (search_nodes
// returns entities), nil when it lists none.
func (d *draft) outputType(oi *opInfo) *rtype {
	if out := oi.op.Output; out != nil {
		for _, p := range out.Properties {
			if p.Schema.Type == "array" {
				if t := d.typeNamed(singularName(Name(p.Name))); t != nil {
					return t
				}
			}
		}
	}
	return nil
}

func (d *draft) isField(name string) bool {
	for _, t := range d.types {
		if t.field(name) != nil || t.field(name+"s") != nil {
			return true
		}
	}
	return false
}

func hasRecordList(s *Schema) bool {
	for _, p := range s.Properties {
		if p.Schema.Type == "array" && p.Schema.Items != nil && p.Schema.Items.Type == "object" {
			return true
		}
	}
	return false
}

func (d *draft) typeNamed(name string) *rtype {
	for _, t := range d.types {
		if t.name == name {
			return t
		}
	}
	return nil
}

// addFields adds a type (or merges fields into it) from the properties
// of a record schema.
func (d *draft) addFields(name string, props []Property, from string) *rtype {
	if name == "" {
		name = "record"
	}
	t := d.typeNamed(name)
	if t == nil {
		t = &rtype{name: name, count: 40, from: from, fields: []*field{{name: "id", typ: "id"}}}
		d.types = append(d.types, t)
	}
	for _, p := range props {
		fname := Name(p.Name)
		if fname == "id" {
			idf := t.field("id")
			idf.orig = p.Name
			if note := fmt.Sprintf("the API's id is %s; herd's ids are strings", describeType(p.Schema)); p.Schema.Type != "" && p.Schema.Type != "string" && !contains(idf.notes, note) {
				idf.notes = append(idf.notes, note)
			}
			continue
		}
		if t.field(fname) != nil {
			continue
		}
		if f := fieldFromSchema(fname, p); f != nil {
			t.fields = append(t.fields, f)
		}
	}
	return t
}

func describeType(s *Schema) string {
	if s.Format != "" {
		return s.Type + " (" + s.Format + ")"
	}
	return s.Type
}

// fieldFromSchema makes a record field of a property; nil for what a
// field cannot hold (a nested object).
func fieldFromSchema(name string, p Property) *field {
	s := p.Schema
	f := &field{name: name, orig: p.Name}
	switch {
	case len(s.Enum) > 0:
		f.typ, f.values = "enum", s.Enum
	case s.Type == "string" && (s.Format == "date-time" || s.Format == "date"):
		f.typ, f.gen = "datetime", "past"
	case s.Type == "string" || s.Type == "":
		f.typ = "str"
	case s.Type == "integer":
		f.typ = "int"
	case s.Type == "number":
		f.typ = "float"
	case s.Type == "boolean":
		f.typ, f.p = "bool", 0.2
	case s.Type == "array" && s.Items != nil && (s.Items.Type == "string" || s.Items.Type == ""):
		f.typ = "str"
		f.notes = append(f.notes, "a list of strings in the API; one text here")
	default:
		return nil
	}
	if f.typ == "int" || f.typ == "float" {
		f.min, f.max = s.Minimum, s.Maximum
	}
	f.gen = firstNonEmpty(f.gen, guessGen(name, f.typ, s.Description))
	return f
}

// guessGen picks a seed generator from a field's name and description.
func guessGen(name, typ, desc string) string {
	has := func(ws ...string) bool {
		for _, w := range ws {
			if name == w || strings.HasSuffix(name, "_"+w) || strings.HasPrefix(name, w+"_") {
				return true
			}
		}
		return false
	}
	switch typ {
	case "str":
		switch {
		case has("email"):
			return "email"
		case has("title", "subject", "summary"):
			return "title"
		case has("company", "organization", "organisation", "org"):
			return "company"
		case has("city", "town"):
			return "city"
		case has("path", "file", "filename"):
			return "path"
		case has("sku"):
			return "sku"
		case has("first_name"):
			return "first_name"
		case has("last_name", "surname"):
			return "last_name"
		case has("name", "from", "to", "owner", "author", "assignee", "user"):
			return "person_name"
		case has("description", "observation", "observations", "content", "contents", "body", "text",
			"message", "note", "notes", "comment", "comments"):
			return "sentence"
		}
		if strings.Contains(strings.ToLower(desc), "name of") {
			return "person_name"
		}
		return "word"
	case "int":
		switch {
		case has("amount", "price", "total", "cost", "balance"):
			return "amount"
		}
		return "uniform"
	case "float":
		return "uniform"
	}
	return ""
}

// buildTool maps one operation to a world tool.
func (d *draft) buildTool(oi *opInfo) *tool {
	t := &tool{name: oi.name, op: oi.op, destroys: oi.destroys}
	if oi.batchOf != "" {
		t.notes = append(t.notes, fmt.Sprintf("the server takes a list (%s); here one record per call", oi.batchOf))
	}
	rec, viaField := d.recordFor(oi)
	t.record = rec
	t.field = viaField
	if rec == nil {
		t.role = roleCustom
		t.notes = append(t.notes, "no record type found for this tool; it changes nothing here — give it a record and effects")
		t.params = d.params(oi, nil, "")
		return t
	}
	t.key = d.keyFor(oi, rec)
	t.params = d.params(oi, rec, t.key)
	if t.key != "" && t.param(t.key) == nil {
		t.key = "" // its param could not be carried (a list of objects)
	}
	switch {
	case oi.fam == verbRead || oi.fam == verbList:
		t.role = roleList
		if oi.fam == verbRead && t.key != "" {
			t.role = roleGet
		}
		if t.role == roleList {
			t.key = ""
			for _, p := range t.params {
				if rec.field(p.name) != nil {
					t.notes = append(t.notes, fmt.Sprintf("%s is a field of %s, so here it filters by equality; check that the server means that", p.name, rec.name))
				}
			}
			for _, p := range t.params {
				if p.typ == "str" && rec.field(p.name) == nil && (p.name == "query" || p.name == "q" || p.name == "search" || p.name == "text") {
					for _, f := range rec.fields {
						if f.typ == "str" {
							t.searchFields = append(t.searchFields, f.name)
						}
					}
					if len(t.searchFields) > 0 {
						t.searchParam = p.name
						t.notes = append(t.notes, fmt.Sprintf("%s is taken as a text search over every text field; check which fields the server searches", p.name))
					}
					break
				}
			}
		}
	case viaField != nil && (oi.fam == verbAdd || oi.fam == verbCreate || oi.fam == verbUpdate):
		t.role = roleFieldAdd
		t.value = fieldValueParam(t, viaField)
		if t.value == nil {
			t.role = roleUpdate
			t.notes = append(t.notes, fmt.Sprintf("no param gives the new %s; check what it changes", viaField.name))
		} else {
			t.notes = append(t.notes, fmt.Sprintf("taken as adding %s to the %s's %s", t.value.name, rec.name, viaField.name))
		}
	case viaField != nil && oi.fam == verbDelete:
		t.role = roleFieldClear
		t.destroys = true
		t.notes = append(t.notes, fmt.Sprintf("taken as emptying the %s's %s (the server removes only the ones named)", rec.name, viaField.name))
	case oi.fam == verbCreate || oi.fam == verbAdd:
		t.role = roleCreate
		t.key = ""
		if p := t.param("id"); p != nil {
			t.dropParam("id", "the id is generated here; the API takes one")
		}
	case oi.fam == verbDelete && t.key != "":
		t.role = roleDelete
		t.destroys = true
	case oi.fam == verbDelete:
		if matchFields(t, rec) {
			t.role = roleDeleteBy
			t.destroys = true
			t.notes = append(t.notes, fmt.Sprintf("deletes the %s whose fields equal the arguments", rec.name))
		} else {
			t.role = roleCustom
			t.notes = append(t.notes, "no param selects the record to delete; write its effects")
		}
	case oi.fam == verbUpdate && t.key != "":
		t.role = roleUpdate
	default:
		t.role = roleCustom
		t.notes = append(t.notes, "herd cannot tell what this tool changes; it changes nothing here until you write its effects")
	}
	if !t.role.writes() && t.key == "" && t.role == roleGet {
		t.role = roleList
	}
	if (t.role == roleUpdate || t.role == roleDelete || t.role == roleGet || t.role == roleFieldAdd || t.role == roleFieldClear) && t.key == "" {
		t.role = roleCustom
		t.notes = append(t.notes, "no param selects the record; it changes nothing here until you write its effects")
	}
	if p := t.param("limit"); p != nil && t.role == roleList && p.typ != "int" && rec.field("limit") == nil {
		// herd's list tools read a param named limit as the page size.
		p.name = "limit_value"
		p.notes = append(p.notes, fmt.Sprintf("limit is %s in the API; herd reads a list's limit as an int page size, so it is renamed here", p.typ))
	}
	return t
}

// recordFor finds the record type a tool works on, and the field when
// the tool works on one field of it (add_observations → entity's
// observations).
func (d *draft) recordFor(oi *opInfo) (*rtype, *field) {
	if oi.resource != "" {
		if t := d.typeNamed(oi.resource); t != nil {
			return t, nil
		}
	}
	if t := d.typeNamed(oi.object); t != nil && oi.object != "" {
		return t, nil
	}
	if t := d.typeNamed(headNoun(oi.object)); t != nil && oi.object != "" {
		return t, nil
	}
	if oi.batchOf != "" {
		if t := d.typeNamed(singularName(Name(oi.batchOf))); t != nil {
			return t, nil
		}
	}
	// A read tool that returns a list of one type's records works on it.
	if t := d.outputType(oi); t != nil {
		return t, nil
	}
	// The tool's object is a field of a type: it writes that field.
	for _, t := range d.types {
		if oi.object == "" {
			break
		}
		if f := t.field(Name(oi.object)); f != nil && f.typ != "id" {
			return t, f
		}
		if f := t.field(Name(oi.object) + "s"); f != nil && f.typ != "id" {
			return t, f
		}
	}
	// A param names a type: entity_name, pet_id.
	for _, a := range oi.args {
		n := Name(a.Name)
		for _, t := range d.types {
			if strings.HasPrefix(n, t.name+"_") {
				return t, nil
			}
		}
	}
	if len(d.types) == 1 {
		return d.types[0], nil
	}
	return nil, nil
}

// keyFor picks the param that selects the target record.
func (d *draft) keyFor(oi *opInfo, rec *rtype) string {
	if oi.pathParam != "" {
		return Name(oi.pathParam)
	}
	var cands []string
	for _, a := range oi.args {
		n := singularName(Name(a.Name))
		if a.Schema.Type == "object" {
			continue
		}
		switch {
		case n == "id" || n == rec.name+"_id" || n == rec.name+"_name":
			return n
		case strings.HasSuffix(n, "_id") && a.Required:
			cands = append(cands, n)
		case n == "name" && (len(oi.args) == 1 || a.Schema.Type == "array"):
			cands = append(cands, n)
		case a.Required && (n == "path" || n == "file_path" || n == "uri" || n == "url" || n == "key" || n == "filename"):
			// Records addressed by where they are (a file by its path).
			cands = append(cands, n)
		}
	}
	if len(cands) > 0 {
		return cands[0]
	}
	return ""
}

// params converts the flattened arguments into world params. The key is
// a required str whatever the API says (herd selects records by their
// string id); a list of scalars becomes one scalar.
func (d *draft) params(oi *opInfo, rec *rtype, key string) []*param {
	var out []*param
	seen := map[string]bool{}
	for _, a := range oi.args {
		s := a.Schema
		n := Name(a.Name)
		p := &param{orig: a.Name, required: a.Required, description: strings.TrimSpace(s.Description)}
		if s.Type == "array" {
			if singularName(n) == key {
				n = key
				p.notes = append(p.notes, fmt.Sprintf("%s is a list in the API; one per call here", a.Name))
			} else if s.Items == nil || s.Items.Type == "object" {
				p.notes = append(p.notes, fmt.Sprintf("%s is a list of objects in the API; left out", a.Name))
				continue
			} else {
				p.notes = append(p.notes, fmt.Sprintf("%s is a list in the API; one text here", a.Name))
			}
			if s.Items != nil {
				desc := p.description
				s = s.Items
				p.description = firstNonEmpty(desc, strings.TrimSpace(s.Description))
			}
		}
		if s.Type == "object" {
			continue
		}
		p.name = n
		if seen[n] {
			continue
		}
		seen[n] = true
		switch {
		case len(s.Enum) > 0:
			p.typ, p.values = "enum", s.Enum
		case s.Type == "integer":
			p.typ = "int"
		case s.Type == "number":
			p.typ = "float"
		case s.Type == "boolean":
			p.typ = "bool"
		default:
			p.typ = "str"
		}
		if p.typ == "int" || p.typ == "float" {
			p.min, p.max = s.Minimum, s.Maximum
		}
		if n == key {
			if p.typ != "str" {
				p.notes = append(p.notes, fmt.Sprintf("%s is %s in the API; herd's ids are strings", a.Name, describeType(s)))
			}
			p.typ, p.values, p.min, p.max, p.required = "str", nil, nil, nil, true
		}
		// A param named like a field must carry the field's type.
		if rec != nil && n != key {
			if f := rec.field(n); f != nil && !fits(p.typ, f.typ) {
				p.notes = append(p.notes, fmt.Sprintf("its type differs from field %s.%s; renamed", rec.name, n))
				p.name = n + "_value"
			}
		}
		out = append(out, p)
	}
	return out
}

func fits(pt, ft string) bool {
	switch ft {
	case "str", "id":
		return pt == "str"
	case "enum":
		return pt == "enum" || pt == "str"
	case "int":
		return pt == "int"
	case "float":
		return pt == "float" || pt == "int"
	case "bool":
		return pt == "bool"
	}
	return false // datetime: no param carries one
}

func (t *tool) dropParam(name, why string) {
	for i, p := range t.params {
		if p.name == name {
			t.params = append(t.params[:i], t.params[i+1:]...)
			t.notes = append(t.notes, fmt.Sprintf("param %s left out: %s", p.orig, why))
			return
		}
	}
}

// fieldValueParam is the param whose value a field-writing tool writes:
// the one named like the field, else the only other text param.
func fieldValueParam(t *tool, f *field) *param {
	if p := t.param(f.name); p != nil && p.name != t.key {
		return p
	}
	var only *param
	for _, p := range t.params {
		if p.name == t.key || p.typ != "str" {
			continue
		}
		if only != nil {
			return nil
		}
		only = p
	}
	return only
}

// matchFields reports whether every required param names a field of rec:
// the record is then found by its fields (delete_relations by from, to and
// relation_type).
func matchFields(t *tool, rec *rtype) bool {
	n := 0
	for _, p := range t.params {
		if !p.required {
			continue
		}
		f := rec.field(p.name)
		if f == nil || f.typ == "id" || !fits(p.typ, f.typ) {
			return false
		}
		n++
	}
	return n > 0
}

// finishFields settles what the tools' params ask of the fields: a
// datetime field that a param writes becomes text (no param carries a
// time), and the type's id prefix is chosen unique.
func (d *draft) finishFields() {
	// A field changed for one tool's key may no longer fit another
	// tool's param: repeat until every param fits (each pass only turns
	// fields into text or renames params, so it ends).
	for changed := true; changed; {
		changed = d.fitParams()
	}
	d.choosePrefixes()
}

// fitParams makes one pass over the tools' params, making each param
// named like a field carry that field's type; it reports whether it
// changed anything.
func (d *draft) fitParams() bool {
	changed := false
	for _, t := range d.tools {
		if t.record == nil {
			continue
		}
		for _, p := range t.params {
			f := t.record.field(p.name)
			if f == nil || fits(p.typ, f.typ) {
				continue
			}
			changed = true
			switch {
			case f.typ == "datetime":
				f.typ, f.gen = "str", "word"
				f.notes = append(f.notes, "a date-time in the API; text here, since a tool's param carries it")
			case p.name == t.key:
				// The key is a string (herd's ids are); a field of its name
				// must be one too.
				f.typ, f.gen, f.values, f.min, f.max = "str", "word", nil, nil, nil
				f.notes = append(f.notes, fmt.Sprintf("text here: %s's key %s is a string", t.name, p.name))
			default:
				p.notes = append(p.notes, fmt.Sprintf("its type (%s) differs from field %s.%s (%s); renamed", p.typ, t.record.name, f.name, f.typ))
				p.name += "_value"
			}
		}
	}
	return changed
}

// choosePrefixes gives each type a unique id prefix, and its fields the
// generator details that depend on their siblings.
func (d *draft) choosePrefixes() {
	used := map[string]bool{}
	for _, t := range d.types {
		prefix := t.name[:1]
		for i := 2; used[prefix] && i <= len(t.name); i++ {
			prefix = t.name[:i]
		}
		for n := 2; used[prefix]; n++ {
			prefix = fmt.Sprintf("%s%d", t.name[:1], n)
		}
		used[prefix] = true
		t.prefix = prefix + "_"
		for _, f := range t.fields {
			if f.gen == "person_name" && f.name == "name" {
				f.nearDup = true
			}
			if f.gen == "email" {
				if nf := t.field("name"); nf != nil && nf.typ == "str" {
					f.fromName = "name"
				}
			}
		}
	}
}
