package personas

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/worlds"
)

// TestWorkedExampleLibrary keeps docs/personas.md's second worked example
// true: a world herd does not ship (docs/examples/library.yaml), read by
// the same model. go test ./personas -run TestWorkedExampleLibrary -update
// rewrites it.
func TestWorkedExampleLibrary(t *testing.T) {
	w, err := worlds.Resolve("../docs/examples/library.yaml")
	if err != nil {
		t.Fatal(err)
	}
	g := w.Goal("more_time")
	pack := Builtin()
	models := map[string]*Model{}
	for _, v := range []string{"clear", "terse"} {
		models[v] = newModel(t, w, v)
	}
	var sb strings.Builder
	cols := []exampleColumn{{"hasty", "clear"}, {"novice", "clear"}, {"novice", "terse"}, {"careful", "clear"}, {"careful", "terse"}}
	writeScoreTable(&sb, w, models, pack, g, cols)
	ex := models["clear"].ExplainChoice(pack.Get("careful"), g)
	act := ex.Actions[0]
	fmt.Fprintf(&sb, "\nThe goal's action as read: verb *%s*, confidence %.2f (how well the best tool's action matches it); meant tool: `%s` (found by %s).\n", act.Verb, act.Confidence, ex.Meant, ex.MeantHow)
	sb.WriteString("\nWhat careful matched under clear, tool by tool:\n\n| tool | verb | context words matched | cues | score |\n|---|---|---|---|---:|\n")
	for _, te := range act.Tools {
		verb := "—"
		if te.Action != nil {
			verb = fmt.Sprintf("%s → %s (%s)", te.Action.Word, te.Action.Matched, te.Action.Relation)
		}
		var words, cues []string
		for _, m := range te.Matches {
			words = append(words, fmt.Sprintf("%s → %s (%s)", m.Word, m.Matched, m.Relation))
		}
		for _, c := range te.Cues {
			cues = append(cues, fmt.Sprintf("%s ×%.1f", c.Kind, c.Count))
		}
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %.2f |\n", te.Tool, verb, orDash(strings.Join(words, "; ")), orDash(strings.Join(cues, "; ")), te.Parts.Score)
	}
	// Outcomes over the whole built-in pack, the same agents under both
	// variants: what the choices above add up to.
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	const n = 1400
	sb.WriteString("\nOutcomes, the built-in pack in equal shares, the same 1,400 agents under each variant (95% Wilson intervals):\n\n| outcome | clear | terse |\n|---|---:|---:|\n")
	counts := map[string]map[string]int{}
	for _, v := range []string{"clear", "terse"} {
		counts[v] = map[string]int{}
		for i := 0; i < n; i++ {
			out, err := models[v].Run(Episode{Base: b, Persona: pack.Personas[i%len(pack.Personas)], Goal: g, Seed: uint64(1000 + i)})
			if err != nil {
				t.Fatal(err)
			}
			counts[v][out.Class]++
		}
	}
	for _, oc := range g.Outcomes {
		fmt.Fprintf(&sb, "| %s (%s) |", oc.Class, oc.Severity)
		for _, v := range []string{"clear", "terse"} {
			k := counts[v][oc.Class]
			iv := stats.Wilson(k, n, 0.95)
			fmt.Fprintf(&sb, " %.1f%% [%.1f–%.1f] |", 100*float64(k)/n, 100*iv.Lo, 100*iv.Hi)
		}
		sb.WriteString("\n")
	}
	replaceDocBlock(t, "../docs/personas.md", "worked-example-library", sb.String())
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

// replaceDocBlock checks (or, with -update, rewrites) the text between
// <!-- NAME:begin --> and <!-- NAME:end --> in a doc.
func replaceDocBlock(t *testing.T, path, name, block string) {
	t.Helper()
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i, j := strings.Index(string(doc), begin), strings.Index(string(doc), end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %s markers", path, name)
	}
	if string(doc[i+len(begin):j]) == block {
		return
	}
	if *update {
		out := string(doc[:i+len(begin)]) + block + string(doc[j:])
		if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's %s block is out of date; run go test ./personas -run TestWorkedExample -update\nwant:\n%s", path, name, block)
}
