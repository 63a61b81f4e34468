package serve

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

// WorldDoc is the world:// resource (and GET /control/world): what the world
// is and which tools it has, as this server shows them. The swarm's control
// plane client reads it (target.WorldInfo).
type WorldDoc struct {
	World       string        `json:"world"`
	Version     int           `json:"version"`
	Hash        string        `json:"hash"`
	Description string        `json:"description"`
	Seed        uint64        `json:"seed"`
	Variant     string        `json:"variant"`
	Variants    []string      `json:"variants"`
	Faults      string        `json:"faults"`
	Profiles    []string      `json:"profiles"`
	ErrorCodes  []string      `json:"error_codes"`
	Tools       []ToolDoc     `json:"tools"`
	Resources   []string      `json:"resources"`
	Sessions    *SessionCount `json:"sessions,omitempty"` // GET /control/world only
}

// ToolDoc is a tool as world://NAME lists it, and as herd inspect shows it
// (which adds params and errors): its kind, the record it works on, the
// chosen variant's description and the annotations.
type ToolDoc struct {
	Name        string             `json:"name"`
	Kind        string             `json:"kind"`
	Record      string             `json:"record,omitempty"`
	Description string             `json:"description"`
	Annotations engine.Annotations `json:"annotations"`
}

// DescribeTool describes t under a description variant: the engine's
// description of it, cut to what world://NAME lists.
func DescribeTool(t *engine.Tool, variant string) ToolDoc {
	d := t.Describe(variant)
	return ToolDoc{Name: d.Name, Kind: d.Kind, Record: d.Record, Description: d.Description, Annotations: d.Annotations}
}

// SessionCount is how many MCP sessions are live and how many world
// sessions the control plane keeps readable.
type SessionCount struct {
	Live int `json:"live"`
	Kept int `json:"kept"`
}

// schemaDoc is the world://NAME/schema resource: record types and fields.
type schemaDoc struct {
	World string    `json:"world"`
	Types []TypeDoc `json:"types"`
}

// TypeDoc is a record type as world://NAME/schema lists it and herd
// inspect shows it: the engine's description of it.
type TypeDoc = engine.RecordTypeDescription

// FieldDoc is one field of a record type (engine.FieldDescription).
type FieldDoc = engine.FieldDescription

// DescribeTypes describes w's record types and their fields, in file order.
func DescribeTypes(w *engine.World) []TypeDoc {
	types := make([]TypeDoc, 0, len(w.Types))
	for _, t := range w.Types {
		types = append(types, t.Describe())
	}
	return types
}

func (s *Server) worldURI() string  { return "world://" + s.world.Name }
func (s *Server) schemaURI() string { return "world://" + s.world.Name + "/schema" }

func (s *Server) worldDoc() WorldDoc {
	w := s.world
	d := WorldDoc{
		World: w.Name, Version: w.Version, Hash: w.Hash, Description: w.Description,
		Seed: s.seed, Variant: s.variant, Variants: w.Variants,
		Faults: engine.ProfileName(s.sessions.currentProfile()), Profiles: w.ProfileNames(),
		ErrorCodes: w.ErrorCodes(),
		Tools:      make([]ToolDoc, 0, len(w.Tools)),
		Resources:  []string{s.worldURI(), s.schemaURI()},
	}
	if d.ErrorCodes == nil {
		d.ErrorCodes = []string{}
	}
	for _, t := range w.Tools {
		d.Tools = append(d.Tools, DescribeTool(t, s.variant))
	}
	return d
}

func (s *Server) schemaDoc() schemaDoc {
	return schemaDoc{World: s.world.Name, Types: DescribeTypes(s.world)}
}

// addResources registers world://NAME and world://NAME/schema.
func (s *Server) addResources(srv *mcp.Server) {
	srv.AddResource(&mcp.Resource{
		URI:         s.worldURI(),
		Name:        s.world.Name,
		Title:       "The " + s.world.Name + " world",
		Description: "The world's description, seed, description variant, fault profiles and tools, as JSON.",
		MIMEType:    "application/json",
	}, s.jsonResource(func() any { return s.worldDoc() }))
	srv.AddResource(&mcp.Resource{
		URI:         s.schemaURI(),
		Name:        s.world.Name + "-schema",
		Title:       "The " + s.world.Name + " world's record types",
		Description: "Record types and their fields (types, enum values, bounds, defaults), as JSON.",
		MIMEType:    "application/json",
	}, s.jsonResource(func() any { return s.schemaDoc() }))
}

func (s *Server) jsonResource(doc func() any) mcp.ResourceHandler {
	return func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		body, err := json.MarshalIndent(doc(), "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "application/json", Text: string(body),
		}}}, nil
	}
}
