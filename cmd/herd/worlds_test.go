package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

func TestWorldsListsFiveWorlds(t *testing.T) {
	code, out, errOut := runHerd(t, "worlds")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[0], "WORLD") {
		t.Fatalf("want a header and five worlds, got:\n%s", out)
	}
	for i, name := range worlds.Names() {
		w, err := worlds.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		fields := strings.Fields(lines[i+1])
		if fields[0] != name || fields[1] != strconv.Itoa(len(w.Tools)) || !strings.Contains(lines[i+1], w.Goals[0].Name) {
			t.Errorf("line %q: want %s with %d tools and goal %s", lines[i+1], name, len(w.Tools), w.Goals[0].Name)
		}
	}
}

func TestNewWritesAValidWorldAndRefusesToOverwrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "billing.yaml")
	code, out, errOut := runHerd(t, "new", "billing", "-o", path)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, path) {
		t.Errorf("output %q should name the file written", out)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.Parse(path, src)
	if err != nil {
		t.Fatalf("herd new wrote a world that does not validate: %v", err)
	}
	if w.Name != "billing" {
		t.Errorf("world name %q, want billing", w.Name)
	}

	if err := os.WriteFile(path, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runHerd(t, "new", "billing", "-o", path)
	if code != exitUsage || !strings.Contains(errOut, "already exists") {
		t.Fatalf("second herd new: exit %d, %q; want exit 2 refusing to overwrite", code, errOut)
	}
	if got, _ := os.ReadFile(path); string(got) != "mine" {
		t.Fatalf("herd new overwrote an existing file")
	}
}

func TestNewToStdoutAndBadNames(t *testing.T) {
	code, out, errOut := runHerd(t, "new", "x", "-o", "-")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, err := engine.Parse("x.yaml", []byte(out)); err != nil {
		t.Fatalf("herd new x -o - does not validate: %v", err)
	}
	for _, bad := range []string{"Billing", "9lives", "my world", "x.y"} {
		code, _, errOut := runHerd(t, "new", bad, "-o", "-")
		if code != exitUsage || !strings.Contains(errOut, "world name") {
			t.Errorf("herd new %q: exit %d, %q; want exit 2 naming the rule", bad, code, errOut)
		}
	}
	code, out, _ = runHerd(t, "new", "my-world", "-o", "-")
	if w, err := engine.Parse("my-world.yaml", []byte(out)); code != exitOK || err != nil || w.Name != "my_world" {
		t.Errorf("herd new my-world: exit %d, %v; want the world my_world", code, err)
	}
	if code, _, _ := runHerd(t, "new"); code != exitUsage {
		t.Errorf("herd new without a name: exit %d, want 2", code)
	}
}
