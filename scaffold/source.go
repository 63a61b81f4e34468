// Package scaffold drafts a herd world from somebody else's API: the tool
// list of an MCP server or the operations of an OpenAPI 3 document. The
// draft has record types inferred from the input (and output) schemas,
// each tool mapped to a world kind, the server's own descriptions as the
// one variant "yours", and goals for the tool pairs an agent could
// confuse, with outcome classes judged on the end state. It is a first
// draft for a person to check: every guess is marked in a YAML comment,
// and the draft is loaded with the engine before it is returned, so that
// what herd new writes always validates and runs.
package scaffold

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Source is an API as the scaffolder reads it, whatever it came from.
type Source struct {
	// Name is what the API calls itself (an MCP server's name, an OpenAPI
	// document's title); the world's name is derived from it.
	Name    string
	Version string
	// About is the API's own account of itself (MCP instructions, an
	// OpenAPI description), used as the world's instructions.
	About string
	// From is the target as the user gave it, for the file's header.
	From string
	// Kind says what From is ("MCP server", "OpenAPI document").
	Kind string
	Ops  []Op
}

// Op is one tool of the API: an MCP tool, or an OpenAPI operation.
type Op struct {
	Name        string // as the API names it: a tool name or an operationId
	Title       string
	Description string
	// Hints are the MCP annotations as sent; nil when the server sent none
	// (or the API is not MCP).
	Hints *Hints
	// Method and Path are an OpenAPI operation's ("GET", "/pets/{petId}");
	// empty for MCP.
	Method, Path string
	// PathParams are the names of an operation's path parameters, in path
	// order: they select the record an operation acts on.
	PathParams []string
	Input      *Schema // an object schema of the arguments; never nil
	Output     *Schema // the result's schema, nil when unknown
	// sampled: Output was read from an answer (AddSample), not declared.
	sampled bool
}

// Hints are MCP tool annotations with the specification's defaults made
// explicit: readOnlyHint false, destructiveHint true, idempotentHint false
// and openWorldHint true when absent. Destructive and idempotent mean
// something only when ReadOnly is false.
type Hints struct {
	ReadOnly, Destructive, Idempotent, OpenWorld bool
	// DestructiveSent is whether the server said destructiveHint at all:
	// a default true is weaker evidence than a stated one.
	DestructiveSent bool
}

// Schema is the part of a JSON Schema the scaffolder reads.
type Schema struct {
	Type        string // object, array, string, integer, number, boolean; "" when not said
	Description string
	Format      string
	Enum        []string
	Properties  []Property // required ones first, in the order required lists them, then by name
	Items       *Schema
	Minimum     *float64
	Maximum     *float64
	MaxLength   *int
	Nullable    bool
}

// Property is one named property of an object schema.
type Property struct {
	Name     string
	Schema   *Schema
	Required bool
}

// Prop returns the named property, nil when the schema has none.
func (s *Schema) Prop(name string) *Property {
	if s == nil {
		return nil
	}
	for i := range s.Properties {
		if s.Properties[i].Name == name {
			return &s.Properties[i]
		}
	}
	return nil
}

// maxSchemaDepth bounds how deep the scaffolder follows nested schemas: a
// record is a few levels deep at most, and a recursive or hostile schema
// must not run the decoder out of stack.
const maxSchemaDepth = 12

// maxOps bounds the tools one source may have: a world's tools are read by
// every agent, and a draft of thousands is no draft a person can check.
const maxOps = 500

// FromMCP reads an MCP server's tool list: what it says it is (name,
// version, instructions; any may be empty) and its tools as listed.
func FromMCP(from, name, version, instructions string, tools []*mcp.Tool) (*Source, error) {
	if len(tools) == 0 {
		return nil, fmt.Errorf("%s lists no tools: nothing to scaffold", from)
	}
	if len(tools) > maxOps {
		return nil, fmt.Errorf("%s lists %d tools; a scaffold takes at most %d", from, len(tools), maxOps)
	}
	src := &Source{Name: name, Version: version, About: instructions, From: from, Kind: "MCP server"}
	seen := map[string]bool{}
	for i, t := range tools {
		if t == nil || strings.TrimSpace(t.Name) == "" {
			return nil, fmt.Errorf("%s: tool %d has no name", from, i+1)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("%s: tool %q is listed twice", from, t.Name)
		}
		seen[t.Name] = true
		in, err := decodeSchema(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %s: inputSchema: %v", from, t.Name, err)
		}
		if in == nil {
			in = &Schema{Type: "object"}
		}
		out, err := decodeSchema(t.OutputSchema)
		if err != nil {
			return nil, fmt.Errorf("%s: tool %s: outputSchema: %v", from, t.Name, err)
		}
		op := Op{Name: t.Name, Title: t.Title, Description: t.Description, Input: in, Output: out}
		if a := t.Annotations; a != nil {
			h := &Hints{ReadOnly: a.ReadOnlyHint, Idempotent: a.IdempotentHint, Destructive: true, OpenWorld: true}
			if a.DestructiveHint != nil {
				h.Destructive, h.DestructiveSent = *a.DestructiveHint, true
			}
			if a.OpenWorldHint != nil {
				h.OpenWorld = *a.OpenWorldHint
			}
			if op.Title == "" {
				op.Title = a.Title
			}
			op.Hints = h
		}
		src.Ops = append(src.Ops, op)
	}
	return src, nil
}

// decodeSchema reads a JSON Schema given as any JSON value (an MCP tool's
// inputSchema decodes to a map; a server may also send raw JSON).
func decodeSchema(v any) (*Schema, error) {
	if v == nil {
		return nil, nil
	}
	var m map[string]any
	switch x := v.(type) {
	case map[string]any:
		m = x
	case json.RawMessage:
		if err := json.Unmarshal(x, &m); err != nil {
			return nil, err
		}
	case []byte:
		if err := json.Unmarshal(x, &m); err != nil {
			return nil, err
		}
	default:
		data, err := json.Marshal(x)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return nil, fmt.Errorf("want a JSON object, got %s", data)
		}
	}
	return schemaFromMap(m, 0), nil
}

// schemaFromMap reads the keys the scaffolder uses; anything else is
// ignored (a scaffold is a draft, and a comment says what to check).
func schemaFromMap(m map[string]any, depth int) *Schema {
	s := &Schema{}
	if m == nil || depth > maxSchemaDepth {
		return s
	}
	switch t := m["type"].(type) {
	case string:
		s.Type = t
	case []any: // ["string", "null"]
		for _, x := range t {
			if str, ok := x.(string); ok {
				if str == "null" {
					s.Nullable = true
				} else if s.Type == "" {
					s.Type = str
				}
			}
		}
	}
	// anyOf/oneOf of one real type and null is a nullable type, the way
	// zod and pydantic write optional fields.
	for _, key := range []string{"anyOf", "oneOf"} {
		alts, _ := m[key].([]any)
		for _, a := range alts {
			am, _ := a.(map[string]any)
			if am["type"] == "null" {
				s.Nullable = true
				continue
			}
			if s.Type == "" && am != nil {
				inner := schemaFromMap(am, depth+1)
				inner.Nullable = inner.Nullable || s.Nullable
				inner.Description = firstNonEmpty(str(m["description"]), inner.Description)
				*s = *inner
			}
		}
	}
	s.Description = firstNonEmpty(str(m["description"]), s.Description)
	s.Format = firstNonEmpty(str(m["format"]), s.Format)
	if enum, ok := m["enum"].([]any); ok {
		s.Enum = nil
		for _, e := range enum {
			if es, ok := e.(string); ok {
				s.Enum = append(s.Enum, es)
			}
		}
		if s.Type == "" && len(s.Enum) > 0 {
			s.Type = "string"
		}
	}
	if f, ok := m["minimum"].(float64); ok {
		s.Minimum = &f
	}
	if f, ok := m["maximum"].(float64); ok {
		s.Maximum = &f
	}
	if f, ok := m["maxLength"].(float64); ok && f >= 0 && f < 1e9 {
		n := int(f)
		s.MaxLength = &n
	}
	if items, ok := m["items"].(map[string]any); ok {
		s.Items = schemaFromMap(items, depth+1)
		if s.Type == "" {
			s.Type = "array"
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if s.Type == "" {
			s.Type = "object"
		}
		var required []string
		if req, ok := m["required"].([]any); ok {
			for _, r := range req {
				if rs, ok := r.(string); ok {
					required = append(required, rs)
				}
			}
		}
		names := make([]string, 0, len(props))
		for n := range props {
			names = append(names, n)
		}
		for _, n := range orderProperties(names, required) {
			pm, _ := props[n].(map[string]any)
			s.Properties = append(s.Properties, Property{Name: n, Schema: schemaFromMap(pm, depth+1), Required: contains(required, n)})
		}
	}
	return s
}

// orderProperties puts the required properties first, in the order the
// schema lists them, then the others by name: a JSON object's keys have no
// order once decoded, and the draft must be the same on every run.
func orderProperties(names, required []string) []string {
	var out []string
	for _, r := range required {
		if contains(names, r) && !contains(out, r) {
			out = append(out, r)
		}
	}
	var rest []string
	for _, n := range names {
		if !contains(out, n) {
			rest = append(rest, n)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if strings.TrimSpace(x) != "" {
			return x
		}
	}
	return ""
}
