package personas

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
)

// Outcomes follow effects: the engine judges the end state; the agent's
// tool choice only matters through what it did to the data.

func TestRefusedDeleteOfALockedContactIsNotDestroyedData(t *testing.T) {
	s := newSetup(t, "crm", "ambiguous", "hide_contact", "")
	b := Builtin()
	refusedDeletes := 0
	for i := 0; i < 3000; i++ {
		ep := Episode{Base: s.base, Persona: b.Personas[i%len(b.Personas)], Goal: s.goal, Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
		out, err := s.m.Run(ep)
		if err != nil {
			t.Fatal(err)
		}
		tr := out.Trace
		for _, st := range tr.Steps {
			if st.Tool == "delete_contact" && st.Args["id"] == tr.Target && strings.HasPrefix(st.Result, "error: locked") {
				refusedDeletes++
				if out.Class == "destroyed_data" {
					t.Errorf("seed %d: a delete refused because %s is locked destroyed nothing, judged %s", ep.Seed, tr.Target, out.Class)
				}
				if out.Severity == engine.SeverityHarmful {
					t.Errorf("seed %d: refused delete judged harmful (%s)", ep.Seed, out.Class)
				}
				break
			}
		}
	}
	if refusedDeletes < 20 {
		t.Fatalf("only %d episodes tried to delete a locked target; the test needs some", refusedDeletes)
	}
	t.Logf("%d refused deletes of locked targets, none destroyed data", refusedDeletes)
}

func TestArchivingTheWrongSimilarNameIsWrongRecord(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "")
	hasty := Builtin().Get("hasty")
	contact := s.m.world.Type("contact")
	sess := s.base.NewSession(0, nil)
	wrong := 0
	for i := 0; i < 3000; i++ {
		ep := Episode{Base: s.base, Persona: hasty, Goal: s.goal, Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
		out, err := s.m.Run(ep)
		if err != nil {
			t.Fatal(err)
		}
		tr := out.Trace
		for _, st := range tr.Steps {
			if st.Tool != "archive_contact" || st.Result != "ok" || st.Args["id"] == tr.Target {
				continue
			}
			acted := sess.Get(contact, st.Args["id"].(string))
			target := sess.Get(contact, tr.Target)
			if !similar(acted.String("name"), target.String("name")) {
				t.Fatalf("seed %d: archived %s (%q) for %s (%q): not a similar name", ep.Seed, acted.ID(), acted.String("name"), target.ID(), target.String("name"))
			}
			wrong++
			if out.Class != "wrong_record" {
				t.Errorf("seed %d: archived %s (%q) instead of %s (%q), judged %s, want wrong_record",
					ep.Seed, acted.ID(), acted.String("name"), target.ID(), target.String("name"), out.Class)
			}
			break
		}
	}
	if wrong < 20 {
		t.Fatalf("only %d episodes archived a similar-named contact; the test needs some", wrong)
	}
	t.Logf("%d archives of a near-duplicate, all wrong_record", wrong)
}

// Determinism: an episode is a pure function of (world, variant, profile,
// persona, goal, seed). Tracing observes it and changes nothing.

func TestEpisodeIsDeterministic(t *testing.T) {
	for _, world := range []string{"crm", "payments", "shop", "email", "files"} {
		w := loadWorld(t, world)
		base := seedBase(t, w)
		m := newModel(t, w, w.Variants[len(w.Variants)-1])
		b := Builtin()
		for i := 0; i < 150; i++ {
			ep := Episode{Base: base, Profile: w.Profile("hostile"), Persona: b.Personas[i%len(b.Personas)],
				Goal: w.Goals[i%len(w.Goals)], Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
			first, err := m.Run(ep)
			if err != nil {
				t.Fatal(err)
			}
			again, err := m.Run(ep)
			if err != nil {
				t.Fatal(err)
			}
			j1, _ := json.Marshal(first.Trace)
			j2, _ := json.Marshal(again.Trace)
			if !reflect.DeepEqual(first, again) || !bytes.Equal(j1, j2) {
				t.Fatalf("%s seed %d: two runs differ:\n%s\n%s", world, ep.Seed, j1, j2)
			}
			ep.Trace = false
			quiet, err := m.Run(ep)
			if err != nil {
				t.Fatal(err)
			}
			first.Trace = nil
			if !reflect.DeepEqual(first, quiet) {
				t.Fatalf("%s seed %d: tracing changed the outcome:\n%+v\n%+v", world, ep.Seed, first, quiet)
			}
		}
	}
}

func TestModelIsSafeForConcurrentUse(t *testing.T) {
	s := newSetup(t, "crm", "ambiguous", "hide_contact", "realistic")
	w := s.m.world
	pack := Builtin().Personas
	const n = 400
	episode := func(i int) Episode {
		return Episode{Base: s.base, Profile: s.profile, Persona: pack[i%len(pack)], Goal: w.Goals[i%len(w.Goals)],
			Seed: entropy.Mix(runSeed, uint64(i)), Trace: i%3 == 0}
	}
	want := make([][]byte, n)
	for i := range want {
		out, err := s.m.Run(episode(i))
		if err != nil {
			t.Fatal(err)
		}
		want[i], _ = json.Marshal(out)
	}
	fresh := newModel(t, w, "ambiguous") // its choice cache fills concurrently
	got := make([][]byte, n)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := g; i < n; i += 4 {
				out, err := fresh.Run(episode(i))
				if err != nil {
					t.Error(err)
					return
				}
				got[i], _ = json.Marshal(out)
			}
		}(g)
	}
	wg.Wait()
	for i := range want {
		if !bytes.Equal(want[i], got[i]) {
			t.Fatalf("episode %d differs when run concurrently:\n%s\n%s", i, want[i], got[i])
		}
	}
}

func TestRunRefusesBadEpisodes(t *testing.T) {
	s := newSetup(t, "crm", "clear", "hide_contact", "")
	other := loadWorld(t, "payments")
	otherBase := seedBase(t, other)
	p := Builtin().Get("careful")
	bad := *p
	bad.Traits.Noise = 0
	for _, tc := range []struct {
		name string
		ep   Episode
		want string
	}{
		{"no base", Episode{Persona: p, Goal: s.goal}, "episode has no base"},
		{"no persona", Episode{Base: s.base, Goal: s.goal}, "episode has no persona"},
		{"no goal", Episode{Base: s.base, Persona: p}, "episode has no goal"},
		{"base of another world", Episode{Base: otherBase, Persona: p, Goal: s.goal}, "the episode's base is of world payments, the model's is crm"},
		{"goal of another world", Episode{Base: s.base, Persona: p, Goal: other.Goals[0]}, "goal " + other.Goals[0].Name + " is not a goal of world crm"},
		{"traits out of range", Episode{Base: s.base, Persona: &bad, Goal: s.goal}, "persona careful: noise must be in (0, 100], got 0"},
	} {
		if _, err := s.m.Run(tc.ep); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

func TestOutcomeBookkeeping(t *testing.T) {
	s := newSetup(t, "crm", "clear", "update_email", "hostile")
	b := Builtin()
	for i := 0; i < 1000; i++ {
		ep := Episode{Base: s.base, Profile: s.profile, Persona: b.Personas[i%len(b.Personas)], Goal: s.goal,
			Seed: entropy.Mix(runSeed, uint64(i)), Trace: true}
		out, err := s.m.Run(ep)
		if err != nil {
			t.Fatal(err)
		}
		calls, faults, firstWrite := 0, 0, ""
		for _, st := range out.Trace.Steps {
			if st.Tool == "" {
				continue
			}
			calls++
			if strings.HasPrefix(st.Result, "fault: ") {
				faults++
			}
			if w := s.m.world.Tool(st.Tool); firstWrite == "" && w.Writes() {
				firstWrite = st.Tool
			}
		}
		if out.Calls != calls || len(out.Faults) != faults || out.Called != firstWrite || out.Meant != "update_contact" {
			t.Fatalf("seed %d: outcome %+v does not match its trace (calls %d, faults %d, first write %q)", ep.Seed, out, calls, faults, firstWrite)
		}
		if out.Calls > ep.Persona.Traits.Patience {
			t.Fatalf("seed %d: %d calls, patience %d", ep.Seed, out.Calls, ep.Persona.Traits.Patience)
		}
		if out.Recovered != (faults > 0 && out.Severity == engine.SeverityOK) {
			t.Fatalf("seed %d: recovered %v with %d faults and severity %s", ep.Seed, out.Recovered, faults, out.Severity)
		}
	}
}
