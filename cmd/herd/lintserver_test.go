package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/report"
)

// Saved tools/list answers of two npm reference servers
// (@modelcontextprotocol/server-memory and server-filesystem, 2026.8.31),
// so that lint and token counts are tested without Node.
const (
	memoryTools     = "testdata/toollists/server-memory.json"
	filesystemTools = "testdata/toollists/server-filesystem.json"
)

// lintJSON runs herd lint with --format json and decodes its document.
func lintJSON(t *testing.T, args ...string) (int, lint.Document, string) {
	t.Helper()
	code, out, errOut := runHerd(t, append([]string{"lint", "--format", "json"}, args...)...)
	var doc lint.Document
	if code == exitOK || code == exitThreshold {
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("herd lint %v: %v\n%s", args, err, out)
		}
	}
	return code, doc, errOut
}

// readOnlyTools are the tools a saved list marks readOnlyHint: true.
func readOnlyTools(t *testing.T, path string) map[string]bool {
	t.Helper()
	tl, err := readToolListFileForTest(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, tool := range tl {
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			out[tool.Name] = true
		}
	}
	return out
}

func readToolListFileForTest(path string) ([]*mcp.Tool, error) {
	tools, _, err := readToolListFile(path, defaultMaxTools)
	return tools, err
}

// checkServerLint asserts what must hold of any server's lint: effect
// classes on every tool, no destructive finding on a read-only tool, no
// error about a tool of unknown effect, token counts that add up.
func checkServerLint(t *testing.T, doc lint.Document, readOnly map[string]bool) {
	t.Helper()
	if len(doc.Reports) != 1 {
		t.Fatalf("%d reports, want 1", len(doc.Reports))
	}
	r := doc.Reports[0]
	effects := map[string]lint.Effect{}
	for _, ts := range r.Tools {
		effects[ts.Tool] = ts.Effect
		if ts.Effect == "" {
			t.Errorf("%s has no effect class", ts.Tool)
		}
		if readOnly[ts.Tool] && ts.Effect != lint.EffectRead {
			t.Errorf("%s is marked read-only but classed %s", ts.Tool, ts.Effect)
		}
	}
	for _, f := range r.Findings {
		if readOnly[f.Tool] && (strings.Contains(f.Message, "destructive") || strings.Contains(f.Message, "erases")) {
			t.Errorf("read-only %s: %s finding %q", f.Tool, f.Level, f.Message)
		}
		if effects[f.Tool] == lint.EffectUnknown && f.Level == lint.LevelError {
			t.Errorf("%s is of unknown effect but has an error: %s", f.Tool, f.Message)
		}
	}
	if r.Tokens == nil || r.Tokens.Encoding != doc.Encoding || len(r.Tokens.Tools) != len(r.Tools) {
		t.Fatalf("token cost %+v (document encoding %q)", r.Tokens, doc.Encoding)
	}
	sum := 0
	for _, tt := range r.Tokens.Tools {
		if tt.Tokens <= 0 {
			t.Errorf("%s: %d tokens", tt.Tool, tt.Tokens)
		}
		sum += tt.Tokens
	}
	if sum != r.Tokens.Total {
		t.Errorf("tokens: total %d, tools add up to %d", r.Tokens.Total, sum)
	}
}

func TestLintSavedToolLists(t *testing.T) {
	for _, c := range []struct {
		path    string
		code    int
		o200k   int
		cl100k  int
		effects map[string]lint.Effect
	}{
		// server-memory's deletes do not say they cannot be undone: errors.
		{memoryTools, exitThreshold, 904, 863, map[string]lint.Effect{"read_graph": lint.EffectRead, "open_nodes": lint.EffectRead,
			"create_entities": lint.EffectWrite, "delete_entities": lint.EffectDestructive}},
		{filesystemTools, exitOK, 1665, 1632, map[string]lint.Effect{"directory_tree": lint.EffectRead, "list_allowed_directories": lint.EffectRead,
			"write_file": lint.EffectDestructive, "create_directory": lint.EffectWrite}},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			readOnly := readOnlyTools(t, c.path)
			if len(readOnly) == 0 {
				t.Fatal("no read-only tool in the list: the test would prove nothing")
			}
			for _, enc := range []struct {
				name   string
				tokens int
			}{{lint.EncodingO200k, c.o200k}, {lint.EncodingCL100k, c.cl100k}} {
				code, doc, errOut := lintJSON(t, c.path, "--encoding", enc.name)
				if code != c.code {
					t.Fatalf("exit %d, want %d: %s", code, c.code, errOut)
				}
				checkServerLint(t, doc, readOnly)
				if doc.Encoding != enc.name || doc.Reports[0].Tokens.Total != enc.tokens {
					t.Errorf("%s: %d tokens in %s, want %d", c.path, doc.Reports[0].Tokens.Total, doc.Encoding, enc.tokens)
				}
				if doc.Target != c.path {
					t.Errorf("target %q, want %q", doc.Target, c.path)
				}
				for tool, want := range c.effects {
					ts, _ := doc.Reports[0].Tool(tool)
					if ts.Effect != want {
						t.Errorf("%s: %s, want %s", tool, ts.Effect, want)
					}
				}
			}
		})
	}
}

func TestLintTokenThresholds(t *testing.T) {
	code, _, errOut := runHerd(t, "lint", filesystemTools, "--threshold", "tokens<4000", "--threshold", "directory_tree:tokens<500")
	if code != exitOK {
		t.Errorf("budgets kept: exit %d: %s", code, errOut)
	}
	code, out, errOut := runHerd(t, "lint", filesystemTools, "--threshold", "tokens<1000")
	if code != exitThreshold || !strings.Contains(errOut, "1 token budget broken") ||
		!strings.Contains(out, "FAIL tokens<1000: the tool set is 1665 tokens (o200k_base") {
		t.Errorf("a budget broken: exit %d\n%s\n%s", code, errOut, out)
	}
	_, doc, _ := lintJSON(t, filesystemTools, "--threshold", "tokens<1000")
	if len(doc.Thresholds) != 1 || doc.Thresholds[0].Pass || doc.Thresholds[0].Tokens != 1665 {
		t.Errorf("JSON verdicts: %+v", doc.Thresholds)
	}
	for _, bad := range [][]string{
		{filesystemTools, "--threshold", "tokens>5"},
		{filesystemTools, "--threshold", "nope:tokens<5"},
		{filesystemTools, "--encoding", "p50k_base"},
		{filesystemTools, "--variant", "clear"},
		{memoryTools, "--max-tools", "5"},
	} {
		if code, _, errOut := runHerd(t, append([]string{"lint"}, bad...)...); code != exitUsage {
			t.Errorf("herd lint %v: exit %d, want 2: %s", bad, code, errOut)
		}
	}
	// A world's variants are each judged, and the token count is named.
	code, out, _ = runHerd(t, "lint", "mock:crm", "--threshold", "tokens<100000")
	if code != exitThreshold || !strings.Contains(out, "PASS tokens<100000") || !strings.Contains(out, "clear: tokens (o200k_base):") {
		t.Errorf("a world: exit %d\n%s", code, out)
	}
}

func TestInspectSavedToolList(t *testing.T) {
	code, out, errOut := runHerd(t, "inspect", memoryTools)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"9 tools: 3 read, 3 write, 3 destructive, 0 unknown; 904 tokens of definitions (o200k_base)",
		"read_graph: read, 40 tokens  [readOnly, closed world]", "delete_entities: destructive"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect lacks %q:\n%s", want, out)
		}
	}
	// The JSON form is a tool list herd reads back, to the same count.
	code, js, _ := runHerd(t, "inspect", memoryTools, "--format", "json")
	if code != exitOK {
		t.Fatal(code)
	}
	saved := writeFile(t, "again.json", js)
	_, doc, _ := lintJSON(t, saved)
	if doc.Reports[0].Tokens.Total != 904 || len(doc.Reports[0].Tools) != 9 {
		t.Errorf("read back: %+v", doc.Reports[0].Tokens)
	}
}

// A run's results hold the same token counts herd lint prints, and its
// terminal summary names them in one line.
func TestSwarmResultsHoldLintTokens(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.json")
	code, out, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "20", "--progress", "never", "--json", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res, err := report.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, doc, _ := lintJSON(t, "mock:crm", "--variant", "clear")
	want := doc.Reports[0].Tokens
	if len(res.LintTokens) != 1 {
		t.Fatalf("lint_tokens: %+v", res.LintTokens)
	}
	lt := res.LintTokens[0]
	if lt.Variant != "clear" || lt.Encoding != lint.EncodingO200k || lt.Total != int64(want.Total) || len(lt.Tools) != len(want.Tools) {
		t.Errorf("lint_tokens %+v, herd lint counts %d", lt, want.Total)
	}
	if !strings.Contains(out, fmt.Sprintf("tool definitions %d tokens (o200k_base)", want.Total)) {
		t.Errorf("the summary line does not name the count:\n%s", out)
	}
}
