package examples_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
)

// bench/shard-local.sh runs the Indexed Job recipe as 4 local processes,
// merges, runs unsharded and finds the deterministic sections identical.
// The test checks that claim itself from the documents the script kept.
func TestShardLocalScript(t *testing.T) {
	keep := t.TempDir()
	r := script(t, 3*time.Minute, root, []string{"HERD=" + bins.herd, "DETJSON=" + bins.detjson, "KEEP=" + keep},
		filepath.Join(root, "bench", "shard-local.sh"), "20000")
	if r.code != 0 {
		t.Fatalf("shard-local.sh: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`deterministic sections: identical \((\d+) bytes, sha256 ([0-9a-f]{64})\)`).FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("no verdict line:\n%s", r.stdout)
	}
	for k := range 4 {
		if !regexp.MustCompile(fmt.Sprintf(`(?m)^shard %d/4 +\d+\.\d\d `, k)).MatchString(r.stdout) {
			t.Errorf("no timing row for shard %d:\n%s", k, r.stdout)
		}
	}
	for _, row := range []string{"4 shards, wall (parallel)", "merge", "unsharded"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(row) + ` +\d+\.\d\d`).MatchString(r.stdout) {
			t.Errorf("no timing row %q:\n%s", row, r.stdout)
		}
	}

	merged := readResults(t, filepath.Join(keep, "merged.json"))
	whole := readResults(t, filepath.Join(keep, "unsharded.json"))
	a, b := merged.DeterministicJSON(), whole.DeterministicJSON()
	if !bytes.Equal(a, b) {
		t.Fatal("the merged and unsharded documents differ, but the script said identical")
	}
	sum := sha256.Sum256(b)
	if m[1] != fmt.Sprint(len(b)) || m[2] != hex.EncodeToString(sum[:]) {
		t.Errorf("script reported %s bytes, sha256 %s; the section has %d bytes, sha256 %x", m[1], m[2], len(b), sum)
	}
	if whole.Run.Agents != 20000 || whole.Episodes != 20000 || merged.Run.Shard != nil {
		t.Errorf("unsharded: %d agents, %d episodes; merged shard marker %v", whole.Run.Agents, whole.Episodes, merged.Run.Shard)
	}
	// The shards really were shards: each ran its quarter.
	total := 0
	for k := range 4 {
		s := readResults(t, filepath.Join(keep, fmt.Sprintf("shard-%d.json", k)))
		if s.Run.Shard == nil || s.Run.Shard.Index != k || s.Run.Shard.Count != 4 || s.Episodes != 5000 {
			t.Errorf("shard-%d.json: shard %v, %d episodes; want %d/4 with 5000", k, s.Run.Shard, s.Episodes, k)
		}
		if bytes.Equal(s.DeterministicJSON(), b) {
			t.Errorf("shard %d equals the whole run", k)
		}
		total += s.Episodes
	}
	if total != whole.Episodes {
		t.Errorf("shards ran %d episodes, the whole run %d", total, whole.Episodes)
	}
}

func readResults(t *testing.T, path string) *report.Results {
	t.Helper()
	res, err := report.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// jobScript is the shell script a Job's container runs (command sh -c) and
// its environment, with the manifest's values.
func jobScript(t *testing.T, path string) (string, map[string]string, map[string]any) {
	t.Helper()
	doc := readYAML(t, path)
	c := get(t, doc, "spec", "template", "spec", "containers", 0).(map[string]any)
	if cmd := fmt.Sprint(c["command"]); cmd != "[sh -c]" {
		t.Fatalf("%s: command %s, want sh -c", path, cmd)
	}
	env := map[string]string{}
	if list, ok := c["env"].([]any); ok {
		for _, e := range list {
			e := e.(map[string]any)
			if v, ok := e["value"].(string); ok {
				env[e["name"].(string)] = v
			} else {
				env[e["name"].(string)] = "" // from the downward API
			}
		}
	}
	return get(t, c, "args", 0).(string), env, doc
}

// The Kubernetes recipe works as written: the Indexed Job's container
// script, run once per index with the environment a pod gets, and then the
// merge Job's script, on a folder standing in for the shared volume.
func TestKubernetesRecipe(t *testing.T) {
	dir := filepath.Join(root, "examples", "kubernetes")
	shardScript, env, doc := jobScript(t, filepath.Join(dir, "herd-shards.yaml"))
	spec := get(t, doc, "spec").(map[string]any)
	if spec["completionMode"] != "Indexed" || spec["completions"] != 4 || spec["parallelism"] != 4 || env["HERD_SHARDS"] != "4" {
		t.Fatalf("herd-shards.yaml: completionMode %v, completions %v, parallelism %v, HERD_SHARDS %q; want Indexed, 4, 4, 4",
			spec["completionMode"], spec["completions"], spec["parallelism"], env["HERD_SHARDS"])
	}
	if _, ok := env["JOB_COMPLETION_INDEX"]; !ok || !strings.Contains(shardScript, "--shard auto") {
		t.Fatalf("the shard container must get JOB_COMPLETION_INDEX and run --shard auto: %q", shardScript)
	}
	mergeScript, _, _ := jobScript(t, filepath.Join(dir, "merge-job.yaml"))

	out := t.TempDir()
	local := func(s string) string { // the pod's paths → this machine's
		s = strings.ReplaceAll(s, "/herd-bin/herd", bins.herd)
		return strings.ReplaceAll(s, "/out/", out+"/")
	}
	const agents = "2000"
	for k := range 4 {
		r := command(t, 2*time.Minute, out, []string{
			"HERD_SHARDS=4", fmt.Sprintf("JOB_COMPLETION_INDEX=%d", k), "AGENTS=" + agents, "SEED=" + env["SEED"],
		}, "sh", "-c", local(shardScript))
		if r.code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", k, r.code, r.stderr)
		}
	}
	r := command(t, 2*time.Minute, out, nil, "sh", "-c", local(mergeScript))
	// The last command judges the thresholds, and mock:crm under realistic
	// faults harms well over 5% of episodes: the pod must fail NOT READY
	// (exit 1), which also shows the thresholds reached herd.
	if r.code != 1 || !strings.Contains(r.stdout, "VERDICT: NOT READY") {
		t.Fatalf("merge: exit %d, want 1 with VERDICT: NOT READY\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range []string{"run.json", "report.html", "report.md"} {
		if st, err := os.Stat(filepath.Join(out, f)); err != nil || st.Size() == 0 {
			t.Errorf("merge wrote no %s (%v)", f, err)
		}
	}
	merged := readResults(t, filepath.Join(out, "run.json"))

	// The same run on one machine.
	whole := filepath.Join(out, "whole.json")
	r = command(t, 2*time.Minute, out, nil, bins.herd, "swarm", "mock:crm", "--agents", agents, "--seed", env["SEED"],
		"--faults", "realistic", "--progress", "never", "--json", whole)
	if r.code != 0 {
		t.Fatalf("unsharded: exit %d\n%s", r.code, r.stderr)
	}
	if !bytes.Equal(merged.DeterministicJSON(), readResults(t, whole).DeterministicJSON()) {
		t.Error("the Kubernetes recipe's merged run differs from the same run on one machine")
	}
}

// herd-diff.yml's run steps, in a workspace laid out as its two checkouts:
// a pull request that makes two descriptions vaguer fails with the
// regressions in the summary; one that changes nothing passes.
func TestDiffWorkflow(t *testing.T) {
	doc := readYAML(t, filepath.Join(root, "examples", "github", "herd-diff.yml"))
	wfEnv := get(t, doc, "env").(map[string]any)
	var steps []string
	for _, s := range get(t, doc, "jobs", "diff", "steps").([]any) {
		step := s.(map[string]any)
		run, ok := step["run"].(string)
		if !ok || strings.Contains(run, "go install") {
			continue // actions, and installing herd (the test's is on PATH)
		}
		steps = append(steps, run)
	}
	if len(steps) != 3 {
		t.Fatalf("herd-diff.yml: %d run steps, want two swarms and a diff", len(steps))
	}
	base, err := os.ReadFile(filepath.Join(root, "worlds", "crm.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	vaguer := regexp.MustCompile(`clear: "Permanently delete a contact\.[^"]*"`).ReplaceAll(base, []byte(`clear: "Remove a contact from the list."`))
	vaguer = regexp.MustCompile(`clear: "Archive a contact:[^"]*"`).ReplaceAll(vaguer, []byte(`clear: "Archive a contact."`))
	if bytes.Equal(vaguer, base) {
		t.Fatal("the CRM's descriptions changed: update this test's edit")
	}

	for _, c := range []struct {
		name     string
		head     []byte
		code     int
		contains string
	}{
		{"vaguer descriptions", vaguer, 1, "REGRESSION"},
		{"no change", base, 0, "No regression"},
	} {
		ws := t.TempDir()
		world := wfEnv["WORLD"].(string)
		for side, content := range map[string][]byte{"base": base, "head": c.head} {
			p := filepath.Join(ws, side, world)
			os.MkdirAll(filepath.Dir(p), 0o755)
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		summary := filepath.Join(ws, "summary.md")
		env := []string{"GITHUB_STEP_SUMMARY=" + summary}
		for k, v := range wfEnv {
			env = append(env, k+"="+fmt.Sprint(v))
		}
		code := 0
		for i, run := range steps {
			// GitHub runs `run:` with bash -e -o pipefail.
			r := command(t, 2*time.Minute, ws, env, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", run)
			if r.code != 0 {
				if i != len(steps)-1 {
					t.Fatalf("%s: step %d failed (exit %d):\n%s%s", c.name, i, r.code, r.stdout, r.stderr)
				}
				code = r.code
			}
		}
		s, _ := os.ReadFile(summary)
		if code != c.code || !strings.Contains(string(s), c.contains) {
			t.Errorf("%s: diff step exit %d, summary %q; want exit %d and %q", c.name, code, firstLine(string(s), 3), c.code, c.contains)
		}
	}
}
