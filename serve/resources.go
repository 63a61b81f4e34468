package serve

import (
	"context"
	"encoding/json"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// DescribeTool describes t under a description variant.
func DescribeTool(t *engine.Tool, variant string) control.ToolDoc {
	d := control.ToolDoc{Name: t.Name, Kind: string(t.Kind), Description: t.Description(variant), Annotations: t.Annotations}
	if t.Record != nil {
		d.Record = t.Record.Name
	}
	return d
}

// schemaDoc is the world://NAME/schema resource: record types and fields.
type schemaDoc struct {
	World string    `json:"world"`
	Types []TypeDoc `json:"types"`
}

// TypeDoc is a record type as world://NAME/schema lists it and herd
// inspect shows it.
type TypeDoc struct {
	Name   string     `json:"name"`
	Count  int        `json:"count"` // records seeded
	Fields []FieldDoc `json:"fields"`
}

// FieldDoc is one field of a record type: its type and constraints, and
// how seeding fills it (generator, probability of true).
type FieldDoc struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Ref      string   `json:"ref,omitempty"`
	Values   []string `json:"values,omitempty"`
	Prefix   string   `json:"prefix,omitempty"`
	Gen      string   `json:"gen,omitempty"`
	Nullable bool     `json:"nullable,omitempty"`
	Default  any      `json:"default,omitempty"`
	Min      *float64 `json:"min,omitempty"`
	Max      *float64 `json:"max,omitempty"`
	P        *float64 `json:"p,omitempty"` // bool: probability of true when seeding
}

// DescribeTypes describes w's record types and their fields, in file order.
func DescribeTypes(w *engine.World) []TypeDoc {
	types := make([]TypeDoc, 0, len(w.Types))
	for _, t := range w.Types {
		td := TypeDoc{Name: t.Name, Count: t.Count, Fields: make([]FieldDoc, 0, len(t.Fields))}
		for _, f := range t.Fields {
			fd := FieldDoc{Name: f.Name, Type: f.Type.String(), Values: f.Values, Prefix: f.Prefix, Gen: f.Gen,
				Nullable: f.Nullable, Min: f.Min, Max: f.Max, Default: jsonDefault(f.Default)}
			if f.Ref != nil {
				fd.Ref = f.Ref.Name
			}
			if p, ok := f.TrueProbability(); ok {
				fd.P = &p
			}
			td.Fields = append(td.Fields, fd)
		}
		types = append(types, td)
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

func (s *Server) schemaDoc() schemaDoc {
	return schemaDoc{World: s.world.Name, Types: DescribeTypes(s.world)}
}

// jsonDefault writes datetimes as RFC 3339, like records do.
func jsonDefault(v any) any {
	if t, ok := v.(time.Time); ok {
		return t.UTC().Format(time.RFC3339Nano)
	}
	return v
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
