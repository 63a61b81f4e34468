package docs

import (
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

func TestParseMarker(t *testing.T) {
	mk, err := parseMarker("generated", `herd diff a.json b.json --format md 2>&1 | grep -v '^\| (x|y) ' -e z | lines 2- ; exit 1 ; check no`)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"herd", "diff", "a.json", "b.json", "--format", "md"}; !reflect.DeepEqual(mk.argv, want) {
		t.Errorf("argv %q, want %q", mk.argv, want)
	}
	if !mk.stderr || mk.exit != 1 || mk.check {
		t.Errorf("stderr %v exit %d check %v, want true 1 false", mk.stderr, mk.exit, mk.check)
	}
	if len(mk.stages) != 2 || mk.stages[0].kind != "grep" || !mk.stages[0].invert || len(mk.stages[0].patterns) != 2 ||
		mk.stages[0].patterns[0].String() != `^\| (x|y) ` || mk.stages[1].from != 2 || mk.stages[1].to != 0 {
		t.Errorf("stages %+v", mk.stages)
	}

	for _, c := range []struct{ kind, text, want string }{
		{"generated", "go run ./cmd/herd", "must start with herd"},
		{"generated", "herd swarm http://example.com/mcp", "http://example.com/mcp is not allowed"},
		{"generated", "herd swarm 'mcp+stdio:node server.js'", "is not allowed"},
		{"generated", "herd swarm mock:crm --otlp=http://127.0.0.1:4318", "is not allowed"},
		{"generated", "herd swarm mock:crm | sort", `unknown filter "sort"`},
		{"generated", "herd swarm mock:crm | grep '('", "grep pattern"},
		{"generated", "herd swarm mock:crm | grep", "at least one pattern"},
		{"generated", "herd swarm mock:crm | lines 5-2", "1 ≤ A ≤ B"},
		{"generated", "herd swarm mock:crm ; exit one", "exit wants a number"},
		{"generated", "herd swarm mock:crm ; slow", `unknown option "slow"`},
		{"generated", "herd swarm 'mock:crm", "unclosed single quote"},
		{"run", "herd swarm mock:crm | grep x", "takes no filter"},
	} {
		_, err := parseMarker(c.kind, c.text)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %q: error %v, want one containing %q", c.kind, c.text, err, c.want)
		}
	}
}

func TestStages(t *testing.T) {
	out := []string{
		"herd readiness report", "fingerprint abc",
		"",
		"VERDICT: none", "  harmful clear 9%",
		"",
		"Misuse map", "| a | 1 |", "| b | 2 |",
		"",
		"Harmful outcomes by persona", "| hasty | 3 |",
	}
	run := func(text string) []string {
		t.Helper()
		mk, err := parseMarker("generated", "herd x | "+text)
		if err != nil {
			t.Fatal(err)
		}
		lines := out
		for _, st := range mk.stages {
			lines = st.apply(lines)
		}
		return lines
	}
	for _, c := range []struct {
		filter string
		want   []string
	}{
		{`section '^VERDICT' '^Harmful'`, []string{"VERDICT: none", "  harmful clear 9%", "", "Harmful outcomes by persona", "| hasty | 3 |"}},
		{`grep '^\| (a|hasty) '`, []string{"| a | 1 |", "| hasty | 3 |"}},
		{`grep -v '^\|' '^$' | lines 1-2`, []string{"herd readiness report", "fingerprint abc"}},
		{`section '^Misuse' | lines 2-`, []string{"| a | 1 |", "| b | 2 |"}},
		{`section '^Nothing'`, nil},
	} {
		if got := run(c.filter); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %q, want %q", c.filter, got, c.want)
		}
	}
}

func TestParseDoc(t *testing.T) {
	doc := strings.Split(strings.Join([]string{
		"# A doc",
		"<!-- generated: herd worlds -->", // 2
		"```",
		"old output",
		"```",
		"    <!-- generated: herd quoted in an indented example -->",
		"```md",
		"<!-- generated: herd quoted in a fenced example -->",
		"```",
		"<!-- run: herd swarm mock:crm --json a.json -->", // 10
		"<!-- generate: herd worlds -->",                  // 11: a typo
		"<!-- generated: herd worlds -->",                 // 12: no fence
		"text",
		"<!-- generated: herd worlds -->", // 14: never closed
		"```",
		"out",
	}, "\n"), "\n")
	ms, errs := parseDoc("x.md", doc)
	if len(ms) != 2 || ms[0].line != 2 || ms[0].open != 2 || ms[0].close != 4 || ms[1].kind != "run" || ms[1].line != 10 {
		t.Errorf("markers %+v", ms)
	}
	var got []string
	for _, err := range errs {
		got = append(got, err.Error())
	}
	want := []string{"x.md:11: ", "x.md:12: a generated marker must be followed", "x.md:14: the fenced block after this marker is never closed"}
	if len(got) != len(want) {
		t.Fatalf("errors %q, want %d", got, len(want))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("error %q, want it to start with %q", got[i], want[i])
		}
	}
}

// TestRunMarkerErrors checks that a failing command is reported with the
// command and the program's own error, and an empty selection is refused.
// sh stands in for herd: runMarker passes argv[1:] to whatever it is given.
func TestRunMarkerErrors(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	mk, _ := parseMarker("generated", `herd -c 'echo "herd: mock:nope: unknown world" >&2; exit 2'`)
	_, err = runMarker(sh, dir, mk)
	if err == nil || !strings.Contains(err.Error(), "exit 2, want 0") || !strings.Contains(err.Error(), "unknown world") || !strings.Contains(err.Error(), "herd -c") {
		t.Errorf("failing command: %v", err)
	}
	mk, _ = parseMarker("generated", `herd -c 'echo REGRESSION; exit 1'`)
	if _, err = runMarker(sh, dir, mk); err == nil || !strings.Contains(err.Error(), "add '; exit 1'") {
		t.Errorf("exit 1 without '; exit 1': %v", err)
	}
	mk, _ = parseMarker("generated", `herd -c 'echo REGRESSION; exit 1' ; exit 1`)
	if out, err := runMarker(sh, dir, mk); err != nil || !reflect.DeepEqual(out, []string{"REGRESSION"}) {
		t.Errorf("exit 1 expected: %q, %v", out, err)
	}
	mk, _ = parseMarker("generated", `herd -c 'echo a; echo b >&2' 2>&1 | grep b`)
	if out, err := runMarker(sh, dir, mk); err != nil || !reflect.DeepEqual(out, []string{"b"}) {
		t.Errorf("2>&1: %q, %v", out, err)
	}
	mk, _ = parseMarker("generated", `herd -c 'echo a' | grep zzz`)
	if _, err = runMarker(sh, dir, mk); err == nil || !strings.Contains(err.Error(), "kept no line") {
		t.Errorf("empty selection: %v", err)
	}
}
