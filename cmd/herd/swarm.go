package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/herd-sh/herd/calibrate"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/otlp"
	"github.com/herd-sh/herd/swarm/target"
	"github.com/herd-sh/herd/worlds"
)

// swarmOptions are the flags shared by swarm and replay: everything that
// decides what an agent does.
type swarmOptions struct {
	world        string
	agents       int
	seed         uint64
	goals        []string
	mix          string
	personas     string
	faults       string
	variants     []string
	workers      int
	shard        string
	maxAgents    int
	descriptions string
	// set records which of these flags the user gave (read once, where
	// cobra parsed them): a flag's default and the same value given can
	// mean different things (--seed 0 is not the world's seed).
	set givenFlags
}

// givenFlags are the flags of swarm and replay whose being given, not
// only their value, changes what the command does.
type givenFlags struct {
	agents, seed, workers, faults, agent                   bool
	goal, mix, personas, variant, descriptions, shard      bool
	world, rate, duration, arrival, maxInFlight, allowHost bool
	callTimeout, token, allowWrites, otlp, progress        bool
	maxResponse                                            bool
}

// recordGiven reads which flags fs was given.
func recordGiven(fs *pflag.FlagSet) givenFlags {
	c := fs.Changed
	return givenFlags{
		agents: c("agents"), seed: c("seed"), workers: c("workers"), faults: c("faults"), agent: c("agent"),
		goal: c("goal"), mix: c("mix"), personas: c("personas"), variant: c("variant"), descriptions: c("descriptions"), shard: c("shard"),
		world: c("world"), rate: c("rate"), duration: c("duration"), arrival: c("arrival"), maxInFlight: c("max-in-flight"), allowHost: c("allow-host"),
		callTimeout: c("call-timeout"), token: c("token"), allowWrites: c("allow-writes"), otlp: c("otlp"), progress: c("progress"),
		maxResponse: c("max-response-bytes"),
	}
}

// defaultAgents is --agents when it is not given: enough for every goal of
// a world with three goals (each of the built-in ones has two or three) to
// reach the 300 episodes a verdict needs, so that the first run a newcomer
// sees can decide; a thousand agents take well under a second in-process
// (0.07–0.3 s whole-process on a shared 2-core machine).
const defaultAgents = 1000

func (o *swarmOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.IntVar(&o.agents, "agents", defaultAgents, "number of agents (each runs one episode per variant)")
	f.Uint64Var(&o.seed, "seed", 0, "run seed (default: the world's seed); the same seed replays the same run")
	f.StringArrayVar(&o.goals, "goal", nil, "goal to run (repeatable; default: every goal of the world)")
	f.StringVar(&o.mix, "mix", "", "persona weights, e.g. careful=0.5,hasty=0.5 (default: the whole pack, equal weights)")
	f.StringVar(&o.personas, "personas", "", "persona pack YAML file (default: the built-in pack)")
	f.StringVar(&o.faults, "faults", engine.NoFaults, "fault profile: none, realistic, hostile, or one the world defines")
	f.StringSliceVar(&o.variants, "variant", nil, "description variant(s), comma-separated, e.g. clear,ambiguous (default: the world's first)")
	f.IntVar(&o.workers, "workers", 0, "worker goroutines (default: GOMAXPROCS)")
	f.StringVar(&o.shard, "shard", "", "run only shard k of n (k/n, 0-based): agents with i mod n == k")
	f.IntVar(&o.maxAgents, "max-agents", swarm.MaxAgents, "refuse --agents above this cap")
	f.StringVar(&o.descriptions, "descriptions", "", "YAML file of your own tool descriptions (tool: text, or tool: {variant: text}) overriding the world's")
}

// checkCounts checks --max-agents, the run's agents (--agents, or what a
// duration-bound load holds) and --workers, which every kind of target
// uses, so that a bad one is refused before any target is contacted or
// started.
func (o *swarmOptions) checkCounts(agents int) error {
	// --max-agents can only lower the hard cap: swarm.NewPlan enforces it.
	if o.maxAgents < 1 || o.maxAgents > swarm.MaxAgents {
		return usageErrf("--max-agents: must be between 1 and %d, got %d", swarm.MaxAgents, o.maxAgents)
	}
	if agents < 1 || agents > o.maxAgents {
		return usageErrf("--agents: must be between 1 and %d, got %d", o.maxAgents, agents)
	}
	if o.set.workers && (o.workers < 1 || o.workers > swarm.MaxWorkers) {
		return usageErrf("--workers: must be between 1 and %d, got %d", swarm.MaxWorkers, o.workers)
	}
	return nil
}

// personaMix is the run's population: --mix over the persona pack.
func (o *swarmOptions) personaMix() ([]swarm.MixEntry, error) {
	pack := personas.Builtin()
	if o.personas != "" {
		var err error
		if pack, err = personas.LoadPack(o.personas); err != nil {
			return nil, usageErr(err)
		}
	}
	mix, err := parseMix(o.mix, pack)
	if err != nil {
		return nil, usageErr(err)
	}
	return mix, nil
}

// checkWorldFree checks what does not depend on the world: the persona
// pack and --mix, --shard, the form of every threshold. A running server
// must be asked which world it serves before the rest can be checked;
// these are refused before it is contacted.
func (o *swarmCmdOptions) checkWorldFree() error {
	if _, err := o.personaMix(); err != nil {
		return err
	}
	if o.shard != "" {
		if _, err := parseShard(o.shard); err != nil {
			return usageErr(err)
		}
	}
	for _, spec := range o.thresholds {
		if _, err := report.ParseThreshold(spec); err != nil {
			return usageErrf("--threshold: %v", err)
		}
	}
	return nil
}

// runSettings are what a run uses that the flags alone do not say: the
// world, faults and variants a served herd world adopts where the flags
// give none (swarm.Reached.Adopt), and the agents a duration-bound load
// holds. They are derived, never written back into the options.
type runSettings struct {
	swarm.Settings
	agents int
}

// settings are the run's settings from the flags alone.
func (o *swarmOptions) settings() runSettings {
	rs := runSettings{Settings: swarm.Settings{World: o.world, Variants: o.variants}, agents: o.agents}
	if o.set.faults {
		rs.Faults = o.faults
	}
	return rs
}

// config turns the flags, with the run's settings, into a swarm
// configuration.
func (o *swarmOptions) config(rs runSettings) (swarm.Config, error) {
	var cfg swarm.Config
	if err := o.checkCounts(rs.agents); err != nil {
		return cfg, err
	}
	w, err := worlds.Resolve(rs.World)
	if err != nil {
		return cfg, usageErr(err)
	}
	cfg.World, cfg.WorldRef, cfg.Agents, cfg.Workers = w, rs.World, rs.agents, o.workers
	cfg.Seed = w.DefaultSeed
	if o.set.seed {
		cfg.Seed = o.seed
	}
	for _, name := range o.goals {
		g := w.Goal(name)
		if g == nil {
			return cfg, usageErrf("--goal: world %s has no goal %q (it has %s)", w.Name, name, goalNames(w))
		}
		if slices.Contains(cfg.Goals, g) {
			// Its agents would be counted under one name twice over.
			return cfg, usageErrf("--goal: %q given twice", name)
		}
		cfg.Goals = append(cfg.Goals, g)
	}
	if cfg.Mix, err = o.personaMix(); err != nil {
		return cfg, err
	}
	if cfg.Profile, err = faultProfile(w, cmp.Or(rs.Faults, engine.NoFaults)); err != nil {
		return cfg, err
	}
	if o.descriptions != "" {
		if cfg.Descriptions, err = lint.LoadDescriptions(o.descriptions, w); err != nil {
			return cfg, usageErr(err)
		}
	}
	for _, v := range rs.Variants {
		v = strings.TrimSpace(v)
		if !w.HasVariant(v) && cfg.Descriptions[v] == nil {
			return cfg, usageErrf("--variant: world %s has no variant %q (it has %s)", w.Name, v, strings.Join(w.Variants, ", "))
		}
		if slices.Contains(cfg.Variants, v) {
			// Every agent would run twice under it, and the report
			// would compare the variant with itself.
			return cfg, usageErrf("--variant: %q given twice", v)
		}
		cfg.Variants = append(cfg.Variants, v)
	}
	if len(cfg.Variants) == 0 {
		cfg.Variants = []string{w.DefaultVariant()}
	}
	if err := checkDescribedVariants(w, cfg.Descriptions, cfg.Variants); err != nil {
		return cfg, err
	}
	if o.shard != "" {
		if cfg.Shard, err = parseShard(o.shard); err != nil {
			return cfg, usageErr(err)
		}
	}
	cfg.Replay = swarm.ReplaySpec{World: cfg.WorldRef, Agents: cfg.Agents, Seed: cfg.Seed, Goals: o.goals,
		Mix: o.mix, Personas: o.personas, Faults: cfg.Profile.Name, Descriptions: o.descriptions}
	cfg.ReplayCommand = replayCommand
	return cfg, nil
}

// checkDescribedVariants refuses a descriptions file that names a variant
// the world does not have and the run does not ask for: a typo there
// would otherwise describe a variant nobody runs, and the run would read
// the world's own descriptions without a word.
func checkDescribedVariants(w *engine.World, descs map[string]map[string]string, variants []string) error {
	for _, v := range slices.Sorted(maps.Keys(descs)) {
		if !w.HasVariant(v) && !slices.Contains(variants, v) {
			return usageErrf("--descriptions: variant %q is not one of world %s (%s) and --variant does not ask for it; run it with --variant %s, or fix the name",
				v, w.Name, strings.Join(w.Variants, ", "), v)
		}
	}
	return nil
}

// maxMixWeight bounds a --mix weight, so that a sum of weights stays a
// finite, exact number (1e400 parses as +Inf).
const maxMixWeight = 1e9

// parseMix reads "careful=0.5,hasty=0.5"; empty means the whole pack with
// equal weights.
func parseMix(s string, pack *personas.Pack) ([]swarm.MixEntry, error) {
	if strings.TrimSpace(s) == "" {
		return swarm.PackMix(pack), nil
	}
	var mix []swarm.MixEntry
	seen := map[string]bool{}
	total := 0.0
	for _, part := range strings.Split(s, ",") {
		name, weight, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if !ok {
			// A name alone could mean "only this one" or "weight 1
			// beside the rest": refuse it rather than guess.
			return nil, fmt.Errorf("--mix: %q has no weight; write %s=1 (weights are relative)", part, name)
		}
		p := pack.Get(name)
		if p == nil {
			return nil, fmt.Errorf("--mix: unknown persona %q (known: %s)", name, strings.Join(pack.Names(), ", "))
		}
		if seen[name] {
			return nil, fmt.Errorf("--mix: persona %q given twice", name)
		}
		seen[name] = true
		wt, err := strconv.ParseFloat(strings.TrimSpace(weight), 64)
		if err != nil || wt < 0 || wt != wt {
			return nil, fmt.Errorf("--mix: %q: weight %q is not a non-negative number", part, weight)
		}
		if wt > maxMixWeight {
			return nil, fmt.Errorf("--mix: %q: weight %q is above %.0f (weights are relative: 1 and 3 mean a quarter and three quarters)", part, weight, maxMixWeight)
		}
		total += wt
		mix = append(mix, swarm.MixEntry{Persona: p, Weight: wt})
	}
	if total <= 0 {
		return nil, fmt.Errorf("--mix: weights sum to zero")
	}
	return mix, nil
}

// parseShard reads "k/n".
func parseShard(s string) (swarm.Shard, error) {
	if s == "auto" {
		return shardFromEnv()
	}
	ks, ns, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(ks)
	n, err2 := strconv.Atoi(ns)
	if !ok || err1 != nil || err2 != nil {
		return swarm.Shard{}, fmt.Errorf("--shard: %q: want k/n, e.g. 0/4", s)
	}
	if n < 1 || k < 0 || k >= n {
		return swarm.Shard{}, fmt.Errorf("--shard: %q: want 0 ≤ k < n", s)
	}
	return swarm.Shard{Index: k, Count: n}, nil
}

// shardFromEnv reads a Kubernetes Indexed Job's JOB_COMPLETION_INDEX and the
// shard count from HERD_SHARDS.
func shardFromEnv() (swarm.Shard, error) {
	k, err1 := strconv.Atoi(os.Getenv("JOB_COMPLETION_INDEX"))
	n, err2 := strconv.Atoi(os.Getenv("HERD_SHARDS"))
	if err1 != nil || err2 != nil {
		return swarm.Shard{}, fmt.Errorf("--shard auto: needs JOB_COMPLETION_INDEX and HERD_SHARDS in the environment")
	}
	if n < 1 || k < 0 || k >= n {
		// The user wrote "auto": name the variables, not a k/n they never typed.
		return swarm.Shard{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d, HERD_SHARDS=%d: want 0 ≤ index < shards", k, n)
	}
	return swarm.Shard{Index: k, Count: n}, nil
}

type swarmCmdOptions struct {
	swarmOptions
	targetArg  string // TARGET as given
	transport  transportOptions
	external   externalOptions
	out        outputs
	thresholds []string
	strict     bool
	progress   string
	otlp       string
	brain      brainOptions
	episodes   string
	maxTools   int // a world or server with more tools is refused
	// cpuProfile is the hidden --cpuprofile FILE.
	cpuProfile string
}

func newSwarmCmd(s *streams) *cobra.Command {
	o := &swarmCmdOptions{}
	cmd := &cobra.Command{
		Use:   "swarm TARGET",
		Short: "Run a swarm of scripted-persona agents against a world or an MCP server and report what they did",
		Long: `Run a swarm of scripted-persona agents against a world (mock:crm, mock:payments,
mock:shop, mock:email, mock:files, or a world file) and report, with 95%
confidence intervals, how often they reached their goal and how often they
damaged the world. The same seed replays the same run, byte for byte.

TARGET may also be reached over MCP (see docs/targets.md):
  serve:WORLD                  herd serve started in-process, driven over Streamable HTTP
  http://127.0.0.1:PORT/mcp    a running MCP server (a herd world, or any other)
  mcp+stdio:COMMAND ARGS…      MCP servers started as subprocesses
Over MCP, calls take real time: --rate, --duration, --arrival and
--max-in-flight make it a load test, with latency per tool. Only loopback
hosts are contacted unless --allow-host names another.`,
		Example: `  herd swarm mock:crm --seed 42
  herd swarm mock:crm --agents 2000 --variant clear,ambiguous --html report.html
  herd swarm mock:shop --faults hostile --mix careful=1,retrier=1 --json run.json
  herd swarm mock:crm --threshold 'harmful<5%' --threshold 'hide_contact:destroyed_data<1%'
  herd swarm serve:mock:crm --rate 200 --duration 30s --threshold 'p99<50ms'
  herd swarm 'mcp+stdio:herd serve mock:crm --control 127.0.0.1:0' --agents 100
  herd swarm 'mcp+stdio:node server.js' --agents 100 --duration 30s`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.targetArg = args[0]
			o.set = recordGiven(cmd.Flags())
			o.brain.readGiven(cmd.Flags())
			return runSwarm(cmd.Context(), s, o)
		},
	}
	o.addFlags(cmd)
	o.transport.addFlags(cmd)
	o.brain.addFlags(cmd)
	o.external.addFlags(cmd)
	addCPUProfileFlag(cmd, &o.cpuProfile)
	f := cmd.Flags()
	f.StringVar(&o.out.json, "json", "", "write the results document (JSON) to this file")
	f.StringVar(&o.out.html, "html", "", "write a self-contained HTML report to this file")
	f.StringVar(&o.out.md, "md", "", "write a Markdown report (for a PR comment) to this file")
	f.StringVar(&o.out.junit, "junit", "", "write JUnit XML (one test case per threshold and harmful class) to this file")
	f.StringVar(&o.out.badge, "badge", "", "write a shields.io endpoint badge JSON to this file")
	f.StringArrayVar(&o.thresholds, "threshold", nil, "readiness threshold, e.g. 'harmful<5%' or 'hide_contact:destroyed_data<1%' (repeatable)")
	f.BoolVar(&o.strict, "strict", false, "an INCONCLUSIVE threshold fails the run too")
	f.IntVar(&o.maxTools, "max-tools", defaultMaxTools, "refuse a world or server with more tools than this")
	f.BoolVarP(&o.out.quiet, "quiet", "q", false, "print no summary, progress or run lines, only warnings and errors (the files and the exit code are the result)")
	o.out.addTerminalFlags(f)
	f.StringVar(&o.progress, "progress", "auto", "progress display: auto (bars on a terminal, a line a second otherwise), always (a line a second), never")
	f.StringVar(&o.episodes, "episodes", "", "write every finished episode (agent, goal, variant, outcome, first tool) to this file, one JSON line each, for herd calibrate")
	f.StringVar(&o.otlp, "otlp", "", "export a span per episode and per tool call to this OTLP HTTP collector, e.g. http://127.0.0.1:4318 (tracing slows the run)")
	return cmd
}

// runSwarm runs herd swarm with the options as parsed; tests call it
// directly, without cobra (swarm_test.go shows how). Everything the user
// gave is checked before a target is contacted or started where it can be
// (a running server's world is known only once it is asked), and always
// before any agent runs.
func runSwarm(ctx context.Context, s *streams, o *swarmCmdOptions) error {
	switch o.progress {
	case "auto", "always", "never":
	default:
		return usageErrf("--progress: want auto, always or never, got %q", o.progress)
	}
	spec, err := target.Parse(o.targetArg)
	if err != nil {
		return flagErr(err)
	}
	rs := o.settings()
	rs.World = spec.World
	load, err := o.transportLoad(spec, &rs)
	if err != nil {
		return err
	}
	if err := o.checkCounts(rs.agents); err != nil {
		return err
	}
	if err := o.out.check(); err != nil {
		return err
	}
	if err := o.checkWorldFree(); err != nil {
		return err
	}
	if err := o.brain.check(spec, o.set, o.transport.allowHosts); err != nil {
		return err
	}
	if (spec.Kind == target.KindInProcess || spec.Kind == target.KindServe) && o.set.allowWrites {
		return allowWritesErr(o.targetArg)
	}
	if err := o.external.refuse(o.targetArg, spec.Kind == target.KindInProcess || spec.Kind == target.KindServe); err != nil {
		return err
	}
	// Profiled from the first contact with the target on: connecting is
	// part of what a run costs.
	stopProfile, err := startCPUProfile(o.cpuProfile, s.err)
	if err != nil {
		return err
	}
	defer stopProfile()
	reached, err := swarm.Reach(ctx, spec, o.targetOptions(), serve.StartLocalWorld)
	if err != nil {
		return flagErr(err)
	}
	// Ends the first stdio process on every way out, unless a target took
	// it over (then this does nothing).
	defer reached.Close()
	if reached != nil && reached.External {
		return runExternal(ctx, s, o, reached, load, rs.agents)
	}
	if o.set.allowWrites {
		return allowWritesErr(o.targetArg)
	}
	if err := o.external.refuse(o.targetArg, true); err != nil {
		return err
	}
	if reached != nil && reached.Info != nil {
		// A running herd world: run the world it serves, with its faults
		// and variant unless the flags say otherwise.
		rs.World = o.transport.worldFile
		rs.Settings = reached.Adopt(rs.Settings)
	}
	cfg, err := o.config(rs)
	if err != nil {
		return err
	}
	if err := checkToolCount("world "+cfg.World.Name, len(cfg.World.Tools), o.maxTools); err != nil {
		return err
	}
	cfg.Load = load
	cfg.Command = commandLine(o, rs, cfg.Seed)
	var model *brainRun
	if o.brain.on() {
		if model, err = o.brain.start(o, &cfg); err != nil {
			return err
		}
	}
	if o.otlp != "" {
		exp, err := otlp.New(ctx, o.otlp, otlpRun(cfg))
		if err != nil {
			return usageErrf("--otlp: %v", err)
		}
		cfg.Observer = exp
		defer flushOTLP(s, exp)
	}
	var episodes *calibrate.Log
	if o.episodes != "" {
		episodes = episodesLog(cfg, o.descriptions, playerName(&o.brain))
		if cfg.Observer != nil {
			cfg.Observer = observers{cfg.Observer, episodes}
		} else {
			cfg.Observer = episodes
		}
	}
	plan, err := swarm.NewPlan(cfg)
	if err != nil {
		return flagErr(err)
	}
	// Thresholds are checked before the run, so a typo costs nothing.
	if err := plan.CheckThresholds(o.thresholds, spec.Kind != target.KindInProcess); err != nil {
		return flagErr(err)
	}
	var tgt swarm.Target = swarm.InProcess{}
	if reached != nil {
		if tgt, err = reached.Target(ctx, &cfg, load.MaxInFlight); err != nil {
			return flagErr(err)
		}
		defer tgt.Close()
	}
	setGCTarget() // GOGC, when set, wins
	fmt.Fprintf(o.chatter(s), "herd: swarm %s: %s agents × %d variant(s), seed %d, faults %s\n",
		o.targetArg, report.Thousands(int64(cfg.Agents)), len(cfg.Variants), cfg.Seed, cfg.Profile.Name)
	if o.transport.findCeiling != "" {
		// The search's steps are a run in flight: an interrupt stops it
		// and the curve so far is still written.
		stopRunning := swarm.Running(ctx)
		res, err := runCeiling(ctx, o.chatter(s), o, cfg, tgt)
		stopRunning()
		if err != nil {
			return err
		}
		res.Lint = unlessInterrupted(ctx, s, func() []report.LintFinding { return cfg.LintFindings() })
		res.LintTokens = cfg.LintTokens()
		code, err := finishRun(s, res, o.out, o.thresholds, o.strict)
		if err != nil {
			return err
		}
		return exitFor(interruptedCode(ctx, code))
	}
	prog := newProgress(s.err, o.progressMode(), plan.Episodes(), o.progressLoad())
	plan.SetProgress(prog.update, prog.every)
	// From here an interrupt stops the run and the results are still
	// written; before, it exits at once (nothing has finished).
	defer swarm.Running(ctx)()
	res, runErr := plan.Run(ctx, tgt)
	prog.finish()
	if res == nil {
		return codeErr(exitUnreachable, runErr)
	}
	res.Lint = unlessInterrupted(ctx, s, func() []report.LintFinding { return cfg.LintFindings() })
	if model != nil {
		if err := model.finish(res, o.chatter(s)); err != nil {
			return err
		}
	}
	if episodes != nil {
		// Written whatever happened: what finished is kept.
		if err := writeFileAtomic(o.episodes, func(w io.Writer) error { _, err := episodes.WriteTo(w); return err }); err != nil {
			return usageErr(err)
		}
	}
	res.LintTokens = cfg.LintTokens()
	if tgt.RealTime() {
		// transportLoad sets a pacer only for --rate or --arrival.
		printStats(o.chatter(s), plan.LoadStats(), res, cfg.Load.Pacer != nil)
	}
	switch {
	case runErr != nil:
		// The target broke: what finished before is kept and written, and
		// the run still exits 3.
		fmt.Fprintf(s.err, "herd: target broke: %s; %s of %s episodes finished; the results are marked partial\n",
			oneLine(runErr.Error()), report.Thousands(int64(res.Episodes)), report.Thousands(int64(plan.Episodes())))
	case res.Partial:
		fmt.Fprintf(s.err, "herd: interrupted: %s of %s episodes finished; the results are marked partial\n",
			report.Thousands(int64(res.Episodes)), report.Thousands(int64(plan.Episodes())))
	}
	code, err := finishRun(s, res, o.out, o.thresholds, o.strict)
	if err != nil {
		return err
	}
	if runErr != nil {
		return codeErr(exitUnreachable, nil) // the reason is printed above
	}
	return exitFor(interruptedCode(ctx, code))
}

// interruptedCode is the exit code of a finished run: a run a signal
// stopped exits 128 + the signal's number whatever its thresholds said
// (they are judged on what finished, and printed and written all the
// same), so that a stopped run never reads as a pass — nor does one the
// signal reached only after its last episode; code otherwise.
func interruptedCode(ctx context.Context, code int) int {
	if c, ok := interruptCode(ctx); ok {
		return c
	}
	return code
}

// unlessInterrupted runs the work a finished run does before its results
// are written (linting the world's descriptions, which takes seconds for
// a world of thousands of tools) and returns what it returns; when an
// interrupt comes first it returns nothing at once, says so, and leaves
// the work to end with the process, so that the finished episodes are
// written without waiting for it.
func unlessInterrupted[T any](ctx context.Context, s *streams, work func() T) T {
	done := make(chan T, 1)
	go func() { done <- work() }()
	select {
	case v := <-done:
		return v
	case <-ctx.Done():
		if _, signalled := interruptCode(ctx); !signalled {
			return <-done // cancelled by its caller, not by a signal: nobody is waiting to leave
		}
		fmt.Fprintln(s.err, "herd: interrupted: the results are written without the description lint (herd lint gives it)")
		var zero T
		return zero
	}
}

// chatter is where the run's own lines go (the run's start, load
// figures): stderr, or nowhere with --quiet.
func (o *swarmCmdOptions) chatter(s *streams) io.Writer {
	if o.out.quiet {
		return io.Discard
	}
	return s.err
}

// progressLoad is what the progress display says of a load run: its
// --duration and --rate.
func (o *swarmCmdOptions) progressLoad() progressLoad {
	return progressLoad{duration: o.transport.duration, rate: o.transport.rate}
}

// progressMode is --progress, "never" with --quiet unless --progress was
// given.
func (o *swarmCmdOptions) progressMode() string {
	if o.out.quiet && !o.set.progress {
		return "never"
	}
	return o.progress
}

func allowWritesErr(target string) error {
	return usageErrf("--allow-writes: %s is a herd world, whose agents may call every tool already; the flag is for MCP servers that are not herd worlds", target)
}

// commonFlags are the words of a command line that say what the agents
// do: the part a run's reproducing command and its replay commands share.
func commonFlags(agents int, seed uint64, goals []string, mix, personas, faults, descriptions string) []string {
	parts := []string{"--agents", strconv.Itoa(agents), "--seed", strconv.FormatUint(seed, 10)}
	for _, g := range goals {
		parts = append(parts, "--goal", g)
	}
	if mix != "" {
		parts = append(parts, "--mix", mix)
	}
	if personas != "" {
		parts = append(parts, "--personas", personas)
	}
	if faults != engine.NoFaults {
		parts = append(parts, "--faults", faults)
	}
	if descriptions != "" {
		parts = append(parts, "--descriptions", descriptions)
	}
	return parts
}

// commandLine is the run's reproducing command line (without output
// flags), with the settings it ran with.
func commandLine(o *swarmCmdOptions, rs runSettings, seed uint64) string {
	parts := append([]string{"herd swarm", shellQuote(o.targetArg)},
		commonFlags(rs.agents, seed, o.goals, o.mix, o.personas, cmp.Or(rs.Faults, engine.NoFaults), o.descriptions)...)
	if len(rs.Variants) > 0 {
		parts = append(parts, "--variant", strings.Join(rs.Variants, ","))
	}
	if o.maxTools > 0 && o.maxTools != defaultMaxTools { // 0: the default, as checkToolCount reads it
		parts = append(parts, "--max-tools", strconv.Itoa(o.maxTools))
	}
	t := &o.transport
	if t.worldFile != "" {
		parts = append(parts, "--world", t.worldFile)
	}
	if t.rate > 0 {
		parts = append(parts, "--rate", strconv.FormatFloat(t.rate, 'g', -1, 64))
	}
	if t.duration > 0 {
		parts = append(parts, "--duration", t.duration.String())
	}
	if t.arrival != "" {
		parts = append(parts, "--arrival", t.arrival)
	}
	if t.maxInFlight > 0 {
		parts = append(parts, "--max-in-flight", strconv.Itoa(t.maxInFlight))
	}
	// A slower call counts as a timeout: the limit is part of the result.
	if t.callTimeout != target.DefaultCallTimeout {
		parts = append(parts, "--call-timeout", t.callTimeout.String())
	}
	// A larger answer counts as a transport error: the limit is part of
	// the result too.
	if t.maxResponse != 0 && t.maxResponse != target.DefaultMaxResponseBytes {
		parts = append(parts, "--max-response-bytes", strconv.FormatInt(t.maxResponse, 10))
	}
	for _, h := range t.allowHosts {
		parts = append(parts, "--allow-host", h)
	}
	if t.allowWrites {
		parts = append(parts, "--allow-writes")
	}
	return strings.Join(parts, " ")
}

// replayCommand renders a replay spec as the herd replay command line. A
// replay runs in-process: it names the world, never the target, and takes
// none of a transport's flags.
func replayCommand(r swarm.ReplaySpec) string {
	parts := append([]string{"herd replay", shellQuote(r.World)},
		commonFlags(r.Agents, r.Seed, r.Goals, r.Mix, r.Personas, r.Faults, r.Descriptions)...)
	parts = append(parts, "--agent", strconv.Itoa(r.Agent), "--variant", r.Variant)
	return strings.Join(parts, " ")
}

// shellQuote quotes a word for a POSIX shell when it needs it
// ('mcp+stdio:node server.js').
func shellQuote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t'\"\\$`!*?[]{}()<>|&;#~") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// otlpRun describes the run for the spans' resource.
func otlpRun(cfg swarm.Config) otlp.Run {
	r := otlp.Run{World: cfg.World.Name, Source: cfg.WorldRef, Seed: cfg.Seed, Agents: cfg.Agents,
		Faults: cfg.Profile.Name, Command: cfg.Command}
	if cfg.Shard.Count > 1 {
		r.Shard = fmt.Sprintf("%d/%d", cfg.Shard.Index, cfg.Shard.Count)
	}
	return r
}

// flushOTLP sends the spans still queued (even after Ctrl-C, with a fresh
// deadline) and says what reached the collector.
func flushOTLP(s *streams, exp *otlp.Exporter) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, _ := exp.Shutdown(ctx)
	if st.Spans() == 0 && st.Err == nil {
		return // the run never started
	}
	fmt.Fprintf(s.err, "herd: otlp: %d spans (%d episodes, %d calls) sent to %s\n", st.Sent, st.Episodes, st.Calls, st.Endpoint)
	if st.Err != nil {
		fmt.Fprintf(s.err, "herd: otlp: %d spans lost: %v\n", st.Lost, st.Err)
	}
}

// oneLine folds a message onto one line (a subprocess's stderr tail may
// carry newlines) for a one-line reason on stderr.
func oneLine(msg string) string {
	return strings.Join(strings.Fields(msg), " ")
}
