// Package examples_test runs the CI and Kubernetes recipes of examples/,
// the GitHub Action's shell steps and bench/shard-local.sh for real, with a
// herd built from this checkout: what the documentation shows must work.
package examples_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// root is the repository root, as an absolute path (scripts run in
// temporary folders); set by TestMain.
var root string

// bins holds the binaries TestMain builds once for every test.
var bins struct {
	dir, herd, detjson string
}

func TestMain(m *testing.M) {
	code, err := buildAndRun(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, "examples:", err)
		os.Exit(2)
	}
	os.Exit(code)
}

func buildAndRun(m *testing.M) (int, error) {
	var err error
	if root, err = filepath.Abs(".."); err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "herd-examples-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	bins.dir = dir
	bins.herd = filepath.Join(dir, "herd")
	bins.detjson = filepath.Join(dir, "detjson")
	for out, pkg := range map[string]string{bins.herd: "./cmd/herd", bins.detjson: "./bench/detjson"} {
		cmd := exec.Command("go", "build", "-o", out, pkg)
		cmd.Dir = root
		if b, err := cmd.CombinedOutput(); err != nil {
			return 0, fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
		}
	}
	return m.Run(), nil
}

// result is what a script did.
type result struct {
	code           int
	stdout, stderr string
}

// script runs a shell script file with bash, with args.
func script(t *testing.T, limit time.Duration, dir string, env []string, name string, args ...string) result {
	t.Helper()
	return command(t, limit, dir, env, append([]string{"bash", name}, args...)...)
}

// command runs argv with env added to a minimal environment, in dir, for
// at most limit.
func command(t *testing.T, limit time.Duration, dir string, env []string, argv ...string) result {
	t.Helper()
	name := strings.Join(argv, " ")
	if len(name) > 80 {
		name = name[:80] + "…"
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(baseEnv(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish within %v\nstdout:\n%s\nstderr:\n%s", name, limit, out.String(), errb.String())
	}
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok {
			t.Fatalf("%s: %v", name, err)
		}
		code = ee.ExitCode()
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

// baseEnv is the environment scripts run with: PATH with the test's herd
// first, HOME and the Go variables (for scripts that build), nothing else —
// so that no GITHUB_* variable of the machine leaks in.
func baseEnv() []string {
	env := []string{"PATH=" + bins.dir + string(os.PathListSeparator) + os.Getenv("PATH")}
	for _, k := range []string{"HOME", "GOPATH", "GOCACHE", "GOMODCACHE", "GOFLAGS", "GOPROXY", "TMPDIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// readYAML decodes a YAML file into a generic tree.
func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return doc
}

// get walks a YAML tree by keys (and list indices as ints).
func get(t *testing.T, v any, path ...any) any {
	t.Helper()
	for i, p := range path {
		switch key := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("at %v: want a mapping, got %T", path[:i], v)
			}
			v, ok = m[key]
			if !ok {
				t.Fatalf("no key %q at %v", key, path[:i])
			}
		case int:
			l, ok := v.([]any)
			if !ok || key >= len(l) {
				t.Fatalf("at %v: want a list with item %d, got %T", path[:i], key, v)
			}
			v = l[key]
		}
	}
	return v
}

// outputs reads a GITHUB_OUTPUT file (name=value lines).
func outputs(t *testing.T, path string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			t.Fatalf("GITHUB_OUTPUT line %q is not name=value", line)
		}
		m[k] = v
	}
	return m
}
