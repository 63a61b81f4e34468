package personas_test

// The held-out evaluation of the reader model: expectations about which
// way a description's wording moves an outcome rate, written from common
// sense before they were run, on worlds and texts nobody tuned the model
// to (testdata/heldout/README.md). Each expectation runs the same agents
// — same seeds, persona, goal and targets — under two sides and compares
// one rate with 95% Wilson intervals.
//
//	go test ./personas -run 'TestHeldout$' -v          every expectation, the table and the shares
//	go test ./personas -run 'TestHeldout/ID$' -v       one, with both sides' tool choices explained
//	HELDOUT_REPORT=out.md go test ./personas -run 'TestHeldout$'   also write the table as markdown
//
// The test fails when the share that holds is below the file's floor, or
// when an expectation marked must_hold does not hold; a single miss does
// not fail it (that is what the share is for).

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/worlds"
)

const heldoutDir = "testdata/heldout"

// heldoutFile is expectations.yaml.
type heldoutFile struct {
	Floor        float64       `yaml:"floor"`
	Agents       int           `yaml:"agents"`
	Seed         uint64        `yaml:"seed"`
	Expectations []expectation `yaml:"expectations"`
}

// expectation is one common-sense claim: under side B the metric's rate
// is above, below or about equal to side A's, for the same agents.
type expectation struct {
	ID       string `yaml:"id"`
	World    string `yaml:"world"`
	Goal     string `yaml:"goal"`
	Persona  string `yaml:"persona"`
	Faults   string `yaml:"faults"`
	Style    string `yaml:"style"`
	A        side   `yaml:"a"`
	B        side   `yaml:"b"`
	Metric   string `yaml:"metric"`
	Expect   string `yaml:"expect"`
	Why      string `yaml:"why"`
	MustHold bool   `yaml:"must_hold"`
	Changed  string `yaml:"changed"`
	// Batch is which independently written batch the expectation
	// belongs to (README.md): 1 when absent. The table reports each
	// batch's share apart, since a batch used to develop the model
	// measures it less honestly than one nobody looked at.
	Batch int `yaml:"batch"`
}

// side is what one arm of an expectation reads: a variant of the world,
// optionally a descriptions file over it, optionally a copy of the world
// that differs in something other than its descriptions.
type side struct {
	Variant      string `yaml:"variant"`
	Descriptions string `yaml:"descriptions"`
	World        string `yaml:"world"`
}

const (
	expectAbove = "b_above_a"
	expectBelow = "b_below_a"
	expectEqual = "about_equal"
	// equalTolerance is how far about_equal rates may differ, in rate
	// units, before intervals apart count against them.
	equalTolerance = 0.02
	confidence     = 0.95
)

// Verdicts.
const (
	verdictHolds    = "holds"
	verdictFails    = "fails"
	verdictReversed = "reversed"
)

// heldoutResult is one expectation's outcome.
type heldoutResult struct {
	exp        *expectation
	n          int
	kA, kB     int
	ivA, ivB   stats.Interval
	diff       float64 // B − A, paired
	diffIv     stats.Interval
	verdict    string
	calledA    map[string]int // first write tool called → agents, per side
	calledB    map[string]int
	runElapsed time.Duration
}

func TestHeldout(t *testing.T) {
	start := time.Now()
	file := loadHeldout(t)
	agents := file.Agents
	quick := testing.Short() || raceEnabled()
	if quick {
		// Under -short or -race only the machinery is exercised: 200
		// agents give intervals too wide for the floor to mean anything.
		agents = 200
		if raceEnabled() {
			// -race runs ten times slower, and the suite has 1,290
			// expectations: 50 agents, on every raceStride-th of them,
			// keep it inside the test timeout on 2 cores. The race build
			// exercises the machinery; the full suite runs without it.
			agents = 50
		}
	}
	cache := &worldSet{worlds: map[string]*engine.World{}, descs: map[string]map[string]map[string]string{}, bases: map[string]*engine.Base{}}
	var results []*heldoutResult
	for i := range file.Expectations {
		e := &file.Expectations[i]
		if raceEnabled() && i%raceStride != 0 {
			continue
		}
		t.Run(e.ID, func(t *testing.T) {
			r, err := runExpectation(cache, e, agents, file.Seed)
			if err != nil {
				t.Fatalf("expectation %s: %v", e.ID, err)
			}
			results = append(results, r)
			t.Logf("%s: A %s, B %s → %s (%s)", e.ID, rateText(r.kA, r.n, r.ivA), rateText(r.kB, r.n, r.ivB), r.verdict, e.Expect)
			if testing.Verbose() {
				explainSides(t, cache, e, r)
			}
		})
	}
	table := heldoutTable(results, agents, time.Since(start))
	t.Log("\n" + table)
	if path := os.Getenv("HELDOUT_REPORT"); path != "" {
		if err := os.WriteFile(path, []byte(table), 0o644); err != nil {
			t.Errorf("HELDOUT_REPORT: %v", err)
		}
	}
	if len(results) < len(file.Expectations) {
		t.Logf("%d of %d expectations run (filtered or failed to load): the floor is not checked", len(results), len(file.Expectations))
		return
	}
	if quick {
		t.Logf("-short or -race: %d agents per side; the floor and must_hold are not checked", agents)
		return
	}
	held := 0
	for _, r := range results {
		if r.verdict == verdictHolds {
			held++
		} else if r.exp.MustHold {
			t.Errorf("expectation %s is must_hold and %s: A %s, B %s", r.exp.ID, r.verdict, rateText(r.kA, r.n, r.ivA), rateText(r.kB, r.n, r.ivB))
		}
	}
	if share := float64(held) / float64(len(results)); share < file.Floor {
		t.Errorf("%d of %d held-out expectations hold (%.1f%%), below the floor of %.1f%% set in %s", held, len(results), 100*share, 100*file.Floor, filepath.Join(heldoutDir, "expectations.yaml"))
	}
}

// TestHeldoutFileIsWellFormed checks the expectations file on its own, so
// that a typo is reported as such and not as a model miss.
func TestHeldoutFileIsWellFormed(t *testing.T) {
	file := loadHeldout(t)
	if len(file.Expectations) < 60 {
		t.Errorf("%d expectations; the held-out suite needs at least 60", len(file.Expectations))
	}
	styles := map[string]bool{}
	for _, e := range file.Expectations {
		styles[e.Style] = true
	}
	for _, want := range []string{"terse", "docstring", "markdown", "emoji", "caps", "paraphrase", "misleading", "boilerplate"} {
		if !styles[want] {
			t.Errorf("no expectation of style %s", want)
		}
	}
}

// raceStride: under -race, one expectation in this many runs.
const raceStride = 4

func raceEnabled() bool {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range bi.Settings {
		if s.Key == "-race" && s.Value == "true" {
			return true
		}
	}
	return false
}

func loadHeldout(t *testing.T) *heldoutFile {
	t.Helper()
	path := filepath.Join(heldoutDir, "expectations.yaml")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("held-out expectations: %v", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f heldoutFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if f.Agents < 1 {
		t.Fatalf("%s: agents must be at least 1, got %d", path, f.Agents)
	}
	if f.Floor < 0 || f.Floor > 1 {
		t.Fatalf("%s: floor must be in [0, 1], got %v", path, f.Floor)
	}
	seen := map[string]bool{}
	var problems []string
	for i, e := range f.Expectations {
		where := fmt.Sprintf("expectation %d (%s)", i+1, e.ID)
		switch {
		case e.ID == "":
			problems = append(problems, where+": no id")
		case seen[e.ID]:
			problems = append(problems, where+": id given twice")
		}
		seen[e.ID] = true
		if e.World == "" || e.Goal == "" || e.Persona == "" || e.Style == "" || e.Metric == "" || e.Why == "" {
			problems = append(problems, where+": world, goal, persona, style, metric and why are all required")
		}
		if e.A.Variant == "" || e.B.Variant == "" {
			problems = append(problems, where+": both sides need a variant")
		}
		if e.Expect != expectAbove && e.Expect != expectBelow && e.Expect != expectEqual {
			problems = append(problems, fmt.Sprintf("%s: expect %q is not one of %s, %s, %s", where, e.Expect, expectAbove, expectBelow, expectEqual))
		}
	}
	if len(problems) > 0 {
		t.Fatalf("%s:\n%s", path, strings.Join(problems, "\n"))
	}
	return &f
}

// worldSet caches loaded worlds and descriptions files across
// expectations (a model is built per side: it is cheap).
type worldSet struct {
	mu     sync.Mutex
	worlds map[string]*engine.World
	descs  map[string]map[string]map[string]string // world file + descriptions file → variant → tool → text
	bases  map[string]*engine.Base
}

// base is a world seeded at its own default seed: a copy of a world that
// keeps the seed and the types seeds the same records, so the two sides'
// agents meet the same targets.
func (ws *worldSet) base(name string, w *engine.World) (*engine.Base, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if b, ok := ws.bases[name]; ok {
		return b, nil
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		return nil, fmt.Errorf("world %s at seed %d: %w", name, w.DefaultSeed, err)
	}
	ws.bases[name] = b
	return b, nil
}

// world resolves a world name: a built-in (mock:crm) or a held-out world
// file under testdata/heldout/worlds.
func (ws *worldSet) world(name string) (*engine.World, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.worlds[name]; ok {
		return w, nil
	}
	ref := name
	if !worlds.IsBuiltin(name) {
		ref = filepath.Join(heldoutDir, "worlds", name+".yaml")
	}
	w, err := worlds.Resolve(ref)
	if err != nil {
		return nil, err
	}
	ws.worlds[name] = w
	return w, nil
}

func (ws *worldSet) descriptions(worldName string, w *engine.World, file string) (map[string]map[string]string, error) {
	key := worldName + "\x00" + file
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if d, ok := ws.descs[key]; ok {
		return d, nil
	}
	d, err := lint.LoadDescriptions(filepath.Join(heldoutDir, "descriptions", file), w)
	if err != nil {
		return nil, err
	}
	ws.descs[key] = d
	return d, nil
}

// arm is one side, ready to run.
type arm struct {
	model   *personas.Model
	base    *engine.Base
	profile *engine.FaultProfile
	goal    *engine.Goal
}

func (ws *worldSet) arm(e *expectation, s side) (*arm, error) {
	name := e.World
	if s.World != "" {
		name = s.World
	}
	w, err := ws.world(name)
	if err != nil {
		return nil, err
	}
	var texts map[string]string
	if s.Descriptions != "" {
		d, err := ws.descriptions(name, w, s.Descriptions)
		if err != nil {
			return nil, err
		}
		texts = d[s.Variant]
	}
	m, err := personas.NewModelWith(w, s.Variant, texts)
	if err != nil {
		return nil, err
	}
	g := w.Goal(e.Goal)
	if g == nil {
		return nil, fmt.Errorf("world %s has no goal %q", name, e.Goal)
	}
	if err := checkMetric(g, e.Metric); err != nil {
		return nil, fmt.Errorf("world %s: %w", name, err)
	}
	faults := e.Faults
	if faults == "" {
		faults = "none"
	}
	profile, err := w.FindProfile(faults)
	if err != nil {
		return nil, err
	}
	base, err := ws.base(name, w)
	if err != nil {
		return nil, err
	}
	return &arm{model: m, base: base, profile: profile, goal: g}, nil
}

// checkMetric: harmful, achieved and failed are severities; anything else
// must be an outcome class of the goal.
func checkMetric(g *engine.Goal, metric string) error {
	switch metric {
	case "harmful", "achieved", "failed":
		return nil
	}
	var classes []string
	for _, o := range g.Outcomes {
		if o.Class == metric {
			return nil
		}
		classes = append(classes, o.Class)
	}
	return fmt.Errorf("goal %s has no outcome class %q (it has %s; or use harmful, achieved, failed)", g.Name, metric, strings.Join(classes, ", "))
}

func counts(metric string, o personas.Outcome) bool {
	switch metric {
	case "harmful":
		return o.Severity == engine.SeverityHarmful
	case "achieved":
		return o.Severity == engine.SeverityOK
	case "failed":
		return o.Severity == engine.SeverityFailed
	}
	return o.Class == metric
}

// personasOf is who plays the expectation: one built-in persona, or every
// built-in persona in turn (mix). The pointers are reused for every
// episode, as the model's cache expects.
func personasOf(pack *personas.Pack, name string) ([]*personas.Persona, error) {
	if name == "mix" {
		return pack.Personas, nil
	}
	p := pack.Get(name)
	if p == nil {
		return nil, fmt.Errorf("no built-in persona %q (known: mix, %s)", name, strings.Join(pack.Names(), ", "))
	}
	return []*personas.Persona{p}, nil
}

func runExpectation(ws *worldSet, e *expectation, agents int, seed uint64) (*heldoutResult, error) {
	start := time.Now()
	a, err := ws.arm(e, e.A)
	if err != nil {
		return nil, fmt.Errorf("side a: %w", err)
	}
	b, err := ws.arm(e, e.B)
	if err != nil {
		return nil, fmt.Errorf("side b: %w", err)
	}
	cast, err := personasOf(personas.Builtin(), e.Persona)
	if err != nil {
		return nil, err
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), agents))
	type tally struct {
		kA, kB  int
		table   stats.PairedTable
		calledA map[string]int
		calledB map[string]int
		err     error
	}
	tallies := make([]tally, workers)
	var wg sync.WaitGroup
	for wi := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ta := &tallies[wi]
			ta.calledA, ta.calledB = map[string]int{}, map[string]int{}
			for i := wi; i < agents; i += workers {
				p := cast[i%len(cast)]
				agentSeed := entropy.Mix(seed, uint64(i))
				oa, err := a.model.Run(personas.Episode{Base: a.base, Profile: a.profile, Persona: p, Goal: a.goal, Seed: agentSeed})
				if err != nil {
					ta.err = fmt.Errorf("side a, agent %d: %w", i, err)
					return
				}
				ob, err := b.model.Run(personas.Episode{Base: b.base, Profile: b.profile, Persona: p, Goal: b.goal, Seed: agentSeed})
				if err != nil {
					ta.err = fmt.Errorf("side b, agent %d: %w", i, err)
					return
				}
				ta.calledA[calledName(oa)]++
				ta.calledB[calledName(ob)]++
				inA, inB := counts(e.Metric, oa), counts(e.Metric, ob)
				switch {
				case inA && inB:
					ta.table.Both++
				case inA:
					ta.table.OnlyA++
				case inB:
					ta.table.OnlyB++
				default:
					ta.table.Neither++
				}
			}
		}()
	}
	wg.Wait()
	r := &heldoutResult{exp: e, n: agents, calledA: map[string]int{}, calledB: map[string]int{}}
	var table stats.PairedTable
	for _, ta := range tallies {
		if ta.err != nil {
			return nil, ta.err
		}
		table.Both += ta.table.Both
		table.OnlyA += ta.table.OnlyA
		table.OnlyB += ta.table.OnlyB
		table.Neither += ta.table.Neither
		for k, v := range ta.calledA {
			r.calledA[k] += v
		}
		for k, v := range ta.calledB {
			r.calledB[k] += v
		}
	}
	r.kA, r.kB = table.Both+table.OnlyA, table.Both+table.OnlyB
	r.ivA, r.ivB = stats.Wilson(r.kA, agents, confidence), stats.Wilson(r.kB, agents, confidence)
	r.diff, r.diffIv = stats.PairedDiff(table, confidence)
	r.verdict = judge(e.Expect, float64(r.kA)/float64(agents), float64(r.kB)/float64(agents), r.ivA, r.ivB)
	r.runElapsed = time.Since(start)
	return r, nil
}

func calledName(o personas.Outcome) string {
	if o.Called == "" {
		return "(no write)"
	}
	return o.Called
}

// judge decides an expectation from the two rates and their intervals.
// A direction holds when the intervals are apart the expected way and is
// reversed when they are apart the other way; about_equal fails only when
// the rates differ by more than the tolerance with intervals apart.
func judge(expect string, pA, pB float64, ivA, ivB stats.Interval) string {
	bAbove := ivB.Lo > ivA.Hi
	bBelow := ivB.Hi < ivA.Lo
	switch expect {
	case expectAbove:
		if bAbove {
			return verdictHolds
		}
		if bBelow {
			return verdictReversed
		}
	case expectBelow:
		if bBelow {
			return verdictHolds
		}
		if bAbove {
			return verdictReversed
		}
	case expectEqual:
		if math.Abs(pB-pA) > equalTolerance && (bAbove || bBelow) {
			return verdictFails
		}
		return verdictHolds
	}
	return verdictFails
}

func TestHeldoutJudge(t *testing.T) {
	iv := func(lo, hi float64) stats.Interval { return stats.Interval{Lo: lo, Hi: hi} }
	cases := []struct {
		expect   string
		pA, pB   float64
		ivA, ivB stats.Interval
		want     string
	}{
		{expectAbove, 0.10, 0.30, iv(0.08, 0.12), iv(0.27, 0.33), verdictHolds},
		{expectAbove, 0.10, 0.12, iv(0.08, 0.12), iv(0.10, 0.14), verdictFails},
		{expectAbove, 0.30, 0.10, iv(0.27, 0.33), iv(0.08, 0.12), verdictReversed},
		{expectBelow, 0.30, 0.10, iv(0.27, 0.33), iv(0.08, 0.12), verdictHolds},
		{expectBelow, 0.10, 0.30, iv(0.08, 0.12), iv(0.27, 0.33), verdictReversed},
		{expectEqual, 0.10, 0.11, iv(0.08, 0.12), iv(0.09, 0.13), verdictHolds},
		// Apart but within the tolerance: still about equal.
		{expectEqual, 0.000, 0.015, iv(0, 0.004), iv(0.009, 0.025), verdictHolds},
		{expectEqual, 0.10, 0.30, iv(0.08, 0.12), iv(0.27, 0.33), verdictFails},
		// More than the tolerance apart in rate, but intervals overlap.
		{expectEqual, 0.10, 0.13, iv(0.07, 0.14), iv(0.10, 0.16), verdictHolds},
	}
	for _, c := range cases {
		if got := judge(c.expect, c.pA, c.pB, c.ivA, c.ivB); got != c.want {
			t.Errorf("judge(%s, %.3f %v, %.3f %v) = %s, want %s", c.expect, c.pA, c.ivA, c.pB, c.ivB, got, c.want)
		}
	}
}

// explainSides shows, for -v runs, why each side's agents chose what they
// chose: the model's first-choice explanation per persona, and the first
// write tool the agents actually called.
func explainSides(t *testing.T, ws *worldSet, e *expectation, r *heldoutResult) {
	t.Helper()
	cast, err := personasOf(personas.Builtin(), e.Persona)
	if err != nil {
		t.Errorf("%v", err)
		return
	}
	for _, s := range []struct {
		label  string
		side   side
		called map[string]int
	}{{"a", e.A, r.calledA}, {"b", e.B, r.calledB}} {
		ar, err := ws.arm(e, s.side)
		if err != nil {
			t.Errorf("side %s: %v", s.label, err)
			continue
		}
		var sb strings.Builder
		fmt.Fprintf(&sb, "side %s: %s\n", s.label, sideText(s.side))
		for _, p := range cast {
			fmt.Fprintf(&sb, "  persona %s, first choice:\n", p.Name)
			parts := ar.model.Explain(p, ar.goal)
			slices.SortStableFunc(parts, func(x, y personas.ScoreParts) int {
				switch {
				case x.P > y.P:
					return -1
				case x.P < y.P:
					return 1
				}
				return 0
			})
			for _, sp := range parts {
				fmt.Fprintf(&sb, "    %5.1f%%  %+v\n", 100*sp.P, sp)
			}
		}
		fmt.Fprintf(&sb, "  first write tool called, over %d agents:\n", r.n)
		for _, tool := range slices.Sorted(maps.Keys(s.called)) {
			fmt.Fprintf(&sb, "    %-20s %5d\n", tool, s.called[tool])
		}
		t.Log("\n" + sb.String())
	}
}

func sideText(s side) string {
	out := "variant " + s.Variant
	if s.Descriptions != "" {
		out += " + " + s.Descriptions
	}
	if s.World != "" {
		out += " on world " + s.World
	}
	return out
}

func rateText(k, n int, iv stats.Interval) string {
	return fmt.Sprintf("%.1f%% [%.1f–%.1f]", 100*float64(k)/float64(n), 100*iv.Lo, 100*iv.Hi)
}

func worldOf(e *expectation) string { return strings.TrimPrefix(e.World, "mock:") }

// heldoutTable renders the results as markdown: every expectation, then
// the share that holds per style, per world and overall, then the
// reversed ones.
func heldoutTable(results []*heldoutResult, agents int, elapsed time.Duration) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "Held-out expectations: %d agents per side, paired by seed; rates with 95%% Wilson intervals.\n\n", agents)
	sb.WriteString("| ID | PERSONA | METRIC | EXPECT | A | B | B − A [95% CI] | VERDICT |\n|---|---|---|---|---|---|---|---|\n")
	for _, r := range results {
		fmt.Fprintf(&sb, "| %s | %s | %s | %s | %s | %s | %+.1f [%+.1f, %+.1f] | %s |\n", r.exp.ID, r.exp.Persona, r.exp.Metric, r.exp.Expect,
			rateText(r.kA, r.n, r.ivA), rateText(r.kB, r.n, r.ivB), 100*r.diff, 100*r.diffIv.Lo, 100*r.diffIv.Hi, r.verdict)
	}
	share := func(title string, key func(*expectation) string) {
		held, total := map[string]int{}, map[string]int{}
		for _, r := range results {
			k := key(r.exp)
			total[k]++
			if r.verdict == verdictHolds {
				held[k]++
			}
		}
		fmt.Fprintf(&sb, "\n| %s | HOLD | OF | SHARE |\n|---|---|---|---|\n", title)
		for _, k := range slices.Sorted(maps.Keys(total)) {
			fmt.Fprintf(&sb, "| %s | %d | %d | %.0f%% |\n", k, held[k], total[k], 100*float64(held[k])/float64(total[k]))
		}
	}
	share("STYLE", func(e *expectation) string { return e.Style })
	share("WORLD", worldOf)
	share("BATCH", func(e *expectation) string { return fmt.Sprintf("batch %d", max(e.Batch, 1)) })
	held, reversed := 0, []string{}
	for _, r := range results {
		switch r.verdict {
		case verdictHolds:
			held++
		case verdictReversed:
			reversed = append(reversed, r.exp.ID)
		}
	}
	if len(results) > 0 {
		fmt.Fprintf(&sb, "\nOverall: %d of %d hold (%.1f%%).\n", held, len(results), 100*float64(held)/float64(len(results)))
	}
	if len(reversed) == 0 {
		sb.WriteString("Reversed: none.\n")
	} else {
		fmt.Fprintf(&sb, "Reversed (%d): %s.\n", len(reversed), strings.Join(reversed, ", "))
	}
	fmt.Fprintf(&sb, "Run time: %.1f s.\n", elapsed.Seconds())
	return sb.String()
}
