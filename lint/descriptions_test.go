package lint

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/herd-sh/herd/engine"
)

func defectsWorld(t *testing.T) *engine.World {
	t.Helper()
	w, err := engine.LoadFile("testdata/defects.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestLoadDescriptionsGood(t *testing.T) {
	w := defectsWorld(t)
	got, err := LoadDescriptions("testdata/descriptions/good.yaml", w)
	if err != nil {
		t.Fatal(err)
	}
	if vs := VariantNames(w, got); !slices.Equal(vs, []string{"clear", "ambiguous", "better"}) {
		t.Fatalf("variants = %v, want clear, ambiguous, better", vs)
	}
	getText := "Fetch one order by id: customer, total, status and note. Read-only."
	listText := "List orders, optionally filtered by status. Read-only." // folded, trailing newline trimmed
	want := map[string]map[string]string{
		"clear":     {"get_order": getText, "list_orders": listText},
		"ambiguous": {"get_order": getText, "list_orders": listText, "update_order": "Change an order's status or note."},
		"better": {"get_order": getText, "list_orders": listText,
			"update_order": "Change an order's status or note; other fields stay as they are. Use cancel_order to cancel."},
	}
	for v, m := range want {
		if !maps.Equal(got[v], m) {
			t.Errorf("variant %s:\n got %v\nwant %v", v, got[v], m)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d variants, want %d", len(got), len(want))
	}
}

func TestLoadDescriptionsErrors(t *testing.T) {
	w := defectsWorld(t)
	const tools = "get_order, list_orders, search_orders, update_order, purge_order, cancel_order, void_order"
	cases := []struct{ file, want string }{
		{"unknown-tool.yaml", `testdata/descriptions/unknown-tool.yaml:2:1: unknown tool "delete_order"; world defects has ` + tools},
		{"wrong-type.yaml", `testdata/descriptions/wrong-type.yaml:2:3: tool get_order: want a description (text) or a mapping of variant → text, got a list`},
		{"wrong-type-number.yaml", `testdata/descriptions/wrong-type-number.yaml:2:14: tool list_orders: want a description (text), got the number 42; quote it if you mean the text`},
		{"empty-text.yaml", `testdata/descriptions/empty-text.yaml:1:12: tool get_order: description is empty`},
		{"empty-variant-text.yaml", `testdata/descriptions/empty-variant-text.yaml:2:10: tool get_order: variant clear: description is empty`},
		{"bad-yaml.yaml", `testdata/descriptions/bad-yaml.yaml:3:1: YAML: found unexpected end of stream`},
		{"bad-yaml-indent.yaml", `testdata/descriptions/bad-yaml-indent.yaml:2:3: YAML: did not find expected key`},
		{"duplicate.yaml", `testdata/descriptions/duplicate.yaml:2:1: "get_order" given twice (first at line 1)`},
		{"not-mapping.yaml", `testdata/descriptions/not-mapping.yaml:1:1: want a mapping of tool name → description, got a list`},
		{"new-variant-partial.yaml", `testdata/descriptions/new-variant-partial.yaml:4:3: tool list_orders: no text for variant better; better is not a variant of world defects (clear, ambiguous), so every tool given per variant must name it (get_order does)`},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			got, err := LoadDescriptions("testdata/descriptions/"+c.file, w)
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			if err.Error() != c.want {
				t.Errorf("error:\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestParseDescriptionsEdgeCases(t *testing.T) {
	w := defectsWorld(t)
	cases := []struct{ name, src, want string }{
		{"empty file", "", "d.yaml:1:1: empty descriptions file: want tool: text lines"},
		{"only a comment", "# nothing\n", "d.yaml:1:1: empty descriptions file: want tool: text lines"},
		{"null text", "get_order:\n", "d.yaml:1:11: tool get_order: description is empty"},
		{"bool text", "get_order: true\n", "d.yaml:1:12: tool get_order: want a description (text), got the boolean true; quote it if you mean the text"},
		{"alias", "a: &x \"Fetch one order.\"\nget_order: *x\n", "d.yaml:1:1: unknown tool \"a\"; world defects has get_order, list_orders, search_orders, update_order, purge_order, cancel_order, void_order\nd.yaml:2:12: aliases are not supported in descriptions files"},
		{"bad variant name", "get_order:\n  Clear: \"Fetch one order.\"\n", "d.yaml:2:3: tool get_order: bad variant name \"Clear\": want lower case letters, digits and _ (starting with a letter)"},
		{"empty mapping", "get_order: {}\n", "d.yaml:1:12: tool get_order: no variants given"},
		{"invalid utf-8", "get_order: \"ok\"\nlist_orders: \"caf\xe9\"\n", "d.yaml:2:18: YAML: invalid UTF-8"},
		{"first-line YAML error", "get_order: a: b\n", "d.yaml:1:1: YAML: mapping values are not allowed in this context"},
		{"several problems", "get_order: 1\nnope: x\n", "d.yaml:1:12: tool get_order: want a description (text), got the number 1; quote it if you mean the text\nd.yaml:2:1: unknown tool \"nope\"; world defects has get_order, list_orders, search_orders, update_order, purge_order, cancel_order, void_order"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseDescriptions("d.yaml", []byte(c.src), w)
			if err == nil {
				t.Fatalf("no error; got %v", got)
			}
			var le *engine.LoadError
			if !errors.As(err, &le) || le.File != "d.yaml" {
				t.Errorf("error is %T (%v), want an *engine.LoadError for d.yaml", err, err)
			}
			if err.Error() != c.want {
				t.Errorf("error:\n got %s\nwant %s", err, c.want)
			}
		})
	}
}

func TestLoadDescriptionsMissingFile(t *testing.T) {
	_, err := LoadDescriptions("testdata/descriptions/no-such-file.yaml", defectsWorld(t))
	if err == nil || err.Error() != "descriptions testdata/descriptions/no-such-file.yaml: open testdata/descriptions/no-such-file.yaml: no such file or directory" {
		t.Fatalf("error = %v", err)
	}
}

// A variant the world does not have defines a new one; a caller that runs
// only some variants learns where each new one is named, and CheckVariants
// refuses those it will not run (a misspelt variant is one of them).
func TestDescriptionsNewVariants(t *testing.T) {
	w := defectsWorld(t)
	src := "get_order:\n  clear: \"Fetch one order.\"\n  ambigous: \"Get it.\"\n  better: \"Fetch one order by id.\"\n" +
		"list_orders:\n  better: \"List orders.\"\n  ambigous: \"List.\"\n"
	d, err := ParseDescriptionsFile("d.yaml", []byte(src), w)
	if err != nil {
		t.Fatal(err)
	}
	want := []NewVariant{{Name: "ambigous", Tool: "get_order", Pos: engine.Pos{Line: 3, Col: 3}}, {Name: "better", Tool: "get_order", Pos: engine.Pos{Line: 4, Col: 3}}}
	if !slices.Equal(d.New, want) {
		t.Fatalf("New = %+v, want %+v", d.New, want)
	}
	if d.Texts["better"]["list_orders"] != "List orders." || d.Texts["ambigous"]["get_order"] != "Get it." {
		t.Fatalf("texts %v", d.Texts)
	}
	if err := d.CheckVariants([]string{"clear", "ambigous", "better"}); err != nil {
		t.Fatalf("every new variant asked for: %v", err)
	}
	err = d.CheckVariants([]string{"clear", "better"})
	var le *engine.LoadError
	if !errors.As(err, &le) {
		t.Fatalf("error is %T (%v), want an *engine.LoadError", err, err)
	}
	const msg = `d.yaml:3:3: tool get_order: variant "ambigous" is not a variant of world defects (clear, ambiguous) and not one of the run's variants (clear, better)`
	if err.Error() != msg {
		t.Fatalf("error:\n got %s\nwant %s", err, msg)
	}
	plain, err := ParseDescriptionsFile("d.yaml", []byte("get_order: \"Fetch one order.\"\n"), w)
	if err != nil || len(plain.New) != 0 || plain.CheckVariants([]string{"clear"}) != nil {
		t.Fatalf("a file with no new variant: %+v, %v", plain, err)
	}
}
