package personas

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func TestExplainChoice(t *testing.T) {
	w := loadWorld(t, "crm")
	m := newModel(t, w, "clear")
	g := w.Goal("hide_contact")
	careful := Builtin().Get("careful")
	ex := m.ExplainChoice(careful, g)
	if ex.Goal != "hide_contact" || ex.Sees != "everything" || ex.Meant != "archive_contact" || ex.MeantHow != meantByWorld || len(ex.Actions) != 1 {
		t.Fatalf("explanation header: %+v", ex)
	}
	a := ex.Actions[0]
	if a.Verb != stem("hide") || a.Confidence <= 0.5 || len(a.Tools) != len(w.Tools) || !strings.Contains(strings.Join(a.Constraints, ","), "keep data") {
		t.Fatalf("action: %+v", a)
	}
	byName := map[string]ToolExplanation{}
	sum := 0.0
	for _, te := range a.Tools {
		byName[te.Tool] = te
		sum += te.Parts.P
	}
	if sum < 0.999 || sum > 1.001 {
		t.Errorf("probabilities sum to %v", sum)
	}
	arch := byName["archive_contact"]
	if arch.Action == nil || arch.Action.Relation != "domain lexicon" || arch.Action.Where != "verb place" || len(arch.Text) == 0 {
		t.Errorf("archive_contact hides through the domain lexicon, where it names its action: %+v", arch.Action)
	}
	if r := byName["restore_contact"].Action; r == nil || r.Where != "opposite" || byName["restore_contact"].Parts.Action != -1 {
		t.Errorf("restore_contact is the opposite of hiding: %+v", r)
	}
	del := byName["delete_contact"]
	if len(del.Redirects) == 0 || del.Redirects[0].Tool != "archive_contact" || len(del.Cues) == 0 {
		t.Errorf("delete_contact's redirect and warnings: %+v", del)
	}
	j1, err := json.Marshal(ex)
	if err != nil {
		t.Fatal(err)
	}
	j2, _ := json.Marshal(m.ExplainChoice(careful, g))
	if string(j1) != string(j2) {
		t.Error("an explanation is stable")
	}
	if strings.Contains(string(j1), ":-0,") || regexp.MustCompile(`\d\.\d{5}`).Match(j1) {
		t.Errorf("numbers are rounded: %s", j1)
	}
	hasty := m.ExplainChoice(Builtin().Get("hasty"), g)
	if hasty.Sees != "name" || len(hasty.Actions[0].Tools[0].Text) != 0 {
		t.Errorf("hasty reads names only: %+v", hasty.Actions[0].Tools[0])
	}
	if ex := m.ExplainChoice(careful, loadWorld(t, "shop").Goals[0]); ex.Goal != "" {
		t.Errorf("another world's goal has no explanation: %+v", ex.Goal)
	}
}

func TestExplainChoiceEveryShippedGoal(t *testing.T) {
	for _, name := range []string{"crm", "payments", "shop", "email", "files"} {
		w := loadWorld(t, name)
		for _, variant := range w.Variants {
			m := newModel(t, w, variant)
			for _, g := range w.Goals {
				for _, p := range Builtin().Personas {
					ex := m.ExplainChoice(p, g)
					if ex.Meant == "" || len(ex.Actions) == 0 || len(ex.Actions[0].Tools) != len(w.Tools) {
						t.Fatalf("%s/%s/%s/%s: %+v", name, variant, g.Name, p.Name, ex)
					}
					if _, err := json.Marshal(ex); err != nil {
						t.Fatal(err)
					}
				}
			}
		}
	}
}
