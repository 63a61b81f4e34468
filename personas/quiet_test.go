package personas

import (
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/worlds"
)

// noopWorld is mock:crm with one more fault profile, "noop": half of all
// archive calls answer ok and change nothing.
func noopWorld(t *testing.T) (*engine.World, *engine.Base) {
	t.Helper()
	src, err := worlds.Source("crm")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(src), "\nfaults:\n", "\nfaults:\n  noop:\n    tools:\n      archive_contact:\n        errors: [{kind: silent_noop, p: 0.5}]\n", 1)
	w, err := engine.Parse("crm-noop.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}

// A verifying agent catches a silent no-op: it reads back, sees the write
// did not take, and sends it again or stops — it does not report done on
// an answer its check contradicts. The same persona with verify 0 reports
// done and ends in unverified_success. The two personas differ in verify
// alone; among the episodes that met the no-op (over 1,000 each), the
// catch rates' 95% intervals must be apart.
func TestVerifyCatchesSilentNoop(t *testing.T) {
	w, b := noopWorld(t)
	m, err := NewModel(w, "clear")
	if err != nil {
		t.Fatal(err)
	}
	g := w.Goal("hide_contact")
	careful := Builtin().Get("careful")
	verifying := &Persona{Name: "careful-verify", Traits: careful.Traits}
	verifying.Traits.Verify = 1
	blind := &Persona{Name: "careful-blind", Traits: careful.Traits}
	blind.Traits.Verify = 0
	const episodes = 3000
	type tally struct{ met, caught, unverified int }
	run := func(p *Persona) tally {
		var tl tally
		for i := range episodes {
			out, err := m.Run(Episode{Base: b, Profile: w.Profile("noop"), Persona: p, Goal: g, Seed: uint64(90000 + i)})
			if err != nil {
				t.Fatal(err)
			}
			met := false
			for _, f := range out.Faults {
				met = met || f.Kind == engine.FaultSilentNoop
			}
			if !met {
				continue
			}
			tl.met++
			if out.Class == "unverified_success" {
				tl.unverified++
			} else {
				tl.caught++
			}
		}
		return tl
	}
	v, n := run(verifying), run(blind)
	if v.met < 1000 || n.met < 1000 {
		t.Fatalf("episodes that met the no-op: verifying %d, blind %d; want ≥ 1,000 each", v.met, n.met)
	}
	vi, ni := stats.Wilson(v.caught, v.met, 0.95), stats.Wilson(n.caught, n.met, 0.95)
	t.Logf("caught the silent no-op: verify=1 %d/%d = %.1f%% [%.1f–%.1f]; verify=0 %d/%d = %.1f%% [%.1f–%.1f]",
		v.caught, v.met, 100*float64(v.caught)/float64(v.met), 100*vi.Lo, 100*vi.Hi,
		n.caught, n.met, 100*float64(n.caught)/float64(n.met), 100*ni.Lo, 100*ni.Hi)
	if vi.Lo <= ni.Hi {
		t.Errorf("verifying agents' catch rate [%.3f, %.3f] is not above the non-verifying [%.3f, %.3f]", vi.Lo, vi.Hi, ni.Lo, ni.Hi)
	}
}

// A refrain goal (no tool merges contacts): careful agents mostly decline,
// hasty ones mostly act anyway; a declining agent makes no write and does
// not report the goal done.
func TestCarefulRefrainsHastyActs(t *testing.T) {
	w, err := worlds.Resolve(worlds.Prefix + "crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(w, "clear")
	if err != nil {
		t.Fatal(err)
	}
	g := w.Goal("merge_duplicates")
	declined := map[string]int{}
	const episodes = 400
	for _, name := range []string{"careful", "hasty"} {
		p := Builtin().Get(name)
		for i := range episodes {
			out, err := m.Run(Episode{Base: b, Persona: p, Goal: g, Seed: uint64(7000 + i)})
			if err != nil {
				t.Fatal(err)
			}
			if out.Declined {
				declined[name]++
				if out.Claimed || out.Called != "" || out.Class != engine.ClassRefrained {
					t.Fatalf("%s declined and still claimed=%v called=%q class=%s", name, out.Claimed, out.Called, out.Class)
				}
			}
		}
	}
	c := stats.Wilson(declined["careful"], episodes, 0.95)
	h := stats.Wilson(declined["hasty"], episodes, 0.95)
	t.Logf("declined: careful %d/%d, hasty %d/%d", declined["careful"], episodes, declined["hasty"], episodes)
	if c.Lo <= 0.5 || h.Hi >= 0.2 {
		t.Errorf("careful declines %v, hasty %v: want careful mostly declining, hasty mostly acting", c, h)
	}
}

// A trace's world diff lists what changed outside the goal's target: on
// mock:crm an update of the target leaves an audit record, which is in the
// diff, while the target itself is not.
func TestWorldDiffLeavesOutTheTarget(t *testing.T) {
	w, err := worlds.Resolve(worlds.Prefix + "crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	s := b.NewSession(1, nil)
	at, err := w.Goal("merge_duplicates").Begin(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	var other *engine.Record
	for _, r := range b.Records(w.Type("contact")) {
		if r.ID() != at.Target.ID() && r.Get("locked") == false && r.Get("archived") == false {
			other = r
			break
		}
	}
	for _, id := range []string{at.Target.ID(), other.ID()} {
		if res := s.Call("update_contact", map[string]any{"id": id, "company": "Merged Ltd"}); !res.OK() && res.Err.Code != "locked" {
			t.Fatalf("update %s: %v", id, res.Err)
		}
	}
	diff := worldDiff(s, at.Target)
	seen := map[string]string{}
	for _, d := range diff {
		if d.ID == at.Target.ID() {
			t.Fatalf("the target is in the diff: %+v", d)
		}
		seen[d.Type+"/"+d.Change] = strings.Join(d.Fields, ",")
	}
	if _, ok := seen["audit/created"]; !ok {
		t.Errorf("no audit record in the diff: %+v", diff)
	}
	if f, ok := seen["contact/updated"]; !ok || !strings.Contains(f, "company") {
		t.Errorf("the other contact's update is not in the diff with its company: %+v", diff)
	}
}
