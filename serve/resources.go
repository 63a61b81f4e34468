package serve

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// DescribeTool describes t under a description variant: the engine's
// description of it, cut to what world://NAME lists.
func DescribeTool(t *engine.Tool, variant string) control.ToolDoc {
	d := t.Describe(variant)
	return control.ToolDoc{Name: d.Name, Kind: d.Kind, Record: d.Record, Description: d.Description, Annotations: d.Annotations}
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

func (s *Server) worldDoc() control.WorldDoc {
	w := s.world
	d := control.WorldDoc{
		World: w.Name, Version: w.Version, Hash: w.Hash, Description: w.Description,
		Seed: s.seed, Variant: s.variant, Variants: w.Variants,
		Faults: engine.ProfileName(s.sessions.currentProfile()), Profiles: w.ProfileNames(),
		ErrorCodes: w.ErrorCodes(),
		Tools:      make([]control.ToolDoc, 0, len(w.Tools)),
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

// agentWorldDoc is the world document an agent under test reads (the
// world:// resource): its description is the world's instructions, never
// the world file's description, which says what a run judges (mock:shop's
// spells out the double-refund trap). The control plane's /control/world,
// read by test harnesses, keeps the description.
func (s *Server) agentWorldDoc() control.WorldDoc {
	d := s.worldDoc()
	d.Description = s.world.Instructions
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
		Description: "The world's instructions, seed, description variant, fault profiles and tools, as JSON.",
		MIMEType:    "application/json",
	}, s.jsonResource(func() any { return s.agentWorldDoc() }))
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
