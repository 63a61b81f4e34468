package lint

import (
	"github.com/herd-sh/herd/engine"
)

// FromWorld lists a world's tools as the rubric reads them under variant,
// with the user's overrides (tool → text, may be nil) in place of the
// world's own descriptions. It reads the world through its one
// description (engine.World.Describe), the one herd inspect prints and a
// served world publishes, so the linter scores what those show.
func FromWorld(w *engine.World, variant string, overrides map[string]string) []Tool {
	d := w.Describe(variant)
	types := make(map[string]engine.RecordTypeDescription, len(d.Types))
	for _, t := range d.Types {
		types[t.Name] = t
	}
	out := make([]Tool, 0, len(d.Tools))
	for _, td := range d.Tools {
		lt := fromDescription(td, types, overrides)
		if et := w.Tool(td.Name); et != nil {
			lt.InputSchema = et.InputSchema()
		}
		out = append(out, lt)
	}
	return out
}

func fromDescription(td engine.ToolDescription, types map[string]engine.RecordTypeDescription, overrides map[string]string) Tool {
	ea := td.Annotations
	a := Annotations{ReadOnly: ea.ReadOnly, Destructive: ea.Destructive, Idempotent: ea.Idempotent, OpenWorld: ea.OpenWorld,
		DestructiveGiven: true} // a world states every hint
	lt := Tool{
		Name:           td.Name,
		Description:    td.Description,
		Kind:           td.Kind,
		Annotations:    &a,
		IdempotencyKey: td.Idempotency,
		Record:         td.Record,
	}
	if o, ok := overrides[td.Name]; ok {
		lt.Description = o
	}
	if rt, ok := types[td.Record]; ok && td.Record != "" {
		for _, f := range rt.Fields {
			lt.Fields = append(lt.Fields, f.Name)
			if f.Type == engine.FieldID.String() {
				lt.IDPrefix = f.Prefix
			}
		}
	}
	for _, p := range td.Params {
		lt.Params = append(lt.Params, Param{
			Name:        p.Name,
			Type:        p.Type,
			Required:    p.Required,
			Description: p.Description,
			Values:      p.Values,
		})
	}
	return lt
}

// effectiveDescriptions is every tool's text under variant with the
// overrides applied: what an agent reads.
func effectiveDescriptions(w *engine.World, variant string, overrides map[string]string) map[string]string {
	out := make(map[string]string, len(w.Tools))
	for _, td := range w.Describe(variant).Tools {
		out[td.Name] = td.Description
		if o, ok := overrides[td.Name]; ok {
			out[td.Name] = o
		}
	}
	return out
}
