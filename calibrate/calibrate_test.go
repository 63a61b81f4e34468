package calibrate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

// Cohen's κ against the textbook table (Wikipedia's "Cohen's kappa"
// example: 50 items, 20 yes/yes, 5 yes/no, 10 no/yes, 15 no/no: po 0.7,
// pe 0.5, κ 0.4).
func TestKappaKnownValue(t *testing.T) {
	var a, b []string
	add := func(n int, x, y string) {
		for range n {
			a, b = append(a, x), append(b, y)
		}
	}
	add(20, "yes", "yes")
	add(5, "yes", "no")
	add(10, "no", "yes")
	add(15, "no", "no")
	k, po := kappa(a, b)
	if math.Abs(k-0.4) > 1e-12 || math.Abs(po-0.7) > 1e-12 {
		t.Errorf("κ %v, po %v; want 0.4 and 0.7", k, po)
	}
	if k, _ := kappa([]string{"x", "x"}, []string{"x", "x"}); k != 1 {
		t.Errorf("all one label: κ %v, want 1", k)
	}
}

// EM finds the exact mix of two known distributions.
func TestFitMixExact(t *testing.T) {
	q := []counts{{{0.9, 0.1}, {0.5, 0.5}}, {{0.2, 0.8}, {0.1, 0.9}}}
	n := counts{{0.7*0.9*1e4 + 0.3*0.2*1e4, 0.7*0.1*1e4 + 0.3*0.8*1e4}, {0.7*0.5*1e4 + 0.3*0.1*1e4, 0.7*0.5*1e4 + 0.3*0.9*1e4}}
	w := fitMix(n, q)
	if math.Abs(w[0]-0.7) > 1e-6 || math.Abs(w[1]-0.3) > 1e-6 {
		t.Errorf("weights %v, want [0.7 0.3]", w)
	}
	if g := gStat(n, mixture(w, q)); g > 1e-6 {
		t.Errorf("G %v at the exact mix, want 0", g)
	}
}

// synthetic runs the scripted swarm itself on mock:crm with the given mix
// and returns its episodes file, as `herd swarm --episodes` writes it.
func synthetic(t *testing.T, mix map[string]float64, agents int) *File {
	t.Helper()
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	pack := personas.Builtin()
	var m []swarm.MixEntry
	for _, name := range pack.Names() {
		if wt, ok := mix[name]; ok {
			m = append(m, swarm.MixEntry{Persona: pack.Get(name), Weight: wt})
		}
	}
	h := Header{World: "mock:crm", Seed: 7, Agents: agents, Faults: engine.NoFaults, Variants: []string{"clear", "ambiguous"}, Player: "personas"}
	for _, g := range w.Goals {
		h.Goals = append(h.Goals, g.Name)
	}
	log := NewLog(h, func(i int) uint64 { return swarm.AgentSeed(7, i) })
	plan, err := swarm.NewPlan(swarm.Config{World: w, WorldRef: "mock:crm", Seed: 7, Agents: agents, Mix: m,
		Variants: h.Variants, Observer: log})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := plan.Run(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if _, err := log.WriteTo(&buf); err != nil {
		t.Fatal(err)
	}
	f, err := Parse(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func calibrateFile(t *testing.T, f *File, reps int) *Report {
	t.Helper()
	w, _ := worlds.Resolve("mock:crm")
	r, err := Run(context.Background(), Config{World: w, File: f, Personas: personas.Builtin().Personas, Samples: 300, Reps: reps})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Episodes the scripted swarm played as 70% careful and 30% hasty are
// explained by a mix whose intervals hold 0.7 and 0.3, the fit test
// accepts it, and careful's κ with its own episodes is the highest.
func TestRecoversAKnownMix(t *testing.T) {
	if testing.Short() {
		t.Skip("plays some thousands of episodes")
	}
	f := synthetic(t, map[string]float64{"careful": 0.7, "hasty": 0.3}, 1200)
	r := calibrateFile(t, f, 100)
	got := map[string]Share{}
	for _, s := range r.Mix {
		got[s.Persona] = s
	}
	// The intervals hold the true weight about 90% of the time, not 95%
	// (bench/calibrate-coverage.sh, docs/performance.md): a fixed seed is
	// one draw, so the test allows the interval a margin of half its width
	// and asks the estimate itself to be within 8 points.
	for name, want := range map[string]float64{"careful": 0.7, "hasty": 0.3} {
		s := got[name]
		margin := (s.Hi - s.Lo) / 2
		if want < s.Lo-margin || want > s.Hi+margin || math.Abs(s.Weight-want) > 0.08 {
			t.Errorf("%s: %.3f [%.3f, %.3f], want it near %.1f (mix %+v)", name, s.Weight, s.Lo, s.Hi, want, r.Mix)
		}
	}
	if !r.Fit.Fits {
		t.Errorf("fit %+v: the personas' own mix must fit", r.Fit)
	}
	if len(r.Effects) == 0 {
		t.Fatal("no variant effects")
	}
	for _, e := range r.Effects {
		if !e.SameDirection {
			t.Errorf("effect %+v: the mix that made the episodes predicts their direction", e)
		}
	}
	// Deterministic: the same inputs give the same report.
	a, _ := json.Marshal(r)
	b, _ := json.Marshal(calibrateFile(t, f, 100))
	if !bytes.Equal(a, b) {
		t.Error("two calibrations of the same episodes differ")
	}
}

// Episodes no mix explains — outcomes reversed between the variants for
// every agent, clear wording destroying what ambiguous wording kept — are
// said not to fit.
func TestSaysDoesNotFit(t *testing.T) {
	if testing.Short() {
		t.Skip("plays some thousands of episodes")
	}
	f := synthetic(t, map[string]float64{"careful": 1}, 600)
	for i := range f.Episodes {
		e := &f.Episodes[i]
		if e.Goal != "hide_contact" {
			continue
		}
		if e.Variant == "clear" {
			e.Class, e.Severity, e.First = "destroyed_data", "harmful", "delete_contact"
		} else {
			e.Class, e.Severity, e.First = "achieved", "ok", "archive_contact"
		}
	}
	r := calibrateFile(t, f, 100)
	if r.Fit.Fits || r.Fit.P >= FitAlpha {
		t.Errorf("fit %+v: no persona deletes under the clear wording and archives under the ambiguous one", r.Fit)
	}
}

func TestParseRefusesBadFiles(t *testing.T) {
	for name, body := range map[string]string{
		"empty":      "",
		"no header":  `{"agent":1}` + "\n",
		"version":    `{"herd_episodes":9,"variants":["a"]}` + "\n",
		"no eps":     `{"herd_episodes":1,"variants":["a"]}` + "\n",
		"variant":    `{"herd_episodes":1,"variants":["a"]}` + "\n" + `{"agent":0,"variant":"b","goal":"g","class":"x"}` + "\n",
		"unknown":    `{"herd_episodes":1,"variants":["a"]}` + "\n" + `{"agent":0,"variant":"a","goal":"g","class":"x","evil":1}` + "\n",
		"no class":   `{"herd_episodes":1,"variants":["a"]}` + "\n" + `{"agent":0,"variant":"a","goal":"g"}` + "\n",
		"not json 2": `{"herd_episodes":1,"variants":["a"]}` + "\n" + `{` + "\n",
	} {
		if _, err := Parse([]byte(body)); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
