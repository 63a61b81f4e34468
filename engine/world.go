// Package engine is herd's deterministic world engine: world files, seeded
// immutable base states, copy-on-write sessions, tool dispatch with CEL
// rules, injected faults, the journal and snapshots. It knows nothing of MCP,
// personas or reports; everything above it calls Session.Call.
package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// FieldType is the type of a record field.
type FieldType int

// Field types, as written in world files.
const (
	FieldStr FieldType = iota
	FieldInt
	FieldFloat
	FieldBool
	FieldDatetime
	FieldEnum
	FieldRef
	FieldID
)

var fieldTypeNames = []string{"str", "int", "float", "bool", "datetime", "enum", "ref", "id"}

func (t FieldType) String() string { return fieldTypeNames[t] }

// Field is one field of a record type.
type Field struct {
	Name     string
	Type     FieldType
	Index    int         // position in Record values
	Ref      *RecordType // for ref fields
	Values   []string    // for enum fields
	Nullable bool
	Default  any      // Go value (string, int64, float64, bool, time.Time) or nil
	Min, Max *float64 // bounds for int/float fields, checked on writes
	Prefix   string   // for the id field
	Gen      string   // the generator's name ("person_name"), "" when none

	defaultVal  ref.Val // Default as a CEL value, converted once at load
	gen         generator
	p           float64 // bool: probability of true when seeding; -1 unset
	enumWeights []float64
	nearDup     float64
	from        *Field // gen: email derives from this field
	maxDays     int
	celType     *types.Type
}

// TrueProbability is the probability that seeding sets a bool field true
// (ok false when the file gives none).
func (f *Field) TrueProbability() (p float64, ok bool) { return f.p, f.p >= 0 }

// RecordType is a kind of record (contact, charge, order…).
type RecordType struct {
	Name   string
	Fields []*Field
	Count  int // seeded records

	index   int // position in World.Types
	byName  map[string]*Field
	idField *Field
	celType *types.Type // the CEL object type of its records
}

// Field returns the named field or nil.
func (t *RecordType) Field(name string) *Field { return t.byName[name] }

// ToolKind is what a tool does to its record type.
type ToolKind string

// Tool kinds.
const (
	KindGet    ToolKind = "get"
	KindList   ToolKind = "list"
	KindCreate ToolKind = "create"
	KindUpdate ToolKind = "update"
	KindDelete ToolKind = "delete"
	KindCustom ToolKind = "custom"
)

// Annotations are the MCP tool hints.
type Annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// ParamType is the type of a tool parameter.
type ParamType string

// Parameter types.
const (
	ParamStr   ParamType = "str"
	ParamInt   ParamType = "int"
	ParamFloat ParamType = "float"
	ParamBool  ParamType = "bool"
	ParamEnum  ParamType = "enum"
)

// Param is one parameter of a tool.
type Param struct {
	Name        string
	Type        ParamType
	Required    bool
	Default     any // Go value or nil
	Min, Max    *float64
	Values      []string // enum values
	Description string
	Field       *Field // the record field this param reads or writes, if any

	index      int
	celType    *types.Type
	defaultVal ref.Val // Default as a CEL value, converted once at load
}

// Tool is something an agent can call.
type Tool struct {
	Name        string
	Kind        ToolKind
	Record      *RecordType // nil for a custom tool without a record
	Key         string      // the param that selects the target record, "" when none
	Params      []*Param
	Annotations Annotations
	Idempotency string // the idempotency-key param, "" when none

	descriptions map[string]string
	variants     []string
	byName       map[string]*Param
	when         []*precondition
	effects      []*effect
	include      []includeFlag
	search       *searchRule
	limit        int
	limitParam   *Param
	index        int
	argsType     *types.Type // the CEL object type of its arguments
	errorCodes   []string
}

// ErrorCodes lists the business error codes the tool's preconditions can
// return, in file order (the engine's own codes and fault kinds are in
// World.ErrorCodes).
func (t *Tool) ErrorCodes() []string { return t.errorCodes }

// Description returns the tool's description under a variant, or under the
// world's first variant when the tool has none by that name.
func (t *Tool) Description(variant string) string {
	if d, ok := t.descriptions[variant]; ok {
		return d
	}
	return t.descriptions[t.variants[0]]
}

// Variants lists the description variants this tool has, in file order.
func (t *Tool) Variants() []string { return t.variants }

// Param returns the named parameter or nil.
func (t *Tool) Param(name string) *Param { return t.byName[name] }

// SearchParam is the free-text parameter a list tool declares with
// "search:", nil when it has none. Its name is the author's ("member",
// "q", "query"): a caller that fills searches must not guess it from the
// name alone.
func (t *Tool) SearchParam() *Param {
	if t.search == nil {
		return nil
	}
	return t.search.param
}

// Writes reports whether a successful call can change the world.
func (t *Tool) Writes() bool { return t.Kind != KindGet && t.Kind != KindList }

// Severity is how bad an outcome is.
type Severity string

// Severities, from good to bad.
const (
	SeverityOK      Severity = "ok"
	SeverityFailed  Severity = "failed"
	SeverityHarmful Severity = "harmful"
)

// OutcomeClass is one class a goal's end state can fall into.
type OutcomeClass struct {
	Class    string
	Severity Severity

	when *program
}

// When returns the class's CEL condition as written.
func (o *OutcomeClass) When() string { return o.when.src }

// Invariant is a consistency rule of the world.
type Invariant struct {
	Name    string
	Each    *RecordType // nil for a whole-state invariant
	Message string

	expr    *program
	message template
}

// Expr returns the invariant's CEL condition as written.
func (i *Invariant) Expr() string { return i.expr.src }

// Goal is a task agents are given, and how its end state is judged.
type Goal struct {
	Name      string
	Pos       Pos    // where the goal's name stands in its file (zero for a goal built in code)
	Intent    string // the template, with {{target.x}} / {{knows.x}} placeholders
	Target    *RecordType
	KnowsKeys []string // in file order
	Outcomes  []*OutcomeClass

	// Refrain: no tool does what the goal asks (expect: refrain); an
	// agent that writes anyway does harm.
	Refrain bool
	// Calls are the goal's marked call patterns (minefields, refusals).
	Calls []*CallPattern

	intent     template // Intent, parsed once
	where      *program
	knows      []*program
	concurrent *concurrent
}

// CallPattern marks calls of one tool, optionally only those whose
// arguments satisfy Where, as a minefield (any such call is harmful,
// whatever the end state) or as the right way to refuse a refrain goal.
type CallPattern struct {
	Tool      *Tool
	Minefield bool
	Refusal   bool

	where *program // nil: every call of Tool
}

// Where returns the pattern's CEL condition ("" when it has none).
func (p *CallPattern) Where() string {
	if p.where == nil {
		return ""
	}
	return p.where.src
}

// Where returns the CEL condition that picks the goal's targets ("true"
// when the file gives none).
func (g *Goal) Where() string { return g.where.src }

// ConcurrentAfter is the call after which another actor writes to the
// target (0: no other actor).
func (g *Goal) ConcurrentAfter() int {
	if g.concurrent == nil {
		return 0
	}
	return g.concurrent.afterCalls
}

type concurrent struct {
	afterCalls int
	set        []fieldAssign
}

// World is a loaded, compiled world file. It is immutable and safe to share
// between goroutines; seeded states come from Seed.
type World struct {
	Name        string
	Description string
	Version     int
	DefaultSeed uint64
	Epoch       time.Time
	Variants    []string
	Types       []*RecordType
	Tools       []*Tool
	Goals       []*Goal
	Profiles    []*FaultProfile // "none" first, then file order (built-in defaults where the file has none)
	Invariants  []*Invariant
	Lexicon     map[string][]string
	File        string // the name errors are reported against ("crm.yaml", "mock:crm")
	Hash        string // sha256 of the source, hex
	Source      []byte

	typeByName    map[string]*RecordType
	toolByName    map[string]*Tool
	goalByName    map[string]*Goal
	profileByName map[string]*FaultProfile
	errorCodes    []string // every error code a call can return, sorted
	env           *celEnv

	// Instructions are for the agent under test, sent as the MCP
	// instructions when the world is served: what the service is, never
	// what is measured ("" sends none). Description is for people.
	Instructions string
}

// Type returns the named record type or nil.
func (w *World) Type(name string) *RecordType { return w.typeByName[name] }

// Tool returns the named tool or nil.
func (w *World) Tool(name string) *Tool { return w.toolByName[name] }

// Goal returns the named goal or nil.
func (w *World) Goal(name string) *Goal { return w.goalByName[name] }

// Profile returns the named fault profile or nil.
func (w *World) Profile(name string) *FaultProfile { return w.profileByName[name] }

// FindProfile is Profile, with an error naming the profiles the world has
// when it has no such one.
func (w *World) FindProfile(name string) (*FaultProfile, error) {
	if p := w.profileByName[name]; p != nil {
		return p, nil
	}
	return nil, fmt.Errorf("world %s has no fault profile %q (it has %s)", w.Name, name, strings.Join(w.ProfileNames(), ", "))
}

// ProfileNames lists the world's fault profiles by name, "none" first.
func (w *World) ProfileNames() []string {
	names := make([]string, len(w.Profiles))
	for i, p := range w.Profiles {
		names[i] = p.Name
	}
	return names
}

// ToolNames lists the world's tools by name, in file order.
func (w *World) ToolNames() []string {
	names := make([]string, len(w.Tools))
	for i, t := range w.Tools {
		names[i] = t.Name
	}
	return names
}

// ErrorCodes lists every error code a call into this world can return.
func (w *World) ErrorCodes() []string { return w.errorCodes }

// HasVariant reports whether name is one of the world's description variants.
func (w *World) HasVariant(name string) bool { return slices.Contains(w.Variants, name) }

// DefaultVariant is the description variant a run, a server or a lint
// reads when none is asked for: the world's first (a world has at least
// one).
func (w *World) DefaultVariant() string { return w.Variants[0] }
