package engine

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// Every malformed world is refused with every problem as
// file:line:col: message, exactly. The files are in testdata/bad, one
// mistake each (many_problems.yaml has several, reported in file order).
func TestBadWorlds(t *testing.T) {
	cases := []struct {
		file string
		want []string // after "testdata/bad/FILE:"
	}{
		{"alias.yaml", []string{
			"21:19: aliases are not supported in world files",
		}},
		{"bad_default.yaml", []string{
			"8:37: field note.version: default: want a whole number, got \"one\"",
		}},
		{"bad_duration.yaml", []string{
			"21:24: faults slow: default: latency fixed: \"10 parsecs\" is not a duration such as 40ms or 2s",
		}},
		{"bad_epoch.yaml", []string{
			"3:8: epoch must be an RFC 3339 time such as 2026-01-01T00:00:00Z, got \"yesterday\"",
		}},
		{"bad_placeholder.yaml", []string{
			"19:57: tool get_note: message: placeholder {{note.id}}: \"note\" is not available here (available: args, r)",
		}},
		{"bad_ref.yaml", []string{
			"11:34: field note.owner: ref to unknown type \"person\" (a ref must name a type declared above it)",
		}},
		{"bad_severity.yaml", []string{
			"23:37: goal read_note: outcome achieved: severity must be ok, failed or harmful, got \"good\"",
		}},
		{"bad_tool_name.yaml", []string{
			"12:3: tool name \"getNote\" must be lower case letters, digits and _ (starting with a letter)",
		}},
		{"bad_yaml.yaml", []string{
			"6:6: YAML: mapping values are not allowed in this context",
		}},
		{"cel_not_bool.yaml", []string{
			"19:15: CEL: expression \"r.version + 1\" has type int, want bool",
		}},
		{"cel_syntax.yaml", []string{
			"19:30: CEL: syntax error: the expression ends too early in \"r.archived &&\"",
		}},
		{"cel_type.yaml", []string{
			"25:36: CEL: operator '+' cannot be applied to (bool, int) in \"r.archived + 1\"",
		}},
		{"cel_unknown_field.yaml", []string{
			"19:23: CEL: undefined field 'recrods' (args has: id; r has: id, title, archived, version) in \"size(r.recrods) > 0\"",
		}},
		{"duplicate_tool.yaml", []string{
			"18:3: \"get_note\" given twice (first at line 12)",
		}},
		{"effect_unknown_field.yaml", []string{
			"25:15: tool archive_note: set: note has no field \"archivd\" (its fields: id, title, archived, version)",
		}},
		{"empty.yaml", []string{
			"1:1: empty world file",
		}},
		{"enum_weights_mismatch.yaml", []string{
			"8:62: field note.status: 3 weights for 2 values",
		}},
		{"field_given_twice.yaml", []string{
			"14:5: \"kind\" given twice (first at line 13)",
		}},
		{"goal_target_matches_nothing.yaml", []string{
			"21:35: goal read_note: no seeded note matches the target's where \"r.version > 1\" (seed 0)",
		}},
		{"invariant_cost_exceeded.yaml", []string{
			"18:11: invariant titles_everywhere: rule_cost_exceeded: the rule exceeded its cost limit (200000 units) on the seeded state",
		}},
		{"invariant_false_on_base.yaml", []string{
			"21:11: invariant nothing_archived does not hold for seeded note n_0001 (seed 0)",
		}},
		{"last_outcome_not_catch_all.yaml", []string{
			"24:47: goal read_note: the last outcome must be the catch-all `when: \"true\"`",
		}},
		{"many_problems.yaml", []string{
			"1:8: world name \"Tiny\" must be lower case letters, digits and _ (starting with a letter)",
			"5:12: type note: count must be a whole number from 0 to 100000, got -3",
			"8:21: field note.title: unknown type \"text\" (one of str, int, float, bool, datetime, enum, ref, id)",
			"11:11: tool get_note: unknown kind \"fetch\" (get, list, create, update, delete or custom)",
		}},
		{"missing_id_field.yaml", []string{
			"4:3: type note: needs a field `id: {type: id}`",
		}},
		{"missing_key_param.yaml", []string{
			"13:5: tool delete_note: needs a param \"id\" to select the note (or set \"key\")",
		}},
		{"missing_variant.yaml", []string{
			"16:7: tool get_note: no description for variant \"ambiguous\" (every tool describes itself under each of clear, ambiguous)",
		}},
		{"negative_probability.yaml", []string{
			"22:30: faults flaky: default: probability of timeout is negative (-0.1)",
		}},
		{"no_variants.yaml", []string{
			"1:1: variants: a world needs at least one description variant (e.g. [clear, ambiguous] to compare two wordings), got 0",
		}},
		{"p_on_str_field.yaml", []string{
			"8:41: field note.title: \"p\" does not apply to str fields",
		}},
		{"param_field_type_mismatch.yaml", []string{
			"24:23: param set_version.version: type str does not match field note.version (int)",
		}},
		{"precondition_without_error.yaml", []string{
			"19:9: tool get_note: precondition needs \"error\" (an error code such as locked)",
		}},
		{"probabilities_over_one.yaml", []string{
			"22:9: faults flaky: get_note: fault probabilities sum to 1.2, more than 1",
		}},
		{"rate_limit_retry_on_timeout.yaml", []string{
			"22:48: faults flaky: default: retry_after applies only to rate_limited",
		}},
		{"unknown_field_key.yaml", []string{
			"8:38: unknown field \"lenght\" (expected one of: type, prefix, gen, default, min, max, p, values, weights, ref, from, near_duplicates, max_days, nullable)",
		}},
		{"unknown_generator.yaml", []string{
			"8:31: field note.title: unknown generator \"titel\" (one of amount, city, company, email, first_name, last_name, past, path, person_name, sentence, sku, title, uniform, word)",
		}},
		{"unknown_tool_in_faults.yaml", []string{
			"21:7: faults flaky: unknown tool \"get_notes\"",
		}},
		{"unknown_top_key.yaml", []string{
			"11:1: unknown field \"tool\" (expected one of: world, version, description, seed, epoch, variants, types, tools, invariants, faults, goals, lexicon, instructions)",
		}},
		{"unknown_variant.yaml", []string{
			"18:7: tool get_note: unknown variant \"vague\" (the world's variants are clear, ambiguous)",
		}},
		{"wrong_type_count.yaml", []string{
			"5:12: type note: count must be a whole number from 0 to 100000, got \"many\"",
		}},
		{"wrong_type_list.yaml", []string{
			"2:11: variants: expected a list, got \"clear\"",
		}},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		seen[c.file] = true
		t.Run(strings.TrimSuffix(c.file, ".yaml"), func(t *testing.T) {
			path := "testdata/bad/" + c.file
			w, err := LoadFile(path)
			if err == nil {
				t.Fatalf("%s loaded as world %q; want it refused", path, w.Name)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error is %T (%v), want *LoadError", err, err)
			}
			want := make([]string, len(c.want))
			for i, l := range c.want {
				want[i] = path + ":" + l
			}
			if got := le.Lines(); !slices.Equal(got, want) {
				t.Fatalf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			if le.Error() != strings.Join(want, "\n") || le.File != path {
				t.Fatalf("Error() = %q, File = %q", le.Error(), le.File)
			}
		})
	}
	files, _ := filepath.Glob("testdata/bad/*.yaml")
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("%s has no entry in the table", f)
		}
	}
	if len(cases) < 24 {
		t.Errorf("only %d malformed worlds", len(cases))
	}
}

func TestGoodWorldsLoad(t *testing.T) {
	for _, f := range []string{"testdata/shop.yaml", "testdata/costly.yaml", "../worlds/crm.yaml"} {
		w := mustLoad(t, f)
		if w.File != f || len(w.Hash) != 64 || len(w.Source) == 0 {
			t.Errorf("%s: File=%q Hash=%q", f, w.File, w.Hash)
		}
	}
	w := mustLoad(t, "testdata/shop.yaml")
	if w.Name != "shop" || w.Version != 3 || w.DefaultSeed != 11 || w.Epoch.Format("2006-01-02T15:04:05Z07:00") != "2026-03-01T09:00:00Z" {
		t.Fatalf("top level: %q v%d seed %d epoch %s", w.Name, w.Version, w.DefaultSeed, w.Epoch)
	}
	if !slices.Equal(w.Variants, []string{"clear", "ambiguous"}) || !w.HasVariant("ambiguous") || w.HasVariant("vague") {
		t.Fatalf("variants %v", w.Variants)
	}
	pay := w.Tool("create_payment")
	if pay.Kind != KindCreate || pay.Record != w.Type("payment") || pay.Idempotency != "idempotency_key" || !pay.Writes() {
		t.Fatalf("create_payment: %+v", pay)
	}
	if d := pay.Description("ambiguous"); d != "Pay." {
		t.Fatalf("ambiguous description %q", d)
	}
	if d := pay.Description("no-such-variant"); !strings.HasPrefix(d, "Pay for an order.") {
		t.Fatalf("unknown variant falls back to the first: %q", d)
	}
	get := w.Tool("get_order")
	if !get.Annotations.ReadOnly || get.Annotations.Destructive || get.Writes() || get.Key != "id" {
		t.Fatalf("get_order: %+v", get)
	}
	if del := w.Tool("delete_customer"); !del.Annotations.Destructive || del.Annotations.ReadOnly {
		t.Fatalf("delete_customer annotations %+v", del.Annotations)
	}
	if !slices.Contains(w.ErrorCodes(), "card_declined") || !slices.Contains(w.ErrorCodes(), "over_refund") {
		t.Fatalf("error codes %v", w.ErrorCodes())
	}
}

// A world with one variant loads: a world scaffolded from a server has
// only the server's own wording, and a rewrite comes from a descriptions
// file.
func TestSingleVariantWorldLoads(t *testing.T) {
	src := []byte(`world: tiny
variants: [yours]
types:
  note:
    count: 5
    fields:
      id:    {type: id, prefix: "n_"}
      title: {type: str, gen: title}
tools:
  get_note:
    kind: get
    record: note
    descriptions: {yours: Fetch one note.}
    params:
      id: {type: str, required: true}
`)
	w, err := Parse("tiny.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(w.Variants, []string{"yours"}) || w.DefaultVariant() != "yours" || w.Tool("get_note").Description("yours") != "Fetch one note." {
		t.Fatalf("variants %v, description %q", w.Variants, w.Tool("get_note").Description("yours"))
	}
}

// The first example in docs/worlds.md is a complete world: it must load,
// and its tools must do what the page says.
func TestDocsExampleValidates(t *testing.T) {
	doc, err := os.ReadFile("../docs/worlds.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no ```yaml block in docs/worlds.md")
	}
	w, err := Parse("docs/worlds.md", m[1])
	if err != nil {
		t.Fatalf("the example in docs/worlds.md does not load:\n%v", err)
	}
	b := mustSeed(t, w, w.DefaultSeed)
	s := b.NewSession(1, nil)
	g := w.Goal(w.Goals[0].Name)
	a, err := g.Begin(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	res := s.Call("archive_note", map[string]any{"id": a.Target.ID()})
	if !res.OK() || res.Record.Get("archived") != true {
		t.Fatalf("archive_note: %+v", res)
	}
	if n := len(s.List(w.Type("audit"))); n != 1 {
		t.Fatalf("%d audit records after an archive, want 1", n)
	}
	v, err := a.Judge()
	if err != nil || v.Class != "achieved" {
		t.Fatalf("verdict %+v, %v", v, err)
	}
}

// The YAML library reports invalid UTF-8 with no line; the loader must
// still say where it is.
func TestInvalidUTF8IsLocated(t *testing.T) {
	_, err := Parse("w.yaml", []byte("world: w\ndescription: caf\xe9\n"))
	if err == nil || err.Error() != "w.yaml:2:17: YAML: invalid UTF-8" {
		t.Fatalf("got %v", err)
	}
}
