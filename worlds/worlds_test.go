package worlds

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// tables lists every world's scripted scenarios, so the coverage tests
// below can check that each outcome class and invariant is exercised.
var tables = map[string]func() []scenario{
	"crm":      func() []scenario { return withQuiet("crm", crmGoalTable(), crmInvariantTable()) },
	"payments": func() []scenario { return withQuiet("payments", paymentsGoalTable(), paymentsInvariantTable()) },
	"shop":     func() []scenario { return withQuiet("shop", shopGoalTable(), shopInvariantTable()) },
	"email":    func() []scenario { return withQuiet("email", emailGoalTable(), emailInvariantTable()) },
	"files":    func() []scenario { return withQuiet("files", filesGoalTable(), filesInvariantTable()) },
}

// withQuiet is a world's goal and invariant tables and its quiet-fault and
// refrain scripts (quiet_test.go).
func withQuiet(world string, goals, invariants []scenario) []scenario {
	return append(append(goals, invariants...), quietTable(world)...)
}

func shortNames() []string {
	out := make([]string, 0, len(order))
	for _, n := range Names() {
		out = append(out, strings.TrimPrefix(n, Prefix))
	}
	return out
}

// embeddedWorldFiles lists the *.yaml files embedded in the package, to
// compare with the documented order.
func embeddedWorldFiles() ([]string, error) {
	entries, err := fs.ReadDir(files, ".")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") {
			out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	return out, nil
}

func TestNamesMatchEmbeddedFiles(t *testing.T) {
	files, err := embeddedWorldFiles()
	if err != nil {
		t.Fatal(err)
	}
	got := shortNames()
	slices.Sort(files)
	sorted := slices.Sorted(slices.Values(got))
	if !slices.Equal(files, sorted) {
		t.Fatalf("Names() = %v, embedded world files = %v", got, files)
	}
	if len(got) != 5 {
		t.Fatalf("want five built-in worlds, got %v", got)
	}
	for _, n := range got {
		if tables[n] == nil {
			t.Errorf("world %s has no scenario table", n)
		}
	}
}

func TestResolveBuiltin(t *testing.T) {
	w, err := Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "crm" || w.File != "mock:crm" {
		t.Fatalf("got world %q from %q", w.Name, w.File)
	}
	again, err := Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	if again != w {
		t.Fatal("a built-in compiled twice: Resolve must cache it")
	}
}

func TestResolveUnknownBuiltinListsNames(t *testing.T) {
	_, err := Resolve("mock:crn")
	if err == nil {
		t.Fatal("mock:crn resolved")
	}
	want := `unknown world "mock:crn" (built-in: mock:crm, mock:payments, mock:shop, mock:email, mock:files)`
	if err.Error() != want {
		t.Fatalf("error %q, want %q", err, want)
	}
	if _, err := Source("mock:crn"); err == nil || !strings.Contains(err.Error(), "mock:payments") {
		t.Fatalf("Source(mock:crn) error %v", err)
	}
}

func TestResolveFile(t *testing.T) {
	dir := t.TempDir()
	src, err := Scaffold("notes")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Resolve(path)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "notes" || w.File != path {
		t.Fatalf("got world %q from %q", w.Name, w.File)
	}

	missing := filepath.Join(dir, "nope.yaml")
	if _, err := Resolve(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Fatalf("missing file: error %v should name %s", err, missing)
	}

	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, bytes.Replace(src, []byte("count: 60"), []byte("count: lots"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Resolve(bad)
	if err == nil || !strings.HasPrefix(err.Error(), bad+":") {
		t.Fatalf("bad file: error %v should start with %s:LINE:COL", err, bad)
	}

	if _, err := Resolve("  "); err == nil || !strings.Contains(err.Error(), "mock:crm") {
		t.Fatalf("empty reference: error %v should list the built-ins", err)
	}
}

func TestSource(t *testing.T) {
	for _, n := range shortNames() {
		long, err := Source(Prefix + n)
		if err != nil {
			t.Fatal(err)
		}
		short, err := Source(n)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(long, short) || !bytes.Contains(long, []byte("world: "+n+"\n")) {
			t.Fatalf("Source(%s): %d bytes, Source(%s%s): %d bytes", n, len(short), Prefix, n, len(long))
		}
	}
}

// TestBuiltinWorldsValidate compiles each world from its source (not the
// cache) and checks what the issue promises of every world.
func TestBuiltinWorldsValidate(t *testing.T) {
	for _, n := range shortNames() {
		t.Run(n, func(t *testing.T) {
			src, _ := Source(n)
			w, err := engine.Parse(Prefix+n, src)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(w.Variants, []string{"clear", "ambiguous"}) {
				t.Errorf("variants %v, want [clear ambiguous]", w.Variants)
			}
			for _, tool := range w.Tools {
				clear, vague := tool.Description("clear"), tool.Description("ambiguous")
				if clear == vague {
					t.Errorf("tool %s: clear and ambiguous descriptions are the same", tool.Name)
				}
				if len(clear) <= len(vague) {
					t.Errorf("tool %s: the clear description (%d chars) should say more than the ambiguous one (%d)", tool.Name, len(clear), len(vague))
				}
			}
			if len(w.Invariants) == 0 {
				t.Error("no invariants")
			}
			for _, name := range []string{"none", "realistic", "hostile"} {
				p := w.Profile(name)
				if p == nil {
					t.Fatalf("no fault profile %s", name)
				}
				if name != "none" && p.Builtin {
					t.Errorf("profile %s is herd's default; the world should define its own", name)
				}
			}
			if len(w.Goals) < 2 {
				t.Errorf("%d goals, want at least 2", len(w.Goals))
			}
			for _, g := range w.Goals {
				checkGoalShape(t, w, g)
			}
		})
	}
}

// checkGoalShape: every goal can end well and can end in harm, and what
// the agent knows is named the way the world names things, so the reader
// model can match it to parameters.
func checkGoalShape(t *testing.T, w *engine.World, g *engine.Goal) {
	t.Helper()
	var ok, harmful bool
	for _, oc := range g.Outcomes {
		ok = ok || oc.Severity == engine.SeverityOK
		harmful = harmful || oc.Severity == engine.SeverityHarmful
	}
	if !ok || !harmful {
		t.Errorf("goal %s: needs an ok class and a harmful class", g.Name)
	}
	names := map[string]bool{}
	for _, tool := range w.Tools {
		for _, p := range tool.Params {
			names[p.Name] = true
		}
	}
	for _, typ := range w.Types {
		for _, f := range typ.Fields {
			names[f.Name] = true
		}
	}
	for _, k := range g.KnowsKeys {
		if !names[k] && !strings.Contains(g.Intent, "{{knows."+k+"}}") {
			t.Errorf("goal %s: knows %q is neither a param or field name nor used in the intent", g.Name, k)
		}
	}
}

// TestSeedsDeterministic: the same seed gives the same bytes, from the same
// compiled world and from a fresh compile; another seed gives others.
func TestSeedsDeterministic(t *testing.T) {
	for _, n := range shortNames() {
		t.Run(n, func(t *testing.T) {
			w, err := Resolve(Prefix + n)
			if err != nil {
				t.Fatal(err)
			}
			src, _ := Source(n)
			fresh, err := engine.Parse(Prefix+n, src)
			if err != nil {
				t.Fatal(err)
			}
			state := func(w *engine.World, seed uint64) []byte {
				b, err := w.Seed(seed)
				if err != nil {
					t.Fatalf("seed %d: %v", seed, err)
				}
				return b.NewSession(0, nil).StateJSON()
			}
			a, b, c := state(w, w.DefaultSeed), state(w, w.DefaultSeed), state(fresh, w.DefaultSeed)
			if !bytes.Equal(a, b) || !bytes.Equal(a, c) {
				t.Fatal("seeding the default seed twice gave different state")
			}
			if bytes.Equal(a, state(w, w.DefaultSeed+1)) {
				t.Fatal("two seeds gave the same state")
			}
		})
	}
}

// TestGoalTargetsAtManySeeds: every goal finds a handful of targets at the
// default seed and ten others, so no seed a user picks leaves a goal empty.
func TestGoalTargetsAtManySeeds(t *testing.T) {
	const minTargets = 3
	for _, n := range shortNames() {
		w, err := Resolve(Prefix + n)
		if err != nil {
			t.Fatal(err)
		}
		seeds := []uint64{w.DefaultSeed, 1, 2, 3, 42, 99, 1000, 31337, 65536, 1 << 32, 18446744073709551615}
		for _, seed := range seeds {
			b, err := w.Seed(seed)
			if err != nil {
				t.Errorf("%s seed %d: %v", n, seed, err)
				continue
			}
			for _, g := range w.Goals {
				if got := len(b.Candidates(g)); got < minTargets {
					t.Errorf("%s seed %d: goal %s has %d targets, want at least %d", n, seed, g.Name, got, minTargets)
				}
			}
		}
	}
}

// TestEveryClassAndInvariantScripted: each goal's every outcome class has a
// script that ends in it, and each invariant a script that breaks it (as
// invariant:NAME, or under a harmful class of the goal's own) and one that
// keeps it.
func TestEveryClassAndInvariantScripted(t *testing.T) {
	for _, n := range shortNames() {
		w, err := Resolve(Prefix + n)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]bool{} // goal/class
		breaks, keeps := map[string]bool{}, map[string]bool{}
		for _, sc := range tables[n]() {
			got[sc.goal+"/"+sc.want] = true
			if sc.invariant != "" {
				if sc.want == "invariant:"+sc.invariant || sc.breaks {
					breaks[sc.invariant] = true
				} else {
					keeps[sc.invariant] = true
				}
			}
		}
		for _, g := range w.Goals {
			for _, oc := range g.Outcomes {
				if !got[g.Name+"/"+oc.Class] {
					t.Errorf("%s: goal %s: no script ends in %s", n, g.Name, oc.Class)
				}
			}
		}
		for _, inv := range w.Invariants {
			if !breaks[inv.Name] || !keeps[inv.Name] {
				t.Errorf("%s: invariant %s: needs a script that breaks it (%v) and one that keeps it (%v)", n, inv.Name, breaks[inv.Name], keeps[inv.Name])
			}
		}
	}
}

// TestAnnotationsAreHonest calls every tool that says it is idempotent twice
// on a record where the first call succeeds, and checks that the second
// changed nothing. Reads must be read-only, writes must not claim to be,
// and deletes must be destructive.
func TestAnnotationsAreHonest(t *testing.T) {
	for _, n := range shortNames() {
		b := baseOf(t, n)
		for _, tool := range b.World().Tools {
			a := tool.Annotations
			switch {
			case !tool.Writes() && !a.ReadOnly:
				t.Errorf("%s: %s only reads but is not readOnly", n, tool.Name)
			case tool.Writes() && a.ReadOnly:
				t.Errorf("%s: %s writes but claims readOnly", n, tool.Name)
			case tool.Kind == engine.KindDelete && !a.Destructive:
				t.Errorf("%s: %s deletes but is not destructive", n, tool.Name)
			}
			if !a.Idempotent || !tool.Writes() {
				continue
			}
			if tool.Key == "" {
				t.Errorf("%s: %s is idempotent but has no target to repeat it on", n, tool.Name)
				continue
			}
			checkIdempotent(t, b, tool)
		}
	}
}

func checkIdempotent(t *testing.T, b *engine.Base, tool *engine.Tool) {
	t.Helper()
	for _, p := range tool.Params {
		if p.Required && p.Name != tool.Key {
			t.Errorf("%s: idempotence check cannot fill the required param %s", tool.Name, p.Name)
			return
		}
	}
	for _, rec := range b.Records(tool.Record) {
		s := b.NewSession(1, nil)
		args := map[string]any{tool.Key: rec.ID()}
		if res := s.Call(tool.Name, args); !res.OK() {
			continue // not applicable to this record; try the next
		}
		first := s.StateJSON()
		s.Call(tool.Name, args)
		if !bytes.Equal(first, s.StateJSON()) {
			t.Errorf("%s is annotated idempotent, but calling it twice on %s changed the world twice", tool.Name, rec.ID())
		}
		return
	}
	t.Errorf("%s: no seeded record on which it succeeds", tool.Name)
}

func TestScaffoldValidatesAndRuns(t *testing.T) {
	src, err := Scaffold("my_world")
	if err != nil {
		t.Fatal(err)
	}
	w, err := engine.Parse("my_world.yaml", src)
	if err != nil {
		t.Fatal(err)
	}
	if w.Name != "my_world" || bytes.Contains(src, []byte(scaffoldMarker)) {
		t.Fatalf("scaffold names the world %q", w.Name)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	g := w.Goal("hide_note")
	s := b.NewSession(1, w.Profile("realistic"))
	a, err := g.Begin(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	s.SetProfile(nil)
	if res := s.Call("archive_note", map[string]any{"id": a.Target.ID()}); !res.OK() {
		t.Fatal(res.Err)
	}
	v, err := a.Judge()
	if err != nil || v.Class != "achieved" {
		t.Fatalf("archiving the note: %v %v, want achieved", v, err)
	}

	for _, bad := range []string{"", "My World", "my-world", "9lives", "../x"} {
		if _, err := Scaffold(bad); err == nil {
			t.Errorf("Scaffold(%q) accepted a bad world name", bad)
		}
	}
}
