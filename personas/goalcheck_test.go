package personas

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

func goalProblems(t *testing.T, w *engine.World) map[string]string {
	t.Helper()
	m, err := NewModel(w, w.Variants[0])
	if err != nil {
		t.Fatal(err)
	}
	ps, err := m.GoalProblems()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, p := range ps {
		out[p.Goal.Name] += p.Message
	}
	return out
}

// The two mistakes held-out worlds were found to have, each made again:
// a goal value beyond the bound of the parameter that takes it (alerts'
// threshold max was 90, its goal asks for 95), and targets named only by a
// generated title most records share (wiki). Both are found, and said in
// words a world author can act on; the worlds as they stand now have only
// the shared titles, which are their authors' to fix.
func TestGoalProblemsFindsUnreachableAndAmbiguousGoals(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "heldout", "worlds", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	fixed := string(src)
	broken := strings.Replace(fixed, "threshold: {type: int, gen: uniform, min: 50, max: 100}", "threshold: {type: int, gen: uniform, min: 50, max: 90}", 1)
	if broken == fixed {
		t.Fatal("the alerts world's threshold field moved: update the test")
	}
	w, err := engine.Parse("alerts.yaml", []byte(broken))
	if err != nil {
		t.Fatal(err)
	}
	got := goalProblems(t, w)
	if msg := got["tune_threshold"]; !strings.Contains(msg, "no agent can achieve it") || !strings.Contains(msg, "update_monitor") || !strings.Contains(msg, "maximum 90") {
		t.Errorf("tune_threshold: %q, want it unreachable, naming update_monitor and its bound", msg)
	}
	w, err = engine.Parse("alerts.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if msg, ok := goalProblems(t, w)["tune_threshold"]; ok {
		t.Errorf("with max 100 tune_threshold is reachable: %q", msg)
	}
	w, err = engine.LoadFile(filepath.Join("testdata", "heldout", "worlds", "wiki.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	got = goalProblems(t, w)
	if msg := got["take_down_page"]; !strings.Contains(msg, "matches more than one page") || !strings.Contains(msg, "(title)") {
		t.Errorf("take_down_page: %q, want shared titles", msg)
	}
	if msg, ok := got["create_once"]; ok {
		t.Errorf("create_once makes a page, it has none to find: %q", msg)
	}
}

// The shipped worlds have no goal problem: a few shared customer names
// (real data has them) and a goal whose ok outcome is a declined card
// stopped cleanly are not mistakes.
func TestGoalProblemsQuietOnShippedWorlds(t *testing.T) {
	for _, name := range []string{"crm", "shop", "payments", "email", "files"} {
		w := loadWorld(t, name)
		if got := goalProblems(t, w); len(got) > 0 {
			t.Errorf("mock:%s: %v", name, got)
		}
	}
}
