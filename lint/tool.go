package lint

import (
	"strings"
)

// Tool is what the rubric reads about one tool: the same few facts an MCP
// client sees in tools/list, plus what a herd world knows besides (the
// kind and record type). It is built from an engine world by FromWorld,
// and can be built by hand from any server's tool list.
type Tool struct {
	Name        string
	Description string
	// Kind is get, list, create, update, delete or custom; "" when unknown
	// (an external server), in which case it is guessed from the name.
	Kind string
	// Record is the record type the tool works on, "" when unknown (then
	// guessed from the name: delete_contact → contact).
	Record string
	// Fields are the record type's field names, when known; they make the
	// suggested fixes concrete ("Fetch one contact by id: name, email…").
	Fields []string
	// IDPrefix is how the record's ids start ("c_"), when known.
	IDPrefix string
	Params   []Param
	// Annotations are the MCP hints; nil when the server sent none.
	Annotations *Annotations
	// IdempotencyKey is the param that makes a repeated call safe, "" when
	// there is none.
	IdempotencyKey string
	// InputSchema is the JSON Schema of the params as a model is sent it
	// (nil when unknown); only the token count reads it.
	InputSchema any

	// byNature caches destructiveByNature once a toolSet computed it: the
	// checks ask it of every sibling of every tool, and reading the first
	// sentence each time made lint quadratic in tokenizing.
	byNature, byNatureKnown bool
	// wordSet caches the description's words (mentions asks of each tool
	// whether it names each of its siblings).
	wordSet map[string]bool
	// effectClass caches effect(), and verbName, recordName and
	// familyName what the name says: every check asks them of every
	// sibling.
	effectClass                      Effect
	verbName, recordName, familyName string
	effectKnown, namesKnown          bool
}

// Param is one input parameter of a tool.
type Param struct {
	Name        string
	Type        string // str, int, float, bool, enum (or a JSON Schema type)
	Required    bool
	Description string
	Values      []string // enum values
}

// Annotations are the MCP tool hints, with MCP's defaults applied for the
// hints a server left out: readOnlyHint false, destructiveHint true,
// idempotentHint false, openWorldHint true. Destructive and Idempotent
// mean something only when ReadOnly is false (the rubric reads them so).
type Annotations struct {
	ReadOnly    bool
	Destructive bool
	Idempotent  bool
	OpenWorld   bool
	// DestructiveGiven is true when the server sent destructiveHint
	// itself (always, for a herd world): only then does the hint say
	// anything about a tool that is not read-only.
	DestructiveGiven bool
}

// kind returns the tool's kind, guessed from its name when not given.
func (t *Tool) kind() string {
	if t.Kind != "" {
		return t.Kind
	}
	switch verbFamily(t.verb()) {
	case familyRead:
		if v := t.verb(); v == "list" || v == "search" || v == "find" || v == "query" {
			return "list"
		}
		return "get"
	case familyCreate:
		return "create"
	case familyModify:
		return "update"
	}
	if deleteVerbs[t.verb()] {
		return "delete"
	}
	return "custom"
}

// writes reports whether calling the tool changes data, as far as the
// linter can tell (a tool of unknown effect does not count).
func (t *Tool) writes() bool {
	e := t.effect()
	return e == EffectWrite || e == EffectDestructive
}

// verb is the action word of the tool's name: the first part that is a
// known verb, else the first part.
func (t *Tool) verb() string {
	if t.namesKnown {
		return t.verbName
	}
	return t.readVerb()
}

func (t *Tool) readVerb() string {
	parts := nameParts(t.Name)
	for _, p := range parts {
		if knownVerb(p) {
			return canonicalVerb(p)
		}
	}
	if len(parts) > 0 {
		return parts[0]
	}
	return ""
}

// record returns the record type, guessed from the name when not given:
// the name without its verb, singular (send_invoice → invoice).
func (t *Tool) record() string {
	if t.namesKnown {
		return t.recordName
	}
	if t.Record != "" {
		return t.Record
	}
	return strings.Join(objectParts(t.Name), "_")
}

// objectParts are the parts of a tool's name after its verb, the last one
// singular: what the name says the tool acts on (send_invoices → invoice).
func objectParts(name string) []string {
	var rest []string
	skipped := false
	for _, p := range nameParts(name) {
		if !skipped && knownVerb(p) {
			skipped = true
			continue
		}
		rest = append(rest, p)
	}
	if len(rest) > 0 {
		rest[len(rest)-1] = singular(rest[len(rest)-1])
	}
	return rest
}

// family is the group of verbs the tool's action belongs to; two tools on
// the same record in the same family are the ones agents confuse.
func (t *Tool) family() string {
	if t.namesKnown {
		return t.familyName
	}
	return t.readFamily()
}

func (t *Tool) readFamily() string {
	switch t.Kind {
	case "get", "list":
		return familyRead
	case "create":
		return familyCreate
	case "update":
		return familyModify
	case "delete":
		return familyRemove
	}
	return verbFamily(t.verb())
}

// destructiveByNature reports whether the tool erases data: a delete kind,
// a delete-like verb, or a first sentence that says so ("Remove an invoice
// permanently."). Only the first sentence counts: a later one may be
// warning about a sibling ("not delete_contact, which erases it for good").
func (t *Tool) destructiveByNature() bool {
	if t.byNatureKnown {
		return t.byNature
	}
	return t.readDestructiveByNature()
}

func (t *Tool) readDestructiveByNature() bool {
	if t.kind() == "delete" || deleteVerbs[t.verb()] {
		return true
	}
	first := firstSentence(t.Description)
	return permanentCue.in(first) && removalCue.in(first)
}

// isIDParam reports whether a param names a record id (id, order_id, orderId).
func isIDParam(p Param) bool {
	n := strings.ToLower(p.Name)
	return n == "id" || strings.HasSuffix(n, "_id") || strings.HasSuffix(n, "id") && len(n) > 2 && p.Name[len(p.Name)-2] == 'I'
}

func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies") && len(s) > 4:
		return s[:len(s)-3] + "y"
	case strings.HasSuffix(s, "sses") || strings.HasSuffix(s, "ches") || strings.HasSuffix(s, "shes") || strings.HasSuffix(s, "xes"):
		return s[:len(s)-2]
	case strings.HasSuffix(s, "ss") || strings.HasSuffix(s, "us"):
		return s
	case strings.HasSuffix(s, "s") && len(s) > 3:
		return s[:len(s)-1]
	}
	return s
}
