package lint

import (
	"github.com/herd-sh/herd/engine"
)

// FromWorld lists a world's tools as the rubric reads them under variant,
// with the user's overrides (tool → text, may be nil) in place of the
// world's own descriptions.
func FromWorld(w *engine.World, variant string, overrides map[string]string) []Tool {
	out := make([]Tool, 0, len(w.Tools))
	for _, t := range w.Tools {
		out = append(out, fromEngineTool(t, variant, overrides))
	}
	return out
}

func fromEngineTool(t *engine.Tool, variant string, overrides map[string]string) Tool {
	a := Annotations(t.Annotations)
	lt := Tool{
		Name:           t.Name,
		Description:    textOf(t, variant, overrides),
		Kind:           string(t.Kind),
		Annotations:    &a,
		IdempotencyKey: t.Idempotency,
	}
	if t.Record != nil {
		lt.Record = t.Record.Name
		for _, f := range t.Record.Fields {
			lt.Fields = append(lt.Fields, f.Name)
			if f.Type == engine.FieldID {
				lt.IDPrefix = f.Prefix
			}
		}
	}
	for _, p := range t.Params {
		lt.Params = append(lt.Params, Param{
			Name:        p.Name,
			Type:        string(p.Type),
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
	for _, t := range w.Tools {
		out[t.Name] = textOf(t, variant, overrides)
	}
	return out
}

// textOf is a tool's text under variant, or the user's override of it.
func textOf(t *engine.Tool, variant string, overrides map[string]string) string {
	if o, ok := overrides[t.Name]; ok {
		return o
	}
	return t.Description(variant)
}
