package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

func TestLintExitCodes(t *testing.T) {
	cases := []struct {
		name string
		args []string
		code int
		err  string // substring of stderr
	}{
		{"clear passes", []string{"lint", "mock:crm", "--variant", "clear"}, 0, ""},
		{"ambiguous has errors", []string{"lint", "mock:crm", "--variant", "ambiguous"}, 1, "error-level finding"},
		{"better descriptions pass", []string{"lint", "mock:crm", "--variant", "ambiguous", "--descriptions", "../../lint/testdata/crm-better.yaml"}, 0, ""},
		{"every variant", []string{"lint", "mock:crm"}, 1, "error-level finding"},
		{"unknown world", []string{"lint", "mock:nope"}, 2, `unknown world "mock:nope"`},
		{"unknown variant", []string{"lint", "mock:crm", "--variant", "fuzzy"}, 2, `--variant "fuzzy": world crm has no such variant (it has clear, ambiguous)`},
		{"bad format", []string{"lint", "mock:crm", "--format", "xml"}, 2, `--format "xml": want one of table, json, md`},
		{"bad level", []string{"lint", "mock:crm", "--level", "debug"}, 2, `--level "debug"`},
		{"no world", []string{"lint"}, 2, "accepts 1 arg"},
		{"bad world file", []string{"lint", "../../lint/testdata/descriptions/good.yaml"}, 2, "good.yaml:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runHerd(t, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.err) {
				t.Errorf("stderr %q lacks %q", stderr, c.err)
			}
		})
	}
}

func TestLintBadDescriptionsFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "d.yaml")
	if err := os.WriteFile(path, []byte("delete_contact: \"Permanently delete a contact.\"\nremove_contact: \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runHerd(t, "lint", "mock:crm", "--descriptions", path)
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if stdout != "" {
		t.Errorf("printed a report for bad input: %s", stdout)
	}
	want := "herd: " + path + `:2:1: unknown tool "remove_contact"; world crm has `
	if !strings.HasPrefix(stderr, want) {
		t.Errorf("stderr:\n%s\nwant prefix:\n%s", stderr, want)
	}
}

func TestLintJSON(t *testing.T) {
	code, stdout, _ := runHerd(t, "lint", "mock:crm", "--format", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	var doc lint.Document
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.World != "crm" || len(doc.Reports) != 2 || doc.Reports[0].Variant != "clear" || doc.Reports[1].Variant != "ambiguous" {
		t.Fatalf("document: world %q, %d reports", doc.World, len(doc.Reports))
	}
	if !(doc.Reports[1].Score < doc.Reports[0].Score) {
		t.Errorf("ambiguous %v not below clear %v", doc.Reports[1].Score, doc.Reports[0].Score)
	}
	_, again, _ := runHerd(t, "lint", "mock:crm", "--format", "json")
	if again != stdout {
		t.Error("two runs print different JSON")
	}
}

func TestLintTableAndMarkdown(t *testing.T) {
	_, table, _ := runHerd(t, "lint", "mock:crm", "--variant", "ambiguous", "--level", "error")
	for _, want := range []string{"herd lint · world crm · variant ambiguous", "| delete_contact  |", "+----", "| error | ambiguous | delete_contact |"} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	if strings.Contains(table, "| warning ") || strings.Contains(table, "| info ") {
		t.Errorf("--level error shows lower levels:\n%s", table)
	}
	if strings.ContainsAny(table, "┌─│") {
		t.Error("table to a non-terminal uses box-drawing characters")
	}
	_, md, _ := runHerd(t, "lint", "mock:crm", "--variant", "ambiguous", "--format", "md")
	for _, want := range []string{"## herd lint · crm", "### Findings", "| error ", "`delete_contact`", "|:---"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
}

// A lint report's findings reach a results document field for field.
func TestLintResults(t *testing.T) {
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	r := lint.Lint(w, "ambiguous", nil)
	got := swarm.LintResults(r)
	if len(got) != len(r.Findings) || len(got) == 0 {
		t.Fatalf("%d results for %d findings", len(got), len(r.Findings))
	}
	for i, f := range r.Findings {
		g := got[i]
		if g.Tool != f.Tool || g.Variant != f.Variant || g.Dimension != f.Dimension || g.Level != f.Level || g.Message != f.Message || g.Fix != f.Fix {
			t.Errorf("result %d = %+v, want %+v", i, g, f)
		}
	}
}
