// Package lint is herd's tool-description linter: a deterministic rubric
// that scores each tool's description 0–100 on seven dimensions — purpose,
// usage guidance, side effects, parameter coverage, length,
// disambiguation against siblings, and annotation honesty — and says, for
// every shortfall, what to write instead. Disambiguation is measured with
// the personas reader model: the tool pairs a hasty agent would actually
// mix up on the world's goals, where one of them does harm.
//
// The rubric reads a plain list of tool descriptors (Tool), so that it
// works on any server's tool list; FromWorld builds that list from a herd
// world. Users' own wordings come from a descriptions file
// (LoadDescriptions).
package lint

import (
	"context"
	"fmt"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
)

// Lint scores a world's tools under one description variant, with the
// user's overrides (tool → text, may be nil) in place of the world's
// texts. The variant may be one the world does not have (a new variant
// from a descriptions file): tools without an override then read the
// world's default variant. The result is deterministic.
func Lint(w *engine.World, variant string, descriptions map[string]string) Report {
	r, _ := LintContext(context.Background(), w, variant, descriptions, nil)
	return r
}

// LintContext is Lint that also counts what the tools' definitions cost a
// model with tok (nil: no count), and stops when ctx is done, returning
// ctx's error.
func LintContext(ctx context.Context, w *engine.World, variant string, descriptions map[string]string, tok *Tokenizer) (Report, error) {
	return lintWorld(ctx, w, variant, descriptions, readerPersona(personas.Builtin().Personas), tok)
}

// LintWith is Lint with the persona whose reading measures confusions
// (nil: disambiguation is judged from the texts alone).
func LintWith(w *engine.World, variant string, descriptions map[string]string, reader *personas.Persona) Report {
	r, _ := lintWorld(context.Background(), w, variant, descriptions, reader, nil)
	return r
}

func lintWorld(ctx context.Context, w *engine.World, variant string, descriptions map[string]string, reader *personas.Persona, tok *Tokenizer) (Report, error) {
	opts := Options{World: w.Name, Variant: variant, Overridden: overriddenTools(w, descriptions), Tokenizer: tok}
	var notes []string
	switch {
	case reader == nil:
		notes = append(notes, "no persona reads descriptions: disambiguation judged from the texts alone")
	case len(w.Goals) == 0:
		notes = append(notes, "the world has no goals: disambiguation judged from the texts alone")
	default:
		cs, err := measureConfusions(ctx, w, variant, descriptions, reader)
		if ctx.Err() != nil {
			return Report{}, ctx.Err()
		}
		if err != nil {
			notes = append(notes, fmt.Sprintf("reader model: %v; disambiguation judged from the texts alone", err))
		}
		opts.Confusions = cs
	}
	r, err := LintToolsContext(ctx, FromWorld(w, variant, descriptions), opts)
	if err != nil {
		return Report{}, err
	}
	r.Notes = notes
	return r, nil
}
