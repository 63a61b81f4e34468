package engine

import "github.com/herd-sh/herd/internal/yamlpos"

// The spec types mirror the world file one to one. They are decoded by the
// positional decoder (internal/yamlpos, see yamldecode.go), which records where every value came
// from, so that every later check (refs, CEL, probabilities) can say
// file:line:col. Compile (compile.go) turns a spec into a runnable World.

// Pos is a place in a world file (or a persona pack, or a descriptions
// file: the three are read by one decoder).
type Pos = yamlpos.Pos

// Expr is a CEL expression as written in the file.
type Expr struct {
	Src    string
	Pos    Pos
	Quoted bool // written in quotes: CEL's columns are one further right
}

// Entry is one key of a YAML mapping whose order matters (tools, types,
// fields…). Order is kept so that seeding and listings are deterministic.
type Entry[T any] = yamlpos.Entry[T]

// Ordered is a YAML mapping decoded in file order.
type Ordered[T any] = yamlpos.Ordered[T]

// Scalar is any YAML scalar kept as written, with its position; used where
// the meaning depends on a sibling key (a default whose type is the field's).
type Scalar struct {
	Raw   string
	Tag   string // YAML tag: !!str, !!int, !!float, !!bool, !!null
	Pos   Pos
	IsSet bool
}

// Text is free text that may hold {{placeholders}} (a message, an intent),
// kept with its position so that a bad placeholder is reported where it is.
type Text struct {
	Src string
	Pos Pos
}

// Duration is a Go duration string ("40ms", "2s") with its position.
type Duration struct {
	Src string
	Pos Pos
}

type worldSpec struct {
	World       Scalar               `yaml:"world"`
	Version     Scalar               `yaml:"version"`
	Description string               `yaml:"description"`
	Seed        Scalar               `yaml:"seed"`
	Epoch       Scalar               `yaml:"epoch"`
	Variants    []Scalar             `yaml:"variants"`
	Types       Ordered[typeSpec]    `yaml:"types"`
	Tools       Ordered[toolSpec]    `yaml:"tools"`
	Invariants  []invariantSpec      `yaml:"invariants"`
	Faults      Ordered[profileSpec] `yaml:"faults"`
	Goals       Ordered[goalSpec]    `yaml:"goals"`
	Lexicon     Ordered[[]string]    `yaml:"lexicon"`
	Pos         Pos                  `yaml:"-"`

	// Instructions are what a served world tells an MCP client about
	// itself; the description, which says what a run judges, never is.
	Instructions string `yaml:"instructions"`
}

type typeSpec struct {
	Count  Scalar             `yaml:"count"`
	Fields Ordered[fieldSpec] `yaml:"fields"`
	Pos    Pos                `yaml:"-"`
}

type fieldSpec struct {
	Type           Scalar   `yaml:"type"`
	Prefix         string   `yaml:"prefix"`
	Gen            Scalar   `yaml:"gen"`
	Default        Scalar   `yaml:"default"`
	Min            Scalar   `yaml:"min"`
	Max            Scalar   `yaml:"max"`
	P              Scalar   `yaml:"p"`
	Values         []Scalar `yaml:"values"`
	Weights        []Scalar `yaml:"weights"`
	Ref            Scalar   `yaml:"ref"`
	From           Scalar   `yaml:"from"`
	NearDuplicates Scalar   `yaml:"near_duplicates"`
	MaxDays        Scalar   `yaml:"max_days"`
	Nullable       bool     `yaml:"nullable"`
	Pos            Pos      `yaml:"-"`
}

type toolSpec struct {
	Kind         Scalar             `yaml:"kind"`
	Record       Scalar             `yaml:"record"`
	Key          Scalar             `yaml:"key"`
	Descriptions Ordered[string]    `yaml:"descriptions"`
	Annotations  annotationSpec     `yaml:"annotations"`
	Params       Ordered[paramSpec] `yaml:"params"`
	Idempotency  Scalar             `yaml:"idempotency"`
	When         []preconditionSpec `yaml:"when"`
	Effects      []effectSpec       `yaml:"effects"`
	Include      Ordered[Scalar]    `yaml:"include"`
	Search       *searchSpec        `yaml:"search"`
	Limit        Scalar             `yaml:"limit"`
	Pos          Pos                `yaml:"-"`
}

type annotationSpec struct {
	ReadOnly    *bool `yaml:"readOnly"`
	Destructive *bool `yaml:"destructive"`
	Idempotent  *bool `yaml:"idempotent"`
	OpenWorld   *bool `yaml:"openWorld"`
	Pos         Pos   `yaml:"-"`
}

type paramSpec struct {
	Type        Scalar   `yaml:"type"`
	Required    bool     `yaml:"required"`
	Default     Scalar   `yaml:"default"`
	Min         Scalar   `yaml:"min"`
	Max         Scalar   `yaml:"max"`
	Values      []Scalar `yaml:"values"`
	Description string   `yaml:"description"`
	Pos         Pos      `yaml:"-"`
}

type searchSpec struct {
	Param  Scalar   `yaml:"param"`
	Fields []Scalar `yaml:"fields"`
	Pos    Pos      `yaml:"-"`
}

type preconditionSpec struct {
	Expr    Expr   `yaml:"expr"`
	Error   Scalar `yaml:"error"`
	Message Text   `yaml:"message"`
	Pos     Pos    `yaml:"-"`
}

type effectSpec struct {
	Set    Ordered[Expr] `yaml:"set"`
	Create *createSpec   `yaml:"create"`
	Update *updateSpec   `yaml:"update"`
	Delete *deleteSpec   `yaml:"delete"`
	Pos    Pos           `yaml:"-"`
}

type createSpec struct {
	Type   Scalar        `yaml:"type"`
	Fields Ordered[Expr] `yaml:"fields"`
	Pos    Pos           `yaml:"-"`
}

type updateSpec struct {
	Type Scalar        `yaml:"type"`
	ID   Expr          `yaml:"id"`
	Set  Ordered[Expr] `yaml:"set"`
	Pos  Pos           `yaml:"-"`
}

type deleteSpec struct {
	Type Scalar `yaml:"type"`
	ID   Expr   `yaml:"id"`
	Pos  Pos    `yaml:"-"`
}

type invariantSpec struct {
	Name    Scalar `yaml:"name"`
	Each    Scalar `yaml:"each"`
	Expr    Expr   `yaml:"expr"`
	Message Text   `yaml:"message"`
	Pos     Pos    `yaml:"-"`
}

type profileSpec struct {
	Default *toolFaultSpec         `yaml:"default"`
	Tools   Ordered[toolFaultSpec] `yaml:"tools"`
	Pos     Pos                    `yaml:"-"`
}

type toolFaultSpec struct {
	Latency *latencySpec     `yaml:"latency"`
	Timeout Duration         `yaml:"timeout"`
	Errors  []faultErrorSpec `yaml:"errors"`
	Pos     Pos              `yaml:"-"`
}

type latencySpec struct {
	Median Duration `yaml:"median"`
	P99    Duration `yaml:"p99"`
	Fixed  Duration `yaml:"fixed"`
	Min    Duration `yaml:"min"`
	Max    Duration `yaml:"max"`
	Pos    Pos      `yaml:"-"`
}

type faultErrorSpec struct {
	Kind       Scalar   `yaml:"kind"`
	P          Scalar   `yaml:"p"`
	RetryAfter Duration `yaml:"retry_after"`
	Message    string   `yaml:"message"`
	Lag        Duration `yaml:"lag"`    // stale_read
	Field      Scalar   `yaml:"field"`  // schema_drift
	Rename     Scalar   `yaml:"rename"` // schema_drift
	Pos        Pos      `yaml:"-"`
}

type goalSpec struct {
	Intent     Text            `yaml:"intent"`
	Target     *targetSpec     `yaml:"target"`
	Knows      Ordered[Expr]   `yaml:"knows"`
	Concurrent *concurrentSpec `yaml:"concurrent"`
	Outcomes   []outcomeSpec   `yaml:"outcomes"`
	// Expect is "act" (the default: the goal is done by writing) or
	// "refrain" (no tool does it; the right answer is not to write).
	Expect Scalar `yaml:"expect"`
	// Calls are call patterns the goal marks: minefields (any such call
	// is harmful) and refusals (the tool that is the right way to decline).
	Calls []callPatternSpec `yaml:"calls"`
	Pos   Pos               `yaml:"-"`
}

type callPatternSpec struct {
	Tool      Scalar `yaml:"tool"`
	Where     Expr   `yaml:"where"`
	Minefield bool   `yaml:"minefield"`
	Refusal   bool   `yaml:"refusal"`
	Pos       Pos    `yaml:"-"`
}

type targetSpec struct {
	Record Scalar `yaml:"record"`
	Where  Expr   `yaml:"where"`
	Pos    Pos    `yaml:"-"`
}

type concurrentSpec struct {
	AfterCalls Scalar        `yaml:"after_calls"`
	Set        Ordered[Expr] `yaml:"set"`
	Pos        Pos           `yaml:"-"`
}

type outcomeSpec struct {
	Class    Scalar `yaml:"class"`
	Severity Scalar `yaml:"severity"`
	When     Expr   `yaml:"when"`
	Pos      Pos    `yaml:"-"`
}
