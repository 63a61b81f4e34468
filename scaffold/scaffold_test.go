package scaffold

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

var update = flag.Bool("update", false, "rewrite the scaffolded worlds' golden files")

// The scaffolded worlds are compared with golden files: a change to the
// inference shows as a diff a reviewer reads.
func TestGolden(t *testing.T) {
	for _, c := range []struct {
		name   string
		src    func(*testing.T) *Source
		golden string
	}{
		{"server-memory", memorySource, "testdata/server-memory.world.yaml"},
		{"petstore", petstoreSource, "testdata/petstore.world.yaml"},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := Build(c.src(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if *update {
				if err := os.WriteFile(c.golden, d.YAML, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(c.golden)
			if err != nil {
				t.Fatalf("%v (run go test ./scaffold -run Golden -update)", err)
			}
			if !bytes.Equal(d.YAML, want) {
				t.Errorf("scaffold of %s differs from %s (go test ./scaffold -run Golden -update):\n%s", c.name, c.golden, firstDiff(d.YAML, want))
			}
			// Twice the same: the draft is a function of its input.
			again, err := Build(c.src(t), Options{})
			if err != nil || !bytes.Equal(again.YAML, d.YAML) {
				t.Errorf("a second scaffold differs (err %v)", err)
			}
		})
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n  got:  " + x + "\n  want: " + y
		}
	}
	return ""
}

// What the server-memory draft holds: each tool mapped to the kind its
// annotations, name and schema say, and goals for the confusable pairs.
func TestServerMemoryDraft(t *testing.T) {
	d, err := Build(memorySource(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := d.World
	if w.Name != "memory_server" || len(w.Variants) != 1 || w.Variants[0] != Variant {
		t.Fatalf("world %s variants %v", w.Name, w.Variants)
	}
	if w.Type("entity") == nil || w.Type("relation") == nil || len(w.Types) != 2 {
		t.Fatalf("types %v", typeNames(w))
	}
	kinds := map[string]engine.ToolKind{
		"create_entities": engine.KindCreate, "create_relations": engine.KindCreate,
		"add_observations": engine.KindUpdate, "delete_entities": engine.KindDelete,
		"delete_observations": engine.KindCustom, "delete_relations": engine.KindCustom,
		"read_graph": engine.KindList, "search_nodes": engine.KindList, "open_nodes": engine.KindGet,
	}
	for name, k := range kinds {
		tool := w.Tool(name)
		if tool == nil || tool.Kind != k {
			t.Errorf("tool %s: %+v, want kind %s", name, tool, k)
		}
	}
	// Read-only tools stay read-only: the spec's destructive default does
	// not apply when readOnlyHint is true.
	if a := w.Tool("search_nodes").Annotations; !a.ReadOnly || a.Destructive {
		t.Errorf("search_nodes annotations %+v", a)
	}
	if a := w.Tool("delete_entities").Annotations; !a.Destructive {
		t.Errorf("delete_entities annotations %+v", a)
	}
	if got := w.Tool("delete_entities").Description(Variant); got != "Delete multiple entities and their associated relations from the knowledge graph" {
		t.Errorf("the server's own text is not variant %s: %q", Variant, got)
	}
	g := w.Goal("delete_observations")
	if g == nil {
		t.Fatalf("no goal for delete_observations vs delete_entities; goals %v", goalNames(w))
	}
	if g.Outcomes[0].Severity != engine.SeverityHarmful || !hasClass(g, "destroyed_data") {
		t.Errorf("delete_observations classes %+v", g.Outcomes)
	}
	if !bytes.Contains(d.YAML, []byte("# check:")) {
		t.Error("the draft marks nothing for the author to check")
	}
}

func TestPetstoreDraft(t *testing.T) {
	d, err := Build(petstoreSource(t), Options{World: "pets"})
	if err != nil {
		t.Fatal(err)
	}
	w := d.World
	if w.Name != "pets" || len(w.Types) != 1 || w.Type("pet") == nil {
		t.Fatalf("world %s types %v", w.Name, typeNames(w))
	}
	want := map[string]engine.ToolKind{"list_pets": engine.KindList, "create_pets": engine.KindCreate,
		"show_pet_by_id": engine.KindGet, "update_pet": engine.KindUpdate, "delete_pet": engine.KindDelete}
	for name, k := range want {
		if tool := w.Tool(name); tool == nil || tool.Kind != k {
			t.Errorf("tool %s: %+v, want kind %s", name, tool, k)
		}
	}
	if w.Tool("create_pets").Param("id") != nil {
		t.Error("create_pets takes an id; herd generates ids")
	}
	if p := w.Tool("show_pet_by_id").Param("pet_id"); p == nil || !p.Required || w.Tool("show_pet_by_id").Key != "pet_id" {
		t.Errorf("show_pet_by_id key: %+v", p)
	}
	if f := w.Type("pet").Field("status"); f == nil || f.Type != engine.FieldEnum {
		t.Errorf("status field %+v", f)
	}
	g := w.Goal("update_pet")
	if g == nil || !hasClass(g, "recreated_not_updated") || !hasClass(g, "destroyed_data") {
		t.Fatalf("update_pet goal: %+v", g)
	}
}

// A scaffolded world runs as generated, and a rewrite of the server's
// descriptions moves the misuse of the confusable pair: measured with the
// same agents under each wording.
func TestDraftsRunAndRewritesMoveMisuse(t *testing.T) {
	for _, c := range []struct {
		src     func(*testing.T) *Source
		rewrite string
		goal    string
	}{
		{memorySource, "testdata/server-memory-rewrite.yaml", "delete_observations"},
		{petstoreSource, "testdata/petstore-rewrite.yaml", "update_pet"},
	} {
		d, err := Build(c.src(t), Options{})
		if err != nil {
			t.Fatal(err)
		}
		w := d.World
		descs, err := lint.LoadDescriptions(c.rewrite, w)
		if err != nil {
			t.Fatal(err)
		}
		var mix []swarm.MixEntry
		for _, p := range personas.Builtin().Personas {
			mix = append(mix, swarm.MixEntry{Persona: p, Weight: 1})
		}
		plan, err := swarm.NewPlan(swarm.Config{World: w, WorldRef: w.Name + ".yaml", Seed: 42, Agents: 700,
			Goals: []*engine.Goal{w.Goal(c.goal)}, Mix: mix, Variants: []string{Variant, "rewrite"},
			Descriptions: descs, Workers: 2})
		if err != nil {
			t.Fatal(err)
		}
		res, err := plan.Run(context.Background(), swarm.InProcess{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Episodes != 1400 || res.Partial {
			t.Fatalf("%s: %d episodes, partial %v", w.Name, res.Episodes, res.Partial)
		}
		yours, rewrite := classCount(res, Variant, "destroyed_data"), classCount(res, "rewrite", "destroyed_data")
		t.Logf("%s %s destroyed_data: yours %d, rewrite %d of 700", w.Name, c.goal, yours, rewrite)
		if yours == 0 || rewrite >= yours/2 {
			t.Errorf("%s %s: destroyed_data yours %d, rewrite %d of 700: the rewrite should at least halve it", w.Name, c.goal, yours, rewrite)
		}
	}
}

func classCount(res *report.Results, variant, class string) int {
	n := 0
	for _, c := range res.Counts {
		if c.Variant == variant && c.Class == class {
			n += c.N
		}
	}
	return n
}

func hasClass(g *engine.Goal, name string) bool {
	for _, c := range g.Outcomes {
		if c.Class == name {
			return true
		}
	}
	return false
}

func typeNames(w *engine.World) []string {
	var out []string
	for _, t := range w.Types {
		out = append(out, t.Name)
	}
	return out
}

func goalNames(w *engine.World) []string {
	var out []string
	for _, g := range w.Goals {
		out = append(out, g.Name)
	}
	return out
}

// Every npm reference server's saved tool list scaffolds into a world
// that loads and runs, whatever herd could infer of it: a server of
// utilities (server-everything), a single reasoning tool
// (sequential-thinking), a file system addressed by paths.
func TestReferenceServersScaffoldAndRun(t *testing.T) {
	for _, name := range []string{"server-everything", "server-sequential-thinking", "server-filesystem", "server-memory"} {
		t.Run(name, func(t *testing.T) {
			path := "testdata/" + name + ".tools.json"
			src, err := FromMCP(path, name, "", "", readToolsFixture(t, path))
			if err != nil {
				t.Fatal(err)
			}
			d, err := Build(src, Options{})
			if err != nil {
				t.Fatal(err)
			}
			w := d.World
			if len(w.Tools) != len(src.Ops) || len(w.Goals) == 0 {
				t.Fatalf("%d of %d tools, %d goals", len(w.Tools), len(src.Ops), len(w.Goals))
			}
			var mix []swarm.MixEntry
			for _, p := range personas.Builtin().Personas {
				mix = append(mix, swarm.MixEntry{Persona: p, Weight: 1})
			}
			plan, err := swarm.NewPlan(swarm.Config{World: w, WorldRef: name, Seed: 7, Agents: 140, Mix: mix, Workers: 2})
			if err != nil {
				t.Fatal(err)
			}
			res, err := plan.Run(context.Background(), swarm.InProcess{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Episodes != 140 {
				t.Fatalf("%d episodes", res.Episodes)
			}
		})
	}
}
