package herdmcp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// DefaultAgents is a run's agents when the request gives none: as herd
// swarm's default, enough for every goal of a built-in world to reach
// the episodes a verdict needs.
const DefaultAgents = 1000

// maxMixWeight bounds a mix weight, so that a sum of weights stays a
// finite, exact number.
const maxMixWeight = 1e9

// RunInput is what a run may choose: everything within the configured
// worlds, descriptions files and caps.
type RunInput struct {
	World        string      `json:"world" jsonschema:"the world to run, by name, from the server's configured worlds (list_worlds lists them)"`
	Variants     []string    `json:"variants,omitempty" jsonschema:"description variant(s) to run the same agents under (default: the world's first); two or more give a paired comparison"`
	Faults       string      `json:"faults,omitempty" jsonschema:"fault profile: none (default), realistic, hostile, or one the world defines"`
	Mix          []MixWeight `json:"mix,omitempty" jsonschema:"the persona population, in order (default: every built-in persona, equal weights)"`
	Agents       int         `json:"agents,omitempty" jsonschema:"number of agents, each running one episode per variant (default 1000; at most the server's cap)"`
	Seed         *uint64     `json:"seed,omitempty" jsonschema:"run seed (default: the world's seed); the same seed gives the same outcome counts"`
	Goals        []string    `json:"goals,omitempty" jsonschema:"goals to run (default: every goal of the world)"`
	Thresholds   []string    `json:"thresholds,omitempty" jsonschema:"readiness thresholds, e.g. harmful<5% or hide_contact:destroyed_data<1%"`
	Strict       bool        `json:"strict,omitempty" jsonschema:"an INCONCLUSIVE threshold fails the verdict too"`
	Descriptions string      `json:"descriptions,omitempty" jsonschema:"a descriptions file of your own tool wordings, by name, from the server's configured ones"`
}

// MixWeight is one persona of the population with its relative weight.
type MixWeight struct {
	Persona string  `json:"persona" jsonschema:"a built-in persona: careful, hasty, literal, novice, retrier, explorer, adversarial, …"`
	Weight  float64 `json:"weight" jsonschema:"relative weight (1 and 3 mean a quarter and three quarters)"`
}

// RunOutput is a run's answer.
type RunOutput struct {
	RunID       string `json:"run_id"`
	Resource    string `json:"resource"`     // herd-results://RUN_ID
	ResultsFile string `json:"results_file"` // where the document was written
	World       string `json:"world"`
	Seed        uint64 `json:"seed"`
	Agents      int    `json:"agents"`
	// Command is the herd swarm line that reproduces the run exactly.
	Command string `json:"command"`
	// Verdict is READY, NOT READY or INCONCLUSIVE over the thresholds,
	// "" with none; Passed says whether it passes as a gate would.
	Verdict  string         `json:"verdict"`
	Passed   bool           `json:"passed"`
	Partial  bool           `json:"partial"`
	Stopped  string         `json:"stopped,omitempty"` // why a partial run stopped
	Episodes int            `json:"episodes"`          // finished
	Planned  int            `json:"planned"`
	Outcomes []OutcomeCount `json:"outcomes"`
	// Comparisons are the paired variant comparisons (two variants or
	// more).
	Comparisons []ComparisonOut `json:"comparisons,omitempty"`
}

// OutcomeCount is how many episodes of a goal under a variant ended in a
// class, over every persona.
type OutcomeCount struct {
	Goal     string `json:"goal"`
	Variant  string `json:"variant"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
	N        int    `json:"n"`
}

// ComparisonOut is one paired comparison of two wordings.
type ComparisonOut struct {
	Goal  string  `json:"goal"`
	Class string  `json:"class"`
	A     string  `json:"a"`
	B     string  `json:"b"`
	RateA float64 `json:"rate_a"`
	RateB float64 `json:"rate_b"`
	Diff  float64 `json:"diff"` // rate_b − rate_a
	DiffL float64 `json:"diff_lo"`
	DiffH float64 `json:"diff_hi"`
	P     float64 `json:"p_value"` // McNemar's exact test
	// Significant is p < 0.05 with a non-zero difference.
	Significant bool `json:"significant"`
}

// preparedRun is a run checked and planned, not yet started.
type preparedRun struct {
	cw         configuredWorld
	cfg        swarm.Config
	plan       *swarm.Plan
	thresholds []string
	strict     bool
	id         string
}

// refusal is a request the configuration does not allow, or that does
// not make sense: a tool error, never a protocol error.
type refusal struct{ msg string }

func (r *refusal) Error() string { return r.msg }

func refuse(format string, args ...any) error { return &refusal{fmt.Sprintf(format, args...)} }

// prepare checks a run request against the configuration and plans it.
// Nothing runs and nothing is written.
func (c *catalogue) prepare(in RunInput) (*preparedRun, error) {
	cw, err := c.world(in.World)
	if err != nil {
		return nil, &refusal{err.Error()}
	}
	w := cw.world
	agents := in.Agents
	if agents == 0 {
		agents = DefaultAgents
	}
	if agents < 0 {
		return nil, refuse("agents: must be at least 1, got %d", agents)
	}
	if agents > c.maxAgents {
		return nil, refuse("agents: %s is above this server's cap of %s agents (%s); raise the cap in the server's configuration (%s N) to run more",
			report.Thousands(int64(agents)), report.Thousands(int64(c.maxAgents)), c.caps.MaxAgents, c.caps.MaxAgents)
	}
	cfg := swarm.Config{World: w, WorldRef: cw.ref, Agents: agents, Workers: c.workers, Seed: w.DefaultSeed}
	if in.Seed != nil {
		cfg.Seed = *in.Seed
	}
	file, err := c.descriptionsFile(in.Descriptions)
	if err != nil {
		return nil, &refusal{err.Error()}
	}
	var descs *lint.Descriptions
	if file.Path != "" {
		if descs, err = lint.ReadDescriptions(file.Path, w); err != nil {
			return nil, refuse("descriptions %s: %v", file.Name, err)
		}
		cfg.Descriptions = descs.Texts
	}
	var goalNames []string
	for _, name := range in.Goals {
		g := w.Goal(name)
		if g == nil {
			return nil, refuse("goals: world %s has no goal %q (it has %s)", w.Name, name, strings.Join(goalList(w), ", "))
		}
		if slices.Contains(cfg.Goals, g) {
			return nil, refuse("goals: %q given twice", name)
		}
		cfg.Goals = append(cfg.Goals, g)
		goalNames = append(goalNames, name)
	}
	known := lint.VariantNames(w, cfg.Descriptions)
	var given []string // as asked: herd swarm's line names variants only when given
	for _, v := range in.Variants {
		v = strings.TrimSpace(v)
		if !slices.Contains(known, v) {
			return nil, &refusal{unknownVariant("variants", w, v, known).Error()}
		}
		if slices.Contains(cfg.Variants, v) {
			return nil, refuse("variants: %q given twice", v)
		}
		cfg.Variants = append(cfg.Variants, v)
		given = append(given, v)
	}
	if len(cfg.Variants) == 0 {
		cfg.Variants = []string{w.DefaultVariant()}
	}
	if descs != nil {
		// As herd swarm: a variant the file defines but the run does not
		// use is more likely a typo than a wording nobody asked about.
		if err := descs.CheckVariants(cfg.Variants); err != nil {
			return nil, refuse("descriptions %s: %v", file.Name, err)
		}
	}
	mix, mixLine, err := personaMix(in.Mix)
	if err != nil {
		return nil, err
	}
	cfg.Mix = mix
	faults := in.Faults
	if faults == "" {
		faults = engine.NoFaults
	}
	if cfg.Profile, err = w.FindProfile(faults); err != nil {
		return nil, refuse("faults: %v", err)
	}
	cfg.Replay = swarm.ReplaySpec{World: cw.ref, Agents: agents, Seed: cfg.Seed, Goals: goalNames, Mix: mixLine,
		Faults: cfg.Profile.Name, Descriptions: file.Path}
	cfg.ReplayCommand = c.commands.Replay
	cfg.Command = c.commands.Swarm(cfg.Replay, given)
	plan, err := swarm.NewPlan(cfg)
	if err != nil {
		return nil, refuse("%v", err)
	}
	if err := plan.CheckThresholds(in.Thresholds, false); err != nil {
		return nil, refuse("thresholds: %v", fieldCause(err))
	}
	return &preparedRun{cw: cw, cfg: cfg, plan: plan, thresholds: in.Thresholds, strict: in.Strict,
		id: runID(w.Name, cfg.Command, in.Thresholds, in.Strict)}, nil
}

// fieldCause is a swarm field error's message without its field name.
func fieldCause(err error) error {
	if fe, ok := swarm.AsFieldError(err); ok {
		return fe.Err
	}
	return err
}

// personaMix is the population of a run from the built-in pack, and the
// same mix written as herd swarm's mix is ("careful=0.5,hasty=0.5", ""
// for the default), in the request's order: the order decides which
// agent plays whom.
func personaMix(in []MixWeight) ([]swarm.MixEntry, string, error) {
	pack := personas.Builtin()
	if len(in) == 0 {
		return swarm.PackMix(pack), "", nil
	}
	var mix []swarm.MixEntry
	var parts []string
	total := 0.0
	for _, m := range in {
		p := pack.Get(m.Persona)
		if p == nil {
			return nil, "", refuse("mix: unknown persona %q (known: %s)", m.Persona, strings.Join(pack.Names(), ", "))
		}
		for _, e := range mix {
			if e.Persona == p {
				return nil, "", refuse("mix: persona %q given twice", m.Persona)
			}
		}
		if m.Weight < 0 || math.IsNaN(m.Weight) || m.Weight > maxMixWeight {
			return nil, "", refuse("mix: persona %s: weight %v must be between 0 and %.0f (weights are relative)", m.Persona, m.Weight, maxMixWeight)
		}
		total += m.Weight
		mix = append(mix, swarm.MixEntry{Persona: p, Weight: m.Weight})
		parts = append(parts, m.Persona+"="+strconv.FormatFloat(m.Weight, 'g', -1, 64))
	}
	if total <= 0 {
		return nil, "", refuse("mix: the weights sum to zero")
	}
	return mix, strings.Join(parts, ","), nil
}

func goalList(w *engine.World) []string {
	out := make([]string, len(w.Goals))
	for i, g := range w.Goals {
		out[i] = g.Name
	}
	return out
}

// runProgress is told how far a run is.
type runProgress func(done, total int, msg string)

// execute runs a prepared run within the run-time cap, writes its results
// (partial ones too: what finished is kept) and builds the answer. A run
// stopped by ctx (the client cancelled) or by the cap is answered with
// what finished; its answer says why it stopped.
func (c *catalogue) execute(ctx context.Context, pr *preparedRun, progress runProgress, store resultsStore) (*RunOutput, string, error) {
	runCtx, cancel := context.WithTimeoutCause(ctx, c.maxRunTime, errRunTimeCap)
	defer cancel()
	if progress != nil {
		pr.plan.SetProgress(func(p swarm.Progress) {
			progress(p.Done, p.Total, fmt.Sprintf("%s of %s episodes, %s harmful", report.Thousands(int64(p.Done)), report.Thousands(int64(p.Total)), report.Thousands(int64(p.Harmful))))
		}, 250*time.Millisecond)
	}
	res, err := pr.plan.Run(runCtx, swarm.InProcess{})
	if res == nil {
		return nil, "", fmt.Errorf("run %s: %w", pr.id, err)
	}
	res.Lint = pr.cfg.LintFindings()
	res.LintTokens = pr.cfg.LintTokens()
	if len(pr.thresholds) > 0 {
		ts, err := report.ParseThresholds(res, pr.thresholds)
		if err != nil {
			return nil, "", refuse("thresholds: %v", err)
		}
		res.Thresholds = report.Evaluate(res, ts)
	}
	path, err := store.save(pr.id, res)
	if err != nil {
		return nil, "", err
	}
	out := &RunOutput{RunID: pr.id, Resource: resultsURI(pr.id), ResultsFile: path, World: pr.cw.world.Name,
		Seed: res.Run.Seed, Agents: pr.cfg.Agents, Command: res.Run.Command,
		Verdict: report.Overall(res.Thresholds), Passed: report.ExitCode(res.Thresholds, pr.strict) == 0,
		Partial: res.Partial, Episodes: res.Episodes, Planned: pr.plan.Episodes(),
		Outcomes: outcomeCounts(res), Comparisons: comparisons(res)}
	if res.Partial {
		switch {
		case errors.Is(context.Cause(runCtx), errRunTimeCap):
			out.Stopped = fmt.Sprintf("stopped at this server's cap of %s run time (%s); raise the cap in the server's configuration (%s DURATION) for longer runs",
				c.maxRunTime, c.caps.MaxRunTime, c.caps.MaxRunTime)
		default:
			out.Stopped = "cancelled by the client"
		}
	}
	var summary bytes.Buffer
	// The one-screen summary suits a chat; read_results gives every table.
	footer := []string{"every table: read_results " + pr.id}
	if err := report.Terminal(&summary, res, report.TerminalOptions{Plain: true, Footer: footer}); err != nil {
		return nil, "", fmt.Errorf("rendering the summary of run %s: %w", pr.id, err)
	}
	return out, summary.String(), nil
}

// errRunTimeCap is the cause of a run stopped by MaxRunTime.
var errRunTimeCap = errors.New("the run-time cap")

// outcomeCounts sums the document's counts over personas.
func outcomeCounts(res *report.Results) []OutcomeCount {
	var out []OutcomeCount
	at := map[[3]string]int{}
	for _, c := range res.Counts {
		k := [3]string{c.Goal, c.Variant, c.Class}
		if i, ok := at[k]; ok {
			out[i].N += c.N
			continue
		}
		at[k] = len(out)
		out = append(out, OutcomeCount{Goal: c.Goal, Variant: c.Variant, Class: c.Class, Severity: c.Severity, N: c.N})
	}
	return out
}

// comparisons are the document's paired comparisons where some agent
// ended in the class under either wording.
func comparisons(res *report.Results) []ComparisonOut {
	var out []ComparisonOut
	for _, c := range res.Comparisons() {
		if c.Table.Both+c.Table.OnlyA+c.Table.OnlyB == 0 {
			continue
		}
		out = append(out, ComparisonOut{Goal: c.Goal, Class: c.Class, A: c.A, B: c.B, RateA: c.RateA.P, RateB: c.RateB.P,
			Diff: c.Diff, DiffL: c.CI.Lo, DiffH: c.CI.Hi, P: c.P, Significant: c.P < 0.05 && c.Diff != 0})
	}
	return out
}

// header is the first lines of a run's text answer: what a reader must
// see even if they read nothing else.
func (o *RunOutput) header() string {
	var b strings.Builder
	verdict := o.Verdict
	if verdict == "" {
		verdict = "no thresholds given"
	}
	fmt.Fprintf(&b, "run %s · world %s · seed %d · %s agents · verdict: %s\n", o.RunID, o.World, o.Seed, report.Thousands(int64(o.Agents)), verdict)
	if o.Partial {
		fmt.Fprintf(&b, "PARTIAL: %s; %s of %s episodes finished, and the results hold those\n", o.Stopped, report.Thousands(int64(o.Episodes)), report.Thousands(int64(o.Planned)))
	}
	fmt.Fprintf(&b, "replay:  %s\n", o.Command)
	fmt.Fprintf(&b, "results: %s (resource %s)\n", o.ResultsFile, o.Resource)
	return b.String()
}

// comparisonText is the paired comparisons, one line each.
func comparisonText(cs []ComparisonOut) string {
	if len(cs) == 0 {
		return "no outcome differs between the wordings: no agent ended in a compared class under either\n"
	}
	var b strings.Builder
	for _, c := range cs {
		mark := "no significant change"
		if c.Significant {
			mark = "significant"
		}
		fmt.Fprintf(&b, "%s · %s: %s %.1f%% → %s %.1f%% (%+.1f points, 95%% CI %+.1f to %+.1f, McNemar p=%.3g, %s)\n",
			c.Goal, c.Class, c.A, 100*c.RateA, c.B, 100*c.RateB, 100*c.Diff, 100*c.DiffL, 100*c.DiffH, c.P, mark)
	}
	return b.String()
}
