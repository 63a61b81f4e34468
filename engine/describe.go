package engine

import (
	"encoding/json"
	"fmt"
	"time"
)

// WorldDescription is what a world offers agents and how it is judged, in
// file order, with each tool's text under one description variant. It is
// the one description of a world: herd inspect prints it (its JSON form is
// this struct), a served world publishes its types and tools from it
// (world://NAME and world://NAME/schema), and the linter reads the tools
// from it — so the three never disagree about a world.
type WorldDescription struct {
	World       string                  `json:"world"`
	Version     int                     `json:"version"`
	File        string                  `json:"file"`
	SHA256      string                  `json:"sha256"`
	Seed        uint64                  `json:"seed"`
	Epoch       string                  `json:"epoch"` // RFC 3339
	Description string                  `json:"description"`
	Variants    []string                `json:"variants"`
	Variant     string                  `json:"variant"` // the variant the tools' texts are under
	Types       []RecordTypeDescription `json:"types"`
	Tools       []ToolDescription       `json:"tools"`
	Faults      []ProfileDescription    `json:"fault_profiles"`
	Invariants  []InvariantDescription  `json:"invariants"`
	Goals       []GoalDescription       `json:"goals"`
	ErrorCodes  []string                `json:"error_codes"`
}

// RecordTypeDescription is a record type: how many are seeded, and its
// fields.
type RecordTypeDescription struct {
	Name   string             `json:"name"`
	Count  int                `json:"count"` // records seeded
	Fields []FieldDescription `json:"fields"`
}

// FieldDescription is one field of a record type: its type and
// constraints, and how seeding fills it (generator, probability of true).
type FieldDescription struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Ref      string   `json:"ref,omitempty"`
	Values   []string `json:"values,omitempty"`
	Prefix   string   `json:"prefix,omitempty"`
	Gen      string   `json:"gen,omitempty"`
	Nullable bool     `json:"nullable,omitempty"`
	Default  any      `json:"default,omitempty"` // a datetime as RFC 3339, like records
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	P        *float64 `json:"p,omitempty"` // bool: probability of true when seeding
}

// ToolDescription is a tool: its kind, the record it works on, its text
// under the variant, its annotations, then what a caller needs to call it
// (params, key, idempotency key, errors, input schema).
type ToolDescription struct {
	Name        string             `json:"name"`
	Kind        string             `json:"kind"`
	Record      string             `json:"record,omitempty"`
	Description string             `json:"description"`
	Annotations Annotations        `json:"annotations"`
	Key         string             `json:"key,omitempty"`
	Idempotency string             `json:"idempotency,omitempty"`
	Errors      []string           `json:"errors,omitempty"`
	Params      []ParamDescription `json:"params"`
	InputSchema map[string]any     `json:"input_schema"`
}

// ParamDescription is one parameter of a tool.
type ParamDescription struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Values      []string `json:"values,omitempty"`
	Description string   `json:"description,omitempty"`
}

// ProfileDescription is a fault profile, its tools grouped by identical
// faults, so that a profile with a default reads as one group plus its
// exceptions. Tools with no faults and no latency are left out.
type ProfileDescription struct {
	Name    string                  `json:"name"`
	Builtin bool                    `json:"builtin"`
	Groups  []FaultGroupDescription `json:"tools"`
}

// FaultGroupDescription is the faults that some tools of a profile share.
type FaultGroupDescription struct {
	Tools   []string                `json:"tools"`
	Latency string                  `json:"latency,omitempty"` // Latency.String
	Timeout string                  `json:"timeout"`
	Errors  []FaultErrorDescription `json:"errors"`
}

// FaultErrorDescription is one injected error kind and its probability.
type FaultErrorDescription struct {
	Kind       string  `json:"kind"`
	P          float64 `json:"p"`
	RetryAfter string  `json:"retry_after,omitempty"`
	Message    string  `json:"message,omitempty"`
	Lag        string  `json:"lag,omitempty"`    // stale_read
	Field      string  `json:"field,omitempty"`  // schema_drift
	Rename     string  `json:"rename,omitempty"` // schema_drift
}

// InvariantDescription is a world invariant; Each is the record type it
// is checked on, "" for a whole-state invariant.
type InvariantDescription struct {
	Name    string `json:"name"`
	Each    string `json:"each,omitempty"`
	Expr    string `json:"expr"`
	Message string `json:"message"`
}

// GoalDescription is a goal and its outcome classes, in the order they are
// tried.
type GoalDescription struct {
	Name            string               `json:"name"`
	Intent          string               `json:"intent"`
	Target          string               `json:"target"`
	Where           string               `json:"where"`
	Knows           []string             `json:"knows"`
	ConcurrentAfter int                  `json:"concurrent_after_calls,omitempty"`
	Refrain         bool                 `json:"refrain,omitempty"`
	Calls           []CallDescription    `json:"calls,omitempty"`
	Outcomes        []OutcomeDescription `json:"outcomes"`
}

// CallDescription is one marked call pattern of a goal.
type CallDescription struct {
	Tool      string `json:"tool"`
	Where     string `json:"where,omitempty"`
	Minefield bool   `json:"minefield,omitempty"`
	Refusal   bool   `json:"refusal,omitempty"`
}

// OutcomeDescription is one outcome class of a goal.
type OutcomeDescription struct {
	Class    string `json:"class"`
	Severity string `json:"severity"`
	When     string `json:"when"`
}

// Describe describes the world with each tool's text under variant (a
// variant the world lacks shows the first one's, as Tool.Description
// does). Lists are empty, never nil, so that the JSON form always has
// them.
func (w *World) Describe(variant string) WorldDescription {
	d := WorldDescription{
		World: w.Name, Version: w.Version, File: w.File, SHA256: w.Hash, Seed: w.DefaultSeed,
		Epoch: w.Epoch.Format(time.RFC3339), Description: w.Description,
		Variants: w.Variants, Variant: variant, ErrorCodes: w.ErrorCodes(),
		Types:      make([]RecordTypeDescription, 0, len(w.Types)),
		Tools:      make([]ToolDescription, 0, len(w.Tools)),
		Faults:     make([]ProfileDescription, 0, len(w.Profiles)),
		Invariants: make([]InvariantDescription, 0, len(w.Invariants)),
		Goals:      make([]GoalDescription, 0, len(w.Goals)),
	}
	if d.ErrorCodes == nil {
		d.ErrorCodes = []string{}
	}
	for _, t := range w.Types {
		d.Types = append(d.Types, t.Describe())
	}
	for _, t := range w.Tools {
		d.Tools = append(d.Tools, t.Describe(variant))
	}
	for _, p := range w.Profiles {
		d.Faults = append(d.Faults, w.describeProfile(p))
	}
	for _, inv := range w.Invariants {
		id := InvariantDescription{Name: inv.Name, Expr: inv.Expr(), Message: inv.Message}
		if inv.Each != nil {
			id.Each = inv.Each.Name
		}
		d.Invariants = append(d.Invariants, id)
	}
	for _, g := range w.Goals {
		gd := GoalDescription{Name: g.Name, Intent: g.Intent, Target: g.Target.Name, Where: g.Where(),
			Knows: g.KnowsKeys, ConcurrentAfter: g.ConcurrentAfter(), Refrain: g.Refrain, Outcomes: make([]OutcomeDescription, 0, len(g.Outcomes))}
		for _, c := range g.Calls {
			gd.Calls = append(gd.Calls, CallDescription{Tool: c.Tool.Name, Where: c.Where(), Minefield: c.Minefield, Refusal: c.Refusal})
		}
		if gd.Knows == nil {
			gd.Knows = []string{}
		}
		for _, o := range g.Outcomes {
			gd.Outcomes = append(gd.Outcomes, OutcomeDescription{Class: o.Class, Severity: string(o.Severity), When: o.When()})
		}
		d.Goals = append(d.Goals, gd)
	}
	return d
}

// Describe describes the record type and its fields.
func (t *RecordType) Describe() RecordTypeDescription {
	td := RecordTypeDescription{Name: t.Name, Count: t.Count, Fields: make([]FieldDescription, 0, len(t.Fields))}
	for _, f := range t.Fields {
		fd := FieldDescription{Name: f.Name, Type: f.Type.String(), Values: f.Values, Prefix: f.Prefix, Gen: f.Gen,
			Nullable: f.Nullable, Min: f.Min, Max: f.Max, Default: f.Default}
		if tm, ok := f.Default.(time.Time); ok {
			fd.Default = tm.UTC().Format(time.RFC3339Nano)
		}
		if f.Ref != nil {
			fd.Ref = f.Ref.Name
		}
		if p, ok := f.TrueProbability(); ok {
			fd.P = &p
		}
		td.Fields = append(td.Fields, fd)
	}
	return td
}

// Describe describes the tool with its text under variant.
func (t *Tool) Describe(variant string) ToolDescription {
	td := ToolDescription{Name: t.Name, Kind: string(t.Kind), Description: t.Description(variant), Annotations: t.Annotations,
		Key: t.Key, Idempotency: t.Idempotency, Errors: t.ErrorCodes(),
		Params: make([]ParamDescription, 0, len(t.Params)), InputSchema: t.InputSchema()}
	if t.Record != nil {
		td.Record = t.Record.Name
	}
	for _, p := range t.Params {
		// Params have no datetime type: a default is JSON-ready as it is.
		td.Params = append(td.Params, ParamDescription{Name: p.Name, Type: string(p.Type), Required: p.Required,
			Default: p.Default, Min: p.Min, Max: p.Max, Values: p.Values, Description: p.Description})
	}
	return td
}

// describeProfile groups the tools whose faults are the same.
func (w *World) describeProfile(p *FaultProfile) ProfileDescription {
	pd := ProfileDescription{Name: p.Name, Builtin: p.Builtin, Groups: []FaultGroupDescription{}}
	index := map[string]int{}
	for _, t := range w.Tools {
		tf := p.For(t)
		if tf == nil || (len(tf.Errors) == 0 && tf.Latency == (Latency{})) {
			continue
		}
		g := FaultGroupDescription{Latency: tf.Latency.String(), Timeout: tf.Timeout().String(), Errors: make([]FaultErrorDescription, 0, len(tf.Errors))}
		for _, e := range tf.Errors {
			ed := FaultErrorDescription{Kind: e.Kind, P: e.P, Message: e.Message}
			if e.RetryAfter > 0 {
				ed.RetryAfter = e.RetryAfter.String()
			}
			if e.Lag > 0 {
				ed.Lag = e.Lag.String()
			}
			ed.Field, ed.Rename = e.Field, e.Rename
			g.Errors = append(g.Errors, ed)
		}
		// Two tools share a group when everything but their names is the
		// same; the JSON form (without Tools) is that everything.
		key, _ := json.Marshal(g)
		if i, ok := index[string(key)]; ok {
			pd.Groups[i].Tools = append(pd.Groups[i].Tools, t.Name)
			continue
		}
		index[string(key)] = len(pd.Groups)
		g.Tools = []string{t.Name}
		pd.Groups = append(pd.Groups, g)
	}
	return pd
}

// String describes the distribution: "lognormal, median 20ms, p99 200ms",
// "uniform 5ms–15ms", "fixed 10ms", or "" for none.
func (l Latency) String() string {
	switch {
	case l.Median > 0:
		return fmt.Sprintf("lognormal, median %s, p99 %s", l.Median, l.P99)
	case l.Max > 0:
		return fmt.Sprintf("uniform %s–%s", l.Min, l.Max)
	case l.Fixed > 0:
		return "fixed " + l.Fixed.String()
	}
	return ""
}
