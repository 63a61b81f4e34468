package lint

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
)

// Confusion thresholds. A harmful write is flagged when a hasty agent is
// about as likely to pick it first as the tool the goal needs: its
// probability is at least the meant tool's minus confusionMargin, and at
// least confusionFloor (below that, it is noise, not a confusion).
const (
	confusionMargin = 0.10
	confusionFloor  = 0.10
)

// MeasureConfusions asks the reader model, for every goal of the world,
// how a persona reading the tools under variant (with the overrides) would
// make its first choice, and returns the pairs where a harmful write is
// about as likely as the tool the goal needs. A write is harmful when it
// erases data, or when the goal needs no write at all.
func MeasureConfusions(w *engine.World, variant string, overrides map[string]string, p *personas.Persona) ([]Confusion, error) {
	return measureConfusions(context.Background(), w, variant, overrides, p)
}

// measureConfusions is MeasureConfusions that stops between goals when
// ctx is done.
func measureConfusions(ctx context.Context, w *engine.World, variant string, overrides map[string]string, p *personas.Persona) ([]Confusion, error) {
	if p == nil {
		return nil, fmt.Errorf("no persona to read with")
	}
	// The model knows only the world's variants; a new variant from a
	// descriptions file is the default variant with every text replaced.
	modelVariant := variant
	if !w.HasVariant(variant) {
		modelVariant = w.DefaultVariant()
	}
	texts := effectiveDescriptions(w, variant, overrides)
	m, err := personas.NewModelWith(w, modelVariant, texts)
	if err != nil {
		return nil, err
	}
	var out []Confusion
	for _, g := range w.Goals {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if g.Refrain {
			continue // no tool does a refrain goal: there is nothing to confuse it with
		}
		meant := w.Tool(m.Meant(g))
		if meant == nil {
			continue
		}
		scores := m.Scores(p, g)
		pMeant := 0.0
		for _, s := range scores {
			if s.Tool == meant.Name {
				pMeant = s.P
			}
		}
		for _, s := range scores {
			t := w.Tool(s.Tool)
			if t == nil || t == meant || !t.Writes() {
				continue
			}
			destroys := isEngineDestructive(t)
			if !destroys && meant.Writes() {
				continue
			}
			if s.P < confusionFloor || s.P < pMeant-confusionMargin {
				continue
			}
			out = append(out, Confusion{
				Goal:     g.Name,
				Intent:   intentText(g.Intent),
				Persona:  p.Name,
				Meant:    meant.Name,
				Tool:     t.Name,
				PMeant:   pMeant,
				PTool:    s.P,
				Destroys: destroys,
				Missing:  missingWords(g.Intent, meant.Name, texts[meant.Name]),
			})
		}
	}
	return out, nil
}

// isEngineDestructive: a delete, marked destructive, or named like one.
func isEngineDestructive(t *engine.Tool) bool {
	if t.Kind == engine.KindDelete || t.Annotations.Destructive {
		return true
	}
	lt := Tool{Name: t.Name, Kind: string(t.Kind)}
	return deleteVerbs[lt.verb()]
}

// readerPersona picks who measures confusions: the least attentive
// built-in persona that still reads descriptions (at least their first
// sentence). An agent that reads only names is confused whatever the
// descriptions say, so it could not tell a better wording from a worse.
func readerPersona(pack []*personas.Persona) *personas.Persona {
	var best *personas.Persona
	for _, p := range pack {
		if p == nil || !p.Traits.ReadsDescriptions() {
			continue
		}
		if best == nil || p.Traits.Attention < best.Traits.Attention ||
			p.Traits.Attention == best.Traits.Attention && p.Name < best.Name {
			best = p
		}
	}
	return best
}

var placeholderRE = regexp.MustCompile(`\{\{[^}]*\}\}`)

// intentText is a goal's intent with its placeholders shown as "…".
func intentText(intent string) string {
	return strings.Join(strings.Fields(placeholderRE.ReplaceAllString(intent, "…")), " ")
}

// missingWords are the words of a goal's intent that the meant tool's name
// and description lack: up to four, in intent order.
func missingWords(intent, tool, desc string) []string {
	have := map[string]bool{}
	for _, w := range words(desc) {
		have[stem(w)] = true
	}
	for _, p := range nameParts(tool) {
		have[stem(p)] = true
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range words(placeholderRE.ReplaceAllString(intent, " ")) {
		s := stem(w)
		if isStopword(w) || genericWords[w] || have[s] || seen[s] || len(w) < 3 {
			continue
		}
		seen[s] = true
		out = append(out, w)
		if len(out) == 4 {
			break
		}
	}
	return out
}

// overriddenTools lists, sorted, the tools a descriptions map replaces.
func overriddenTools(w *engine.World, overrides map[string]string) []string {
	var out []string
	for name := range overrides {
		if w.Tool(name) != nil {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
