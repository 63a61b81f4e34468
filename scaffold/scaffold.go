package scaffold

import (
	"fmt"
	"strings"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
)

// Draft is a scaffolded world: the YAML to write, and the world it loads
// as (so a caller can say what it holds without parsing it again).
type Draft struct {
	YAML  []byte
	World *engine.World
	// Confusions are what the linter's reader model measured on the
	// candidate goals: the pairs where a harmful tool is about as likely
	// a first choice as the one a goal needs.
	Confusions []lint.Confusion
	// Dropped are the candidate goals left out: no tool an agent could
	// take for theirs would do harm, structurally or as measured.
	Dropped []string
}

// WorldName is the world name for an API called name: its words in snake
// case ("memory-server" → memory_server), "draft" when it has none.
func WorldName(name string) string {
	n := Name(strings.TrimSpace(name))
	if n == "x" {
		return "draft"
	}
	return n
}

// Options are what a caller adds to a draft.
type Options struct {
	// World is the world's name (a valid world name); "" names it after
	// the source.
	World string
	// Header are comment lines for the head of the file, after herd's own
	// (how to run the draft, in the caller's words).
	Header []string
}

// Build drafts a world from src. The draft is loaded with the engine
// before it is returned: an error means the scaffolder wrote something the
// engine refuses, which is a bug in the scaffolder, and says so.
func Build(src *Source, opts Options) (*Draft, error) {
	world := opts.World
	if src == nil || len(src.Ops) == 0 {
		return nil, fmt.Errorf("nothing to scaffold: no tools")
	}
	if world == "" {
		world = WorldName(src.Name)
	}
	if !engine.ValidName(world) {
		return nil, fmt.Errorf("world name %q must be %s", world, engine.NameRule)
	}
	d, err := infer(src, world)
	if err != nil {
		return nil, err
	}
	d.header = opts.Header
	d.draftGoals()
	if len(d.goals) == 0 {
		return nil, fmt.Errorf("%s: no tool's effect on a record could be inferred, so no goal can be drafted; write a world by hand (herd new NAME)", src.From)
	}
	// First pass: every candidate goal, so the linter measures each.
	w, err := d.load()
	if err != nil {
		return nil, err
	}
	report := lint.Lint(w, Variant, nil)
	measured := map[string][]lint.Confusion{}
	for _, c := range report.Confusions {
		measured[c.Goal] = append(measured[c.Goal], c)
	}
	var kept []*goal
	var dropped []string
	for _, g := range d.goals {
		cs := measured[g.name]
		for _, c := range cs {
			note := fmt.Sprintf("the linter measured that a %s agent picks %s first with p=%.2f, against %s's p=%.2f",
				c.Persona, c.Tool, c.PTool, c.Meant, c.PMeant)
			if c.Meant != g.meant.name {
				note += fmt.Sprintf("; it takes %s for the tool that reaches this goal", c.Meant)
			}
			g.notes = append(g.notes, note)
		}
		if len(cs) > 0 || len(g.rivals) > 0 && !g.read {
			kept = append(kept, g)
			continue
		}
		dropped = append(dropped, g.name)
	}
	if len(kept) == 0 {
		// A world needs a goal to run: keep the first, and say why it
		// was kept.
		g := d.goals[0]
		g.notes = append(g.notes, "no tool pair here looked confusable; this goal is kept so the world runs")
		kept, dropped = []*goal{g}, dropped[1:]
	}
	d.goals = kept
	d.addLintNotes(report)
	w, err = d.load()
	if err != nil {
		return nil, err
	}
	return &Draft{YAML: d.emit(), World: w, Confusions: report.Confusions, Dropped: dropped}, nil
}

// load emits the draft and loads it as the engine would.
func (d *draft) load() (*engine.World, error) {
	src := d.emit()
	w, err := engine.Parse(d.world+".yaml", src)
	if err != nil {
		return nil, fmt.Errorf("the scaffolded world does not load (a herd bug; please report it with the input): %w", err)
	}
	return w, nil
}

// addLintNotes marks on each tool what the linter finds an agent would
// trip on (errors and warnings about side effects and look-alike tools):
// what to fix in the server's wording, not in the world.
func (d *draft) addLintNotes(r lint.Report) {
	byTool := map[string]*tool{}
	for _, t := range d.tools {
		byTool[t.name] = t
	}
	for _, f := range r.Findings {
		if f.Level == lint.LevelInfo || (f.Dimension != lint.DimSideEffects && f.Dimension != lint.DimDisambiguation) {
			continue
		}
		if t := byTool[f.Tool]; t != nil {
			t.notes = append(t.notes, fmt.Sprintf("lint %s: %s (a fix for the server's description)", f.Level, f.Message))
		}
	}
}
