package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

// explainOptions are the flags of herd explain, as given.
type explainOptions struct {
	world        string
	goal         string
	variant      string
	persona      string
	personas     string
	descriptions string
	asJSON       bool
}

func newExplainCmd(s *streams) *cobra.Command {
	o := explainOptions{}
	cmd := &cobra.Command{
		Use:   "explain WORLD --goal G",
		Short: "Show why the reader model ranks a world's tools as it does for a goal",
		Long: `Explain how a persona reads the tools of a world for one goal: per tool, the
text it sees, the goal words that matched and through which relation (same
stem, world lexicon, domain lexicon, WordNet synonym, hypernym, derived form),
the cues, redirects and disagreements it noticed, the parts of the score and
the probability of choosing it first.

Without --persona every persona of the pack is shown side by side, one
probability per tool; with --persona the full reading of one.

  herd explain mock:crm --goal hide_contact
  herd explain mock:crm --goal hide_contact --variant ambiguous --persona hasty
  herd explain mock:crm --goal hide_contact --descriptions mine.yaml --persona careful --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.world = args[0]
			return runExplain(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.goal, "goal", "", "the goal to explain (required)")
	f.StringVar(&o.variant, "variant", "", "description variant (default: the world's first)")
	f.StringVar(&o.persona, "persona", "", "one persona to explain in full (default: every persona, side by side)")
	f.StringVar(&o.personas, "personas", "", "persona pack YAML file (default: the built-in pack)")
	f.StringVar(&o.descriptions, "descriptions", "", "YAML file of your own tool descriptions (tool: text, or tool: {variant: text})")
	f.BoolVar(&o.asJSON, "json", false, "print the explanations as JSON")
	return cmd
}

// explainRun is what herd explain derives from its options.
type explainRun struct {
	world    *engine.World
	goal     *engine.Goal
	variant  string
	model    *personas.Model
	personas []*personas.Persona
}

// resolveExplain checks the options and builds the model they ask for;
// every error is bad usage or bad input, named by its flag.
func resolveExplain(o explainOptions) (*explainRun, error) {
	w, err := worlds.Resolve(o.world)
	if err != nil {
		return nil, usageErr(err)
	}
	r := &explainRun{world: w}
	if o.goal == "" {
		return nil, usageErrf("--goal: which goal to explain (world %s has %s)", w.Name, goalNames(w))
	}
	if r.goal = w.Goal(o.goal); r.goal == nil {
		return nil, usageErrf("--goal: world %s has no goal %q (it has %s)", w.Name, o.goal, goalNames(w))
	}
	descs := map[string]map[string]string{}
	if o.descriptions != "" {
		if descs, err = lint.LoadDescriptions(o.descriptions, w); err != nil {
			return nil, usageErr(err)
		}
	}
	r.variant = o.variant
	if r.variant == "" {
		r.variant = w.DefaultVariant()
	}
	known := lint.VariantNames(w, descs)
	if !slices.Contains(known, r.variant) {
		return nil, usageErrf("--variant: world %s has no variant %q (it has %s)", w.Name, r.variant, strings.Join(known, ", "))
	}
	// As herd swarm does: a descriptions file's variant typo is refused,
	// not read as a new variant nobody asked about.
	if err := checkDescribedVariants(w, descs, []string{r.variant}); err != nil {
		return nil, err
	}
	base := r.variant
	if !w.HasVariant(base) {
		// A variant only the descriptions file defines reads the world's
		// first variant for the tools the file leaves out.
		base = w.DefaultVariant()
	}
	if r.model, err = personas.NewModelWith(w, base, descs[r.variant]); err != nil {
		return nil, usageErr(err)
	}
	pack := personas.Builtin()
	if o.personas != "" {
		if pack, err = personas.LoadPack(o.personas); err != nil {
			return nil, usageErr(err)
		}
	}
	if o.persona == "" {
		r.personas = pack.Personas
		return r, nil
	}
	p := pack.Get(o.persona)
	if p == nil {
		return nil, usageErrf("--persona: no persona %q (the pack has %s)", o.persona, strings.Join(pack.Names(), ", "))
	}
	r.personas = []*personas.Persona{p}
	return r, nil
}

// runExplain explains the goal's first choice for each persona asked for.
func runExplain(_ context.Context, s *streams, o explainOptions) error {
	r, err := resolveExplain(o)
	if err != nil {
		return err
	}
	exps := make([]personas.Explanation, len(r.personas))
	for i, p := range r.personas {
		exps[i] = r.model.ExplainChoice(p, r.goal)
	}
	if o.asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(exps)
	}
	fmt.Fprintf(s.out, "world %s · goal %s · variant %s\n", r.world.Name, r.goal.Name, r.variant)
	fmt.Fprintf(s.out, "intent: %s\n", oneLine(r.goal.Intent))
	if len(exps) > 0 {
		fmt.Fprintf(s.out, "meant:  %s (found by %s)\n", exps[0].Meant, exps[0].MeantHow)
	}
	if len(exps) == 1 {
		writeExplanation(s.out, exps[0])
		return nil
	}
	writeExplanationMatrix(s.out, r.world, exps)
	return nil
}

// writeExplanationMatrix prints, per action of the goal, one row per tool
// and one column per persona: the probability of choosing it first.
func writeExplanationMatrix(w io.Writer, world *engine.World, exps []personas.Explanation) {
	for ai, act := range exps[0].Actions {
		fmt.Fprintf(w, "\naction %d: %s%s\n", ai+1, act.Verb, constraintText(act.Constraints))
		width := len("tool")
		for _, t := range world.Tools {
			width = max(width, len(t.Name))
		}
		fmt.Fprintf(w, "  %-*s", width, "tool")
		for _, e := range exps {
			fmt.Fprintf(w, " %11s", e.Persona)
		}
		fmt.Fprintln(w)
		for ti, t := range world.Tools {
			fmt.Fprintf(w, "  %-*s", width, t.Name)
			for _, e := range exps {
				fmt.Fprintf(w, " %10.1f%%", 100*e.Actions[ai].Tools[ti].Parts.P)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "  %-*s", width, "(reads)")
		for _, e := range exps {
			fmt.Fprintf(w, " %11s", shortSees(e.Sees))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\nOne persona in full: add --persona NAME.")
}

func shortSees(s string) string {
	switch s {
	case "first sentence":
		return "1st sentence"
	case "first lines":
		return "1st lines"
	}
	return s
}

func constraintText(cs []string) string {
	if len(cs) == 0 {
		return ""
	}
	return " (" + strings.Join(cs, ", ") + ")"
}

// writeExplanation prints one persona's reading in full, tools by
// probability (the world's order among equals).
func writeExplanation(w io.Writer, e personas.Explanation) {
	fmt.Fprintf(w, "persona %s reads: %s\n", e.Persona, e.Sees)
	for ai, act := range e.Actions {
		var words []string
		for _, iw := range act.Words {
			if iw.Weight == 0 {
				words = append(words, iw.Word+" (how, not what)")
				continue
			}
			words = append(words, iw.Word)
		}
		kind := "a change"
		if act.Reads {
			kind = "a look-up"
		}
		fmt.Fprintf(w, "\naction %d: verb %q, %s%s; confidence %.2f\n", ai+1, act.Verb, kind, constraintText(act.Constraints), act.Confidence)
		fmt.Fprintf(w, "  goal words: %s\n", strings.Join(words, ", "))
		if len(act.CoveredBy) > 0 {
			fmt.Fprintf(w, "  also done by: %s\n", strings.Join(act.CoveredBy, ", "))
		}
		tools := personas.ByLikelihood(act.Tools)
		for _, t := range tools {
			writeToolExplanation(w, t)
		}
	}
}

func writeToolExplanation(w io.Writer, t personas.ToolExplanation) {
	p := t.Parts
	fmt.Fprintf(w, "\n  %5.1f%%  %s  score %+.3f\n", 100*p.P, t.Tool, p.Score)
	fmt.Fprintf(w, "          = action %+.2f × context %.2f → words %+.3f", p.Action, p.Context, p.Words)
	for _, part := range []struct {
		name string
		v    float64
	}{{"cues", p.Cues}, {"mismatch", p.Mismatch}, {"redirect", p.Redirect}, {"trust", p.Trust}, {"promo", p.Promo}, {"order", p.Order}} {
		if part.v != 0 {
			fmt.Fprintf(w, ", %s %+.3f", part.name, part.v)
		}
	}
	fmt.Fprintln(w)
	switch {
	case len(t.Text) == 0 && t.Opening != "":
		fmt.Fprintf(w, "          sees: %s — the opening every tool shares, so it goes by the name\n", clip(oneLine(t.Opening), 60))
	case len(t.Text) == 0:
		fmt.Fprintln(w, "          sees: the name only")
	}
	for i, s := range t.Text {
		label := "sees:"
		if i > 0 {
			label = "     "
		}
		fmt.Fprintf(w, "          %s %s\n", label, clip(oneLine(s), 90))
	}
	if a := t.Action; a != nil {
		fmt.Fprintf(w, "          verb: %s\n", wordText(*a))
	} else {
		fmt.Fprintln(w, "          verb: not matched")
	}
	if t.Parts.Adjusted != "" {
		fmt.Fprintf(w, "          action: %s\n", t.Parts.Adjusted)
	}
	for _, m := range t.Matches {
		fmt.Fprintf(w, "          word: %s\n", wordText(m))
	}
	for _, c := range t.Cues {
		fmt.Fprintf(w, "          cue:  %s ×%.1f\n", c.Kind, c.Count)
	}
	if t.Promo != 0 {
		fmt.Fprintf(w, "          cue:  promotional ×%.1f\n", t.Promo)
	}
	if t.ReadOnly {
		fmt.Fprintln(w, "          says: read-only")
	}
	for _, r := range t.Redirects {
		dir := "to " + r.Tool
		if r.Away {
			dir = "from " + r.Tool + " to this"
		}
		purpose := ""
		if len(r.Purpose) > 0 {
			purpose = " for " + strings.Join(r.Purpose, " ")
		}
		why := ""
		if r.Why != "" {
			why = ": " + r.Why
		}
		fmt.Fprintf(w, "          redirect %s%s (relevance %.2f%s)\n", dir, purpose, r.Relevance, why)
	}
	if t.Disagreement != "" {
		fmt.Fprintf(w, "          disagrees: %s\n", t.Disagreement)
	}
}

// wordText is one matched word: "hide → archive (domain lexicon 1.00, counts 1.00, verb place)".
func wordText(m personas.WordExplanation) string {
	where := ""
	if m.Where != "" {
		where = ", " + m.Where
	}
	return fmt.Sprintf("%s → %s (%s %.2f, counts %.2f%s)", m.Word, m.Matched, m.Relation, m.Weight, m.Counts, where)
}

// clip cuts s to at most n runes, with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
