package personas

import (
	"flag"
	"fmt"
	"github.com/herd-sh/herd/engine"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the worked example in docs/personas.md")

func TestMeant(t *testing.T) {
	for world, goals := range map[string]map[string]string{
		"crm":      {"hide_contact": "archive_contact", "update_email": "update_contact", "lookup_contact": "search_contacts"},
		"payments": {"charge_once": "create_charge", "refund_charge": "create_refund"},
		"shop":     {"return_and_refund": "create_return"},
		"email":    {"reply_in_thread": "reply_to_message"},
	} {
		w := loadWorld(t, world)
		for _, variant := range w.Variants {
			m := newModel(t, w, variant)
			for goal, want := range goals {
				if got := m.Meant(w.Goal(goal)); got != want {
					t.Errorf("%s %s (model under %s): Meant = %s, want %s", world, goal, variant, got, want)
				}
			}
		}
	}
}

func TestScoresAreADistribution(t *testing.T) {
	w := loadWorld(t, "crm")
	m := newModel(t, w, "ambiguous")
	for _, p := range Builtin().Personas {
		for _, g := range w.Goals {
			sc := m.Scores(p, g)
			if len(sc) != len(w.Tools) {
				t.Fatalf("%s/%s: %d scores for %d tools", p.Name, g.Name, len(sc), len(w.Tools))
			}
			sum := 0.0
			for i, s := range sc {
				if s.Tool != w.Tools[i].Name || s.P < 0 || s.P > 1 {
					t.Fatalf("%s/%s: bad score %+v", p.Name, g.Name, s)
				}
				sum += s.P
			}
			if math.Abs(sum-1) > 1e-3 {
				t.Errorf("%s/%s: probabilities sum to %v", p.Name, g.Name, sum)
			}
		}
	}
	if m.Scores(Builtin().Get("careful"), loadWorld(t, "payments").Goals[0]) != nil {
		t.Error("scores for another world's goal are nil")
	}
}

func TestWhatEachAttentionLevelSees(t *testing.T) {
	w := loadWorld(t, "crm")
	clear, amb := newModel(t, w, "clear"), newModel(t, w, "ambiguous")
	g := w.Goal("hide_contact")
	b := Builtin()
	if b.Get("hasty").Traits.ReadsDescriptions() || !b.Get("novice").Traits.ReadsDescriptions() {
		t.Error("hasty reads names only; novice reads first sentences")
	}
	// A reader of names cannot tell the variants apart.
	if !reflect.DeepEqual(clear.Scores(b.Get("hasty"), g), amb.Scores(b.Get("hasty"), g)) {
		t.Error("hasty reads names only: its scores must not depend on the variant")
	}
	// Readers of descriptions can; the clear text wins them for archive:
	// archive_contact leads the next-best tool by more (probabilities can
	// both round to 1 for a careful reader).
	for _, name := range []string{"novice", "careful"} {
		mc, ma := lead(clear.Scores(b.Get(name), g), "archive_contact"), lead(amb.Scores(b.Get(name), g), "archive_contact")
		if mc <= ma {
			t.Errorf("%s: archive_contact's lead clear %.3f ≤ ambiguous %.3f", name, mc, ma)
		}
	}
	// Only a full reader sees annotations and redirects.
	del := w.Tool("delete_contact")
	di := slices.Index(w.Tools, del)
	if p := partOf(clear.Explain(b.Get("careful"), g), "delete_contact"); p.Cues >= 0 || len(clear.views[di][seeEverything].redirects) == 0 {
		t.Errorf("careful reads delete_contact's warnings and its redirect to archive_contact: %+v", p)
	}
	if len(clear.views[di][seeFirst].redirects) != 0 {
		t.Error("the redirect is in delete_contact's last sentence; a reader of first sentences does not see it")
	}
	v := clear.views[0]
	if w.Tools[0].Name != "get_contact" {
		t.Fatalf("mock:crm's first tool is %s", w.Tools[0].Name)
	}
	if len(v[seeName].words) >= len(v[seeFirst].words) || len(v[seeFirst].words) >= len(v[seeEverything].words) {
		t.Errorf("each level sees more words: %d, %d, %d", len(v[seeName].words), len(v[seeFirst].words), len(v[seeEverything].words))
	}
}

func TestWorldLexiconExtendsTheBuiltIn(t *testing.T) {
	r := newRelater(map[string][]string{"void": {"cancel", "reverse"}, "ship": {"dispatch"}})
	if m := r.relate(stem("ship"), stem("dispatched")); m.weight != 1 || m.kind != relWorld || r.relate(stem("dispatch"), stem("ship")).weight != 1 {
		t.Error("a world's entry relates both ways at full weight")
	}
	if m := r.relate(stem("ship"), stem("dispatch")); m.effective(1) != 1 {
		t.Error("a world's entry counts fully for a literal reader")
	}
	if m := r.relate(stem("hide"), stem("remove")); m.weight != 0.75 || m.kind != relDomain || m.effective(1) != 0 {
		t.Errorf("hide ~ remove is 0.75 in the domain lexicon, scaled by literalness: %+v", m)
	}
	seq, _ := r.augment(stems("please look up the order"))
	if m := newMatcher(r).find(stem("find"), true, seq); m.best(0).weight != 0.8 {
		t.Errorf("a phrase matches as consecutive words: %+v", m)
	}
	if r.relate(stem("hide"), stem("delete")).kind != relNone {
		t.Error("relations are not transitive: hiding is not deleting")
	}
	if !r.opposes(stem("lock"), stem("unlock")) || !r.opposes(stem("accept"), stem("decline")) || r.opposes(stem("hide"), stem("delete")) {
		t.Error("opposites: lock/unlock (prefix), accept/decline (built in); hiding is not the opposite of deleting")
	}
}

func pOf(sc []ToolScore, tool string) float64 {
	for _, s := range sc {
		if s.Tool == tool {
			return s.P
		}
	}
	return -1
}

// lead is a tool's score minus the best other tool's.
func lead(sc []ToolScore, tool string) float64 {
	own, best := 0.0, math.Inf(-1)
	for _, s := range sc {
		if s.Tool == tool {
			own = s.Score
		} else {
			best = math.Max(best, s.Score)
		}
	}
	return own - best
}

func partOf(parts []ScoreParts, tool string) ScoreParts {
	for _, p := range parts {
		if p.Tool == tool {
			return p
		}
	}
	return ScoreParts{}
}

// TestWorkedExample keeps docs/personas.md's worked example true: the
// numbers there are generated from the model (go test ./personas -run
// TestWorkedExample -update rewrites them).
func TestWorkedExample(t *testing.T) {
	w := loadWorld(t, "crm")
	g := w.Goal("hide_contact")
	b := Builtin()
	var sb strings.Builder
	cols := []exampleColumn{{"hasty", "clear"}, {"hasty", "ambiguous"}, {"careful", "clear"}, {"careful", "ambiguous"}}
	models := map[string]*Model{"clear": newModel(t, w, "clear"), "ambiguous": newModel(t, w, "ambiguous")}
	writeScoreTable(&sb, w, models, b, g, cols)
	sb.WriteString("\nWhere careful's scores come from (words = 0.5 × action + 0.5 × (action + unsure) × context; score = words + cues + mismatch + redirect + trust + promo + order):\n\n")
	sb.WriteString("| variant | tool | action | context | words | cues | mismatch | redirect | trust + promo + order | score |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, variant := range []string{"clear", "ambiguous"} {
		for _, p := range models[variant].Explain(b.Get("careful"), g) {
			if p.Tool != "archive_contact" && p.Tool != "delete_contact" && p.Tool != "restore_contact" {
				continue
			}
			fmt.Fprintf(&sb, "| %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", variant, p.Tool, p.Action, p.Context, p.Words, p.Cues, p.Mismatch, p.Redirect, p.Trust+p.Promo+p.Order, p.Score)
		}
	}
	replaceDocBlock(t, "../docs/personas.md", "worked-example", sb.String())
}

// exampleColumn is one column of a worked example's score table.
type exampleColumn struct{ persona, variant string }

// writeScoreTable writes one row per tool and one column per (persona,
// variant): the score and, in brackets, the first-choice probability.
func writeScoreTable(sb *strings.Builder, w *engine.World, models map[string]*Model, pack *Pack, g *engine.Goal, cols []exampleColumn) {
	sb.WriteString("| tool |")
	for _, c := range cols {
		fmt.Fprintf(sb, " %s, %s |", c.persona, c.variant)
	}
	sb.WriteString("\n|---|" + strings.Repeat("---:|", len(cols)) + "\n")
	scores := make([][]ToolScore, len(cols))
	for i, c := range cols {
		scores[i] = models[c.variant].Scores(pack.Get(c.persona), g)
	}
	for ti, tool := range w.Tools {
		fmt.Fprintf(sb, "| %s |", tool.Name)
		for i := range cols {
			s := scores[i][ti]
			fmt.Fprintf(sb, " %.2f (%s) |", s.Score, percent(s.P))
		}
		sb.WriteString("\n")
	}
}

func percent(p float64) string {
	switch {
	case p == 0:
		return "0%"
	case p < 0.001:
		return "<0.1%"
	case p > 0.999 && p < 1:
		return ">99.9%"
	}
	return fmt.Sprintf("%.1f%%", 100*p)
}
