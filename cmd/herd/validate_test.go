package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// Every malformed world of the engine's table is refused with exit 2 and
// exactly its problems, one file:line:col: message per line on stderr.
func TestValidateRefusesEveryMalformedWorld(t *testing.T) {
	files, err := filepath.Glob("../../engine/testdata/bad/*.yaml")
	if err != nil || len(files) < 24 {
		t.Fatalf("want the engine's malformed worlds, found %d (%v)", len(files), err)
	}
	for _, f := range files {
		code, out, errOut := runHerd(t, "validate", f)
		if code != exitUsage {
			t.Errorf("%s: exit %d, want 2", f, code)
		}
		if out != "" {
			t.Errorf("%s: stdout %q, want nothing", f, out)
		}
		_, lerr := engine.LoadFile(f)
		var le *engine.LoadError
		if !errors.As(lerr, &le) {
			t.Fatalf("%s: engine error %T", f, lerr)
		}
		if want := strings.Join(le.Lines(), "\n") + "\n"; errOut != want {
			t.Errorf("%s: stderr\n%s\nwant\n%s", f, errOut, want)
		}
		for _, line := range strings.Split(strings.TrimSpace(errOut), "\n") {
			if !strings.HasPrefix(line, f+":") {
				t.Errorf("%s: line %q does not start with the file name", f, line)
			}
		}
	}
}

func TestValidateAcceptsGoodWorlds(t *testing.T) {
	code, out, errOut := runHerd(t, "validate", "../../engine/testdata/shop.yaml", "../../engine/testdata/costly.yaml", "mock:crm")
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := "../../engine/testdata/shop.yaml: ok (4 types, 8 tools, 2 goals)\n" +
		"../../engine/testdata/costly.yaml: ok (1 type, 5 tools, 0 goals)\n" +
		"mock:crm: ok (2 types, 8 tools, 4 goals)\n"
	if out != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", out, want)
	}
}

// A bad file among good ones fails the run but every file is still
// checked and reported.
func TestValidateChecksEveryFile(t *testing.T) {
	bad := "../../engine/testdata/bad/cel_type.yaml"
	code, out, errOut := runHerd(t, "validate", bad, "../../engine/testdata/shop.yaml", "no-such-world.yaml")
	if code != exitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(out, "shop.yaml: ok (") {
		t.Errorf("the good file after a bad one was not reported: %q", out)
	}
	if !strings.Contains(errOut, bad+":25:36: CEL: operator '+' cannot be applied to (bool, int)") {
		t.Errorf("stderr lacks the CEL problem: %q", errOut)
	}
	if !strings.Contains(errOut, "no-such-world.yaml") || !strings.Contains(errOut, "no such file") {
		t.Errorf("stderr lacks the missing file: %q", errOut)
	}
	if strings.Contains(errOut, "herd: ") {
		t.Errorf("problem lines carry a prefix editors cannot parse: %q", errOut)
	}
}

func TestValidateNeedsAFile(t *testing.T) {
	if code, _, errOut := runHerd(t, "validate"); code != exitUsage || !strings.Contains(errOut, "requires at least 1 arg") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// A valid world with a goal no agent can single out the target of is
// still valid (exit 0, "ok" on stdout), and the goal is warned of on
// stderr as FILE:LINE:COL: warning: goal NAME: …, at the goal's name.
func TestValidateWarnsOfGoalProblems(t *testing.T) {
	f := "../../personas/testdata/heldout/worlds/wiki.yaml"
	code, out, errOut := runHerd(t, "validate", f)
	if code != exitOK || !strings.HasPrefix(out, f+": ok (") {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	lines := strings.Split(strings.TrimSpace(errOut), "\n")
	if len(lines) != 2 {
		t.Fatalf("stderr: want a warning for take_down_page and undo_edit, got\n%s", errOut)
	}
	w, err := engine.LoadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	for i, g := range []string{"take_down_page", "undo_edit"} {
		pos := w.Goal(g).Pos
		if pos.Line == 0 {
			t.Fatalf("goal %s has no position", g)
		}
		if want := fmt.Sprintf("%s:%d:%d: warning: goal %s: ", f, pos.Line, pos.Col, g); !strings.HasPrefix(lines[i], want) || !strings.Contains(lines[i], "matches more than one page") {
			t.Errorf("line %d: %q, want %q… about shared titles", i, lines[i], want)
		}
	}
}
