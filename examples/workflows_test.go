package examples_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// action.yml and the comment action must only use inputs they declare,
// steps they have and scripts that exist and can run.
func TestActionDefinitions(t *testing.T) {
	for _, path := range []string{
		filepath.Join(root, "action.yml"),
		filepath.Join(root, ".github", "actions", "herd", "comment", "action.yml"),
	} {
		checkAction(t, path)
	}
}

// Neither the action nor a workflow to copy pastes an expression into a
// shell script: a value that comes from a pull request (a title, a branch
// name, an output) could then run as code. Values go through env instead.
func TestNoExpressionsInRunScripts(t *testing.T) {
	paths := []string{
		filepath.Join(root, "action.yml"),
		filepath.Join(root, ".github", "actions", "herd", "comment", "action.yml"),
	}
	more, err := filepath.Glob(filepath.Join(root, "examples", "github", "*.yml"))
	if err != nil || len(more) == 0 {
		t.Fatalf("no example workflows (%v)", err)
	}
	runs := 0
	for _, path := range append(paths, more...) {
		walkRuns(readYAML(t, path), func(run string) {
			runs++
			if strings.Contains(run, "${{") {
				t.Errorf("%s: a run script uses an expression; pass it through env:\n%s", path, run)
			}
		})
	}
	if runs < 10 {
		t.Errorf("found %d run scripts in %d files; the walk misses some", runs, len(paths)+len(more))
	}
}

// walkRuns calls f with every `run:` script in a YAML tree.
func walkRuns(v any, f func(string)) {
	switch n := v.(type) {
	case map[string]any:
		if run, ok := n["run"].(string); ok {
			f(run)
		}
		for _, c := range n {
			walkRuns(c, f)
		}
	case []any:
		for _, c := range n {
			walkRuns(c, f)
		}
	}
}

var (
	inputRef  = regexp.MustCompile(`inputs\.([a-z-]+)`)
	stepRef   = regexp.MustCompile(`steps\.([a-z-]+)\.(outputs|outcome)`)
	scriptRef = regexp.MustCompile(`\$GITHUB_ACTION_PATH/([^"' ]+\.sh)`)
)

func checkAction(t *testing.T, path string) {
	t.Helper()
	doc := readYAML(t, path)
	raw, _ := os.ReadFile(path)
	inputs := get(t, doc, "inputs").(map[string]any)
	if get(t, doc, "runs", "using") != "composite" {
		t.Errorf("%s: not a composite action", path)
	}
	for _, m := range inputRef.FindAllStringSubmatch(string(raw), -1) {
		if _, ok := inputs[m[1]]; !ok {
			t.Errorf("%s: uses undeclared input %q", path, m[1])
		}
	}
	ids := map[string]bool{}
	for _, s := range get(t, doc, "runs", "steps").([]any) {
		step := s.(map[string]any)
		if id, ok := step["id"].(string); ok {
			ids[id] = true
		}
		if run, ok := step["run"].(string); ok && step["shell"] != "bash" {
			t.Errorf("%s: step %q runs %q without shell: bash (composite steps need one)", path, step["name"], run)
		}
	}
	for _, m := range stepRef.FindAllStringSubmatch(string(raw), -1) {
		if !ids[m[1]] {
			t.Errorf("%s: refers to step %q, which it does not have", path, m[1])
		}
	}
	scripts := scriptRef.FindAllStringSubmatch(string(raw), -1)
	if len(scripts) == 0 {
		t.Errorf("%s: runs no script", path)
	}
	for _, m := range scripts {
		script := filepath.Join(filepath.Dir(path), m[1])
		st, err := os.Stat(script)
		if err != nil || st.Mode()&0o111 == 0 {
			t.Errorf("%s: script %s is missing or not executable (%v)", path, m[1], err)
		}
	}
}

// The example workflows fit together: herd.yml only sets inputs the action
// has, herd-comment.yml follows herd.yml by name and uses an action that
// exists here, and the matrix has as many jobs as it says shards.
func TestExampleWorkflows(t *testing.T) {
	gh := filepath.Join(root, "examples", "github")
	action := readYAML(t, filepath.Join(root, "action.yml"))
	inputs := get(t, action, "inputs").(map[string]any)

	gate := readYAML(t, filepath.Join(gh, "herd.yml"))
	found := false
	for _, s := range get(t, gate, "jobs", "readiness", "steps").([]any) {
		step := s.(map[string]any)
		if uses, _ := step["uses"].(string); strings.HasPrefix(uses, "herd-sh/herd@") {
			found = true
			for k := range step["with"].(map[string]any) {
				if _, ok := inputs[k]; !ok {
					t.Errorf("herd.yml sets input %q, which action.yml does not declare", k)
				}
			}
		}
	}
	if !found {
		t.Error("herd.yml does not use the herd action")
	}

	comment := readYAML(t, filepath.Join(gh, "herd-comment.yml"))
	// yaml.v3 reads the key `on` as the string "on".
	followed := get(t, comment, "on", "workflow_run", "workflows").([]any)
	if !slices.Contains(followed, get(t, gate, "name")) {
		t.Errorf("herd-comment.yml follows %v, but herd.yml is named %q", followed, get(t, gate, "name"))
	}
	uses := get(t, comment, "jobs", "comment", "steps", 0, "uses").(string)
	sub, _, _ := strings.Cut(strings.TrimPrefix(uses, "herd-sh/herd/"), "@")
	if _, err := os.Stat(filepath.Join(root, sub, "action.yml")); err != nil {
		t.Errorf("herd-comment.yml uses %s: %v", uses, err)
	}
	perms := get(t, comment, "permissions").(map[string]any)
	if perms["pull-requests"] != "write" || perms["actions"] != "read" || len(perms) != 2 {
		t.Errorf("herd-comment.yml permissions %v: want exactly pull-requests: write, actions: read", perms)
	}

	matrix := readYAML(t, filepath.Join(gh, "herd-matrix.yml"))
	indices := get(t, matrix, "jobs", "shard", "strategy", "matrix", "index").([]any)
	if shards := get(t, matrix, "env", "HERD_SHARDS"); shards != "4" || len(indices) != 4 {
		t.Errorf("herd-matrix.yml: HERD_SHARDS %v, %d matrix jobs", shards, len(indices))
	}
	for i, v := range indices {
		if v != i {
			t.Errorf("matrix index %d is %v: want 0..n-1", i, v)
		}
	}
}
