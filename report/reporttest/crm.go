// Package reporttest builds realistic, deterministic results documents for
// tests and benchmarks of the report package and the commands that read
// results, without running a swarm.
//
// CRM simulates a crm-like world agent by agent, the way the swarm does: each
// agent's persona, goal and outcomes are a pure function of (seed, agent
// index), the outcome under every variant comes from the same uniform draw
// (so variants are paired, like the real ones), and a small aggregator
// tallies counts, paired tables, faults, confusions, invariants, sampled
// traces and flips, and — when asked — latency histograms. Sharding keeps the
// agents with index mod n = k, so merging the shard documents must give the
// unsharded document exactly.
package reporttest

import (
	"fmt"
	"math"
	"strings"

	"github.com/herd-sh/herd/report"
)

// Config describes one simulated run. The zero value of every field but
// Agents has a sensible default.
type Config struct {
	Seed          uint64
	Agents        int
	Variants      []string      // default clear, ambiguous
	Shard         *report.Shard // nil: the whole run
	Timing        bool          // add latency histograms and in-flight samples
	Thresholds    []string      // evaluated on the document at the end
	ExtraGoals    int           // goals beyond the three crm ones (goal_04, …)
	ExtraPersonas int           // personas beyond the seven built-in ones
	Partial       bool          // mark the run interrupted
}

// outcomeClass is a class with its probability under the clear and the
// ambiguous wording, before persona adjustment.
type outcomeClass struct {
	name, severity   string
	clear, ambiguous float64
	tool             string // the write tool an agent called on the way to this class
}

type goalSpec struct {
	name    string
	meant   string // the tool the ok outcome needs
	lookup  string
	classes []outcomeClass // world order; the last one takes what is left
}

var crmGoals = []goalSpec{
	{"hide_contact", "archive_contact", "list_contacts", []outcomeClass{
		{"destroyed_data", report.SeverityHarmful, 0.03, 0.19, "delete_contact"},
		{"wrong_record", report.SeverityHarmful, 0.02, 0.03, "archive_contact"},
		{"achieved", report.SeverityOK, 0.85, 0.70, "archive_contact"},
		{"not_achieved", report.SeverityFailed, 0, 0, "archive_contact"},
	}},
	{"update_email", "update_contact", "list_contacts", []outcomeClass{
		{"overwrote_newer", report.SeverityHarmful, 0.04, 0.06, "replace_contact"},
		{"wrong_record", report.SeverityHarmful, 0.02, 0.05, "update_contact"},
		{"achieved", report.SeverityOK, 0.86, 0.80, "update_contact"},
		{"not_achieved", report.SeverityFailed, 0, 0, "update_contact"},
	}},
	{"lookup_contact", "get_contact", "list_contacts", []outcomeClass{
		{"modified_data", report.SeverityHarmful, 0.005, 0.01, "update_contact"},
		{"wrong_answer", report.SeverityFailed, 0.05, 0.09, "get_contact"},
		{"achieved", report.SeverityOK, 0.90, 0.85, "get_contact"},
		{"not_achieved", report.SeverityFailed, 0, 0, "get_contact"},
	}},
}

type personaSpec struct {
	name   string
	weight float64
	harm   float64 // multiplier on harmful probabilities
}

var crmPersonas = []personaSpec{
	{"careful", 0.2, 0.4}, {"hasty", 0.2, 1.6}, {"literal", 0.15, 1.0}, {"novice", 0.15, 1.3},
	{"retrier", 0.1, 1.0}, {"explorer", 0.1, 1.1}, {"adversarial", 0.1, 1.5},
}

// meanHarm keeps the population's harmful rates at the table's values.
const meanHarm = 0.2*0.4 + 0.2*1.6 + 0.15*1.0 + 0.15*1.3 + 0.1*1.0 + 0.1*1.1 + 0.1*1.5

var contactNames = []string{"Ada Lovelace", "Jon Smith", "John Smith", "Grace Hopper", "Alan Turing",
	"Katherine Johnson", "Edsger Dijkstra", "Barbara Liskov", "Ken Thompson", "Radia Perlman"}

// world is the simulated world for one config.
type world struct {
	cfg      Config
	variants []string
	goals    []goalSpec
	personas []personaSpec
	cum      []float64 // cumulative persona weights
}

func newWorld(cfg Config) *world {
	w := &world{cfg: cfg, variants: cfg.Variants}
	if len(w.variants) == 0 {
		w.variants = []string{"clear", "ambiguous"}
	}
	w.goals = append(w.goals, crmGoals...)
	for i := range cfg.ExtraGoals {
		g := crmGoals[i%len(crmGoals)]
		g.name = fmt.Sprintf("goal_%02d", len(crmGoals)+i+1)
		w.goals = append(w.goals, g)
	}
	w.personas = append(w.personas, crmPersonas...)
	for i := range cfg.ExtraPersonas {
		w.personas = append(w.personas, personaSpec{fmt.Sprintf("persona_%02d", len(crmPersonas)+i+1), 0.1, 1.0})
	}
	total := 0.0
	for _, p := range w.personas {
		total += p.weight
	}
	acc := 0.0
	for _, p := range w.personas {
		acc += p.weight / total
		w.cum = append(w.cum, acc)
	}
	return w
}

// Purposes keep the random draws of one agent independent of each other.
const (
	purposePersona = iota + 1
	purposeGoal
	purposeSeed
	purposeOutcome
	purposeFault
	purposeInvariant
	purposeLatency
	purposeTrace
)

func splitmix(x uint64) uint64 {
	x += 0x9E3779B97F4A7C15
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9
	x = (x ^ (x >> 27)) * 0x94D049BB133111EB
	return x ^ (x >> 31)
}

func hash(vals ...uint64) uint64 {
	h := uint64(0x243F6A8885A308D3)
	for _, v := range vals {
		h = splitmix(h ^ v)
	}
	return h
}

func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// agent is one simulated agent.
type agent struct {
	index   int
	seed    uint64
	persona int
	goal    int
}

func (w *world) agent(i int) agent {
	u := unit(hash(w.cfg.Seed, uint64(i), purposePersona))
	p := len(w.cum) - 1
	for k, c := range w.cum {
		if u < c {
			p = k
			break
		}
	}
	return agent{
		index:   i,
		seed:    hash(w.cfg.Seed, uint64(i), purposeSeed),
		persona: p,
		goal:    int(hash(w.cfg.Seed, uint64(i), purposeGoal) % uint64(len(w.goals))),
	}
}

// classProb is a class's probability for a persona under a variant; the
// wordings other than clear and ambiguous sit halfway.
func (w *world) classProb(c outcomeClass, persona personaSpec, variant string) float64 {
	p := (c.clear + c.ambiguous) / 2
	switch variant {
	case "clear":
		p = c.clear
	case "ambiguous":
		p = c.ambiguous
	}
	if c.severity == report.SeverityHarmful {
		p *= persona.harm / meanHarm
	}
	return p
}

// outcome is the class index an agent ends in under a variant. The uniform
// draw is the same for every variant: that is what makes variants paired.
func (w *world) outcome(a agent, variant string) int {
	g := w.goals[a.goal]
	u := unit(hash(a.seed, purposeOutcome))
	acc := 0.0
	for k, c := range g.classes[:len(g.classes)-1] {
		acc += w.classProb(c, w.personas[a.persona], variant)
		if u < acc {
			return k
		}
	}
	return len(g.classes) - 1
}

func (w *world) inShard(i int) bool {
	s := w.cfg.Shard
	return s == nil || i%s.Count == s.Index
}

// CRM simulates the run cfg describes and returns its results document.
func CRM(cfg Config) *report.Results {
	w := newWorld(cfg)
	agg := newAggregator(w)
	mix := make([]int, len(w.personas))
	for i := range cfg.Agents {
		a := w.agent(i)
		mix[a.persona]++ // the mix counts the whole run, whatever the shard
		if w.inShard(i) {
			agg.add(a)
		}
	}
	res := agg.results(mix)
	if len(cfg.Thresholds) > 0 {
		ts, err := report.ParseThresholds(res, cfg.Thresholds)
		if err != nil {
			panic("reporttest: " + err.Error())
		}
		res.Thresholds = report.Evaluate(res, ts)
	}
	res.Normalize()
	return res
}

// command is the reproducing command line of the run: the whole run's,
// shard or not, as herd swarm records it.
func (w *world) command() string {
	return fmt.Sprintf("herd swarm mock:crm --agents %d --seed %d --variant %s --faults realistic",
		w.cfg.Agents, w.cfg.Seed, strings.Join(w.variants, ","))
}

// lognormal draws a latency in microseconds, rounded as an HDR histogram
// with three significant digits would bucket it.
func lognormal(h uint64, medianUS, sigma float64) int64 {
	u1 := math.Max(unit(h), 1e-12)
	u2 := unit(splitmix(h))
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	v := medianUS * math.Exp(sigma*z)
	return hdrRound(int64(math.Max(v, 1)))
}

// hdrRound keeps three significant digits.
func hdrRound(v int64) int64 {
	scale := int64(1)
	for v/scale >= 1000 {
		scale *= 10
	}
	return v / scale * scale
}
