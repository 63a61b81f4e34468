package worlds

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/herd-sh/herd/engine"
)

// The goal tests drive a world with hand-written call scripts, one per
// outcome class, and assert how the engine judges the end state. A script
// is a list of steps; a step names a tool and its arguments, where an
// argument may be a value or a reference resolved while the script runs
// (the target's id, something the agent knows, a field of the last result).

// scenario is one scripted episode and the verdict it must get.
type scenario struct {
	name string
	goal string
	// pick chooses the target among the goal's candidates (the first one
	// it accepts), and may name a second record ("other") the script uses.
	// nil takes the first candidate.
	pick func(p *picker) bool
	// profile is the fault profile the script runs under ("" for none).
	// Steps that expect a fault make the test search for a session key
	// whose dice give exactly the expected faults on every step.
	profile string
	steps   []step
	want    string // outcome class, or "invariant:NAME"
	// invariant names the world invariant this scenario exercises; a
	// scenario with want "invariant:NAME" violates it, and so does one
	// with breaks (whose goal names the harm: the class is the goal's own,
	// the violation is recorded beside it); any other keeps it.
	invariant string
	breaks    bool
	// claims: the agent reports the goal done at the end (claimed_done).
	claims bool
}

// step is one call of a script.
type step struct {
	tool  string
	args  args
	fault string // the injected fault this call must get ("" none)
	err   string // the error code the call must fail with ("" succeeds, "*" any)
	sleep bool   // wait out the previous call's retry-after first
}

type args map[string]any

// ref is an argument resolved when the step runs.
type ref func(r *run) (any, error)

func call(tool string, a args) step { return step{tool: tool, args: a} }

// fails is a call that must fail with code.
func fails(code, tool string, a args) step { return step{tool: tool, args: a, err: code} }

// faulted is a call that must draw the fault kind from the profile's dice.
func faulted(kind, tool string, a args) step {
	return step{tool: tool, args: a, fault: kind, err: "*"}
}

// target resolves to a field of the goal's target.
func target(field string) ref {
	return func(r *run) (any, error) { return value(r.attempt.Target, field) }
}

// other resolves to a field of the second record the picker chose.
func other(field string) ref {
	return func(r *run) (any, error) {
		if r.other == nil {
			return nil, fmt.Errorf("other(%q): the scenario's picker chose no other record", field)
		}
		return value(r.other, field)
	}
}

// knows resolves to what the agent was told.
func knows(key string) ref {
	return func(r *run) (any, error) {
		v, ok := r.attempt.Knows[key]
		if !ok {
			return nil, fmt.Errorf("knows(%q): goal %s tells no such thing", key, r.attempt.Goal.Name)
		}
		return v, nil
	}
}

// last resolves to a field of the record the previous call returned.
func last(field string) ref {
	return func(r *run) (any, error) {
		if r.last.Record == nil {
			return nil, fmt.Errorf("last(%q): the previous call returned no record", field)
		}
		return value(r.last.Record, field)
	}
}

// plus resolves to a whole-number reference plus n.
func plus(x ref, n int) ref {
	return func(r *run) (any, error) {
		v, err := x(r)
		if err != nil {
			return nil, err
		}
		switch i := v.(type) {
		case int:
			return i + n, nil
		case int64:
			return int(i) + n, nil
		}
		return nil, fmt.Errorf("plus: %v is not a whole number", v)
	}
}

// matching resolves to a field of the first record the previous list call
// returned that ok accepts: how a careful agent picks from results.
func matching(field string, ok func(*engine.Record, *run) bool) ref {
	return func(r *run) (any, error) {
		for _, rec := range r.last.Records {
			if ok(rec, r) {
				return value(rec, field)
			}
		}
		return nil, fmt.Errorf("matching(%q): none of the %d listed records fits", field, len(r.last.Records))
	}
}

func value(rec *engine.Record, field string) (any, error) {
	if !rec.Has(field) {
		return nil, fmt.Errorf("%s %s has no %s", rec.RecordType().Name, rec.ID(), field)
	}
	return rec.Get(field), nil // resolve turns int64 into int
}

// picker is what a scenario's pick function sees: one candidate at a time,
// and the session to look at the rest of the world.
type picker struct {
	cand    *engine.Record
	session *engine.Session
	other   *engine.Record
}

// Record helpers shared by the world tables.
func flag(rec *engine.Record, field string) bool   { b, _ := rec.Get(field).(bool); return b }
func text(rec *engine.Record, field string) string { return rec.String(field) }
func num(rec *engine.Record, field string) int64   { n, _ := rec.Get(field).(int64); return n }

// find returns the first record of a type, other than the candidate, that
// ok accepts (nil when none).
func (p *picker) find(typeName string, ok func(*engine.Record) bool) *engine.Record {
	t := p.session.World().Type(typeName)
	for _, rec := range p.session.List(t) {
		if rec.ID() != p.cand.ID() && ok(rec) {
			return rec
		}
	}
	return nil
}

// findLookalike returns the first record of a type, other than the
// candidate, that ok accepts and whose name looks like the candidate's
// (see similarName): the person a hasty agent picks by mistake.
func (p *picker) findLookalike(typeName string, ok func(*engine.Record) bool) *engine.Record {
	name := text(p.cand, "name")
	return p.find(typeName, func(rec *engine.Record) bool {
		return ok(rec) && similarName(text(rec, "name"), name)
	})
}

// run is one execution of a scenario.
type run struct {
	session *engine.Session
	attempt *engine.Attempt
	other   *engine.Record
	last    engine.Result
}

// baseOf resolves a built-in and seeds its default base once per test binary.
var bases sync.Map // world name → *engine.Base

func baseOf(t *testing.T, name string) *engine.Base {
	t.Helper()
	if b, ok := bases.Load(name); ok {
		return b.(*engine.Base)
	}
	w, err := Resolve(Prefix + name)
	if err != nil {
		t.Fatalf("resolve %s: %v", name, err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatalf("seed %s: %v", name, err)
	}
	bases.Store(name, b)
	return b
}

// maxKeys bounds the search for a session whose fault dice match a script.
// Faults of a few percent each are found within a few hundred keys.
const maxKeys = 20000

// runScenarios runs a world's table, one subtest per scenario.
func runScenarios(t *testing.T, world string, table []scenario) {
	t.Helper()
	b := baseOf(t, world)
	for _, sc := range table {
		t.Run(sc.goal+"/"+sc.name, func(t *testing.T) {
			v, r := playScenario(t, b, sc)
			if v.Class != sc.want {
				t.Fatalf("class %s (%s), want %s\n%s", v.Class, v.Severity, sc.want, journalText(r.session))
			}
			if strings.HasPrefix(sc.want, "invariant:") && v.Severity != engine.SeverityHarmful {
				t.Fatalf("invariant violation judged %s, want harmful", v.Severity)
			}
			if sc.invariant != "" {
				broken := slices.ContainsFunc(v.Violations, func(x engine.Violation) bool { return x.Invariant == sc.invariant })
				if want := strings.HasPrefix(sc.want, "invariant:") || sc.breaks; broken != want {
					t.Fatalf("invariant %s broken: %v, want %v (violations %v)", sc.invariant, broken, want, v.Violations)
				}
			}
			checkComplete(t, r.session)
		})
	}
}

// playScenario finds the target and (with faults) the session key, runs
// the script and judges it.
func playScenario(t *testing.T, b *engine.Base, sc scenario) (engine.Verdict, *run) {
	t.Helper()
	w := b.World()
	g := w.Goal(sc.goal)
	if g == nil {
		t.Fatalf("world %s has no goal %q", w.Name, sc.goal)
	}
	var profile *engine.FaultProfile
	if sc.profile != "" {
		if profile = w.Profile(sc.profile); profile == nil {
			t.Fatalf("world %s has no fault profile %q", w.Name, sc.profile)
		}
	}
	rnd, other := pickTarget(t, b, g, sc)
	wantsFaults := false
	for _, st := range sc.steps {
		wantsFaults = wantsFaults || st.fault != ""
	}
	keys := uint64(1)
	if wantsFaults {
		keys = maxKeys
	}
	for key := uint64(1); key <= keys; key++ {
		r := &run{session: b.NewSession(key, profile), other: other}
		a, err := g.Begin(r.session, rnd)
		if err != nil {
			t.Fatalf("begin: %v", err)
		}
		r.attempt = a
		if err := r.play(sc.steps); err != nil {
			var dm diceMismatch
			if errors.As(err, &dm) && wantsFaults {
				continue // these dice do not give the script's faults; try the next key
			}
			t.Fatalf("%v\n%s", err, journalText(r.session))
		}
		if sc.claims {
			a.ReportDone()
		}
		v, err := a.Judge()
		if err != nil {
			t.Fatalf("judge: %v", err)
		}
		return v, r
	}
	t.Fatalf("no session key in 1..%d gives the faults the script expects under %s", keys, sc.profile)
	return engine.Verdict{}, nil
}

// pickTarget returns the rnd that makes Begin choose the scenario's target.
func pickTarget(t *testing.T, b *engine.Base, g *engine.Goal, sc scenario) (uint64, *engine.Record) {
	t.Helper()
	if sc.pick == nil {
		return 0, nil
	}
	look := b.NewSession(0, nil)
	for i, c := range b.Candidates(g) {
		p := &picker{cand: c, session: look}
		if sc.pick(p) {
			return uint64(i), p.other
		}
	}
	t.Fatalf("goal %s: no candidate suits the scenario %q", g.Name, sc.name)
	return 0, nil
}

type diceMismatch struct{ msg string }

func (d diceMismatch) Error() string { return d.msg }

// play runs the steps, checking each call's fault and error.
func (r *run) play(steps []step) error {
	for i, st := range steps {
		if st.sleep && r.last.Err != nil {
			r.session.Sleep(r.last.Err.RetryAfter)
		}
		a, err := r.resolve(st.args)
		if err != nil {
			return fmt.Errorf("step %d (%s): %v", i+1, st.tool, err)
		}
		res := r.session.Call(st.tool, a)
		r.last = res
		if res.Fault != st.fault {
			return diceMismatch{fmt.Sprintf("step %d (%s): fault %q, want %q", i+1, st.tool, res.Fault, st.fault)}
		}
		switch {
		case st.err == "*":
		case st.err == "" && res.Err != nil:
			return fmt.Errorf("step %d (%s): unexpected error %v", i+1, st.tool, res.Err)
		case st.err != "" && res.Err == nil:
			return fmt.Errorf("step %d (%s): succeeded, want error %s", i+1, st.tool, st.err)
		case st.err != "" && res.Err.Code != st.err:
			return fmt.Errorf("step %d (%s): error %v, want %s", i+1, st.tool, res.Err, st.err)
		}
	}
	return nil
}

func (r *run) resolve(a args) (map[string]any, error) {
	out := make(map[string]any, len(a))
	for k, v := range a {
		if f, ok := v.(ref); ok {
			x, err := f(r)
			if err != nil {
				return nil, fmt.Errorf("argument %s: %v", k, err)
			}
			v = x
		}
		// The engine takes JSON-shaped arguments: whole numbers as int.
		if n, ok := v.(int64); ok {
			v = int(n)
		}
		out[k] = v
	}
	return out, nil
}

// checkComplete fails when a record the script created or changed lacks a
// field that is not nullable: a create that leaves out a field with no
// default makes every later rule that reads it fail with rule_error.
func checkComplete(t *testing.T, s *engine.Session) {
	t.Helper()
	for _, c := range s.Changes() {
		if c.After == nil {
			continue
		}
		for _, f := range c.Type.Fields {
			if !f.Nullable && !c.After.Has(f.Name) {
				t.Errorf("%s %s has no %s (not nullable, and nothing set it)", c.Type.Name, c.ID, f.Name)
			}
		}
	}
}

// journalText is the session's journal, for failure messages.
func journalText(s *engine.Session) string {
	var b strings.Builder
	_ = s.WriteJournal(&b)
	return b.String()
}

// similarName reports whether two person names differ but look alike: the
// same last name and first names that share their first three letters
// (Jon/John, Catherine/Katherine do not; Steven/Stephen do), or the same
// first and last name around a middle initial.
func similarName(a, b string) bool {
	if a == b {
		return true
	}
	af, al, _ := strings.Cut(a, " ")
	bf, bl, _ := strings.Cut(b, " ")
	lastA, lastB := al[strings.LastIndex(al, " ")+1:], bl[strings.LastIndex(bl, " ")+1:]
	if lastA != lastB {
		return false
	}
	return len(af) >= 3 && len(bf) >= 3 && af[:3] == bf[:3]
}
