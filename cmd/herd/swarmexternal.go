package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/herd-sh/herd/internal/safetext"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/stats"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
)

// externalOptions are herd swarm's flags for an MCP server that is not a
// herd world: which of its tools the swarm calls, and how many processes
// of a stdio server it runs.
type externalOptions struct {
	tools, skip    []string
	allowOpenWorld bool
	processes      int
	flags          *pflag.FlagSet // to tell a flag given from its default (nil: none given)
}

func (o *externalOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	o.flags = f
	f.StringArrayVar(&o.tools, "tool", nil, "external servers: call only the tools whose name matches this glob, e.g. 'read_*' (repeatable)")
	f.StringArrayVar(&o.skip, "skip-tool", nil, "external servers: never call the tools whose name matches this glob (repeatable)")
	f.BoolVar(&o.allowOpenWorld, "allow-open-world", false, "external servers: also call tools that may reach outside the server (openWorldHint true, or absent on a tool that is not read-only)")
	f.IntVar(&o.processes, "processes", target.DefaultProcesses, "external stdio servers: server processes started before the clock and shared by every agent")
}

// given lists the external flags that were given.
func (o *externalOptions) given() []string {
	var out []string
	for _, name := range []string{"tool", "skip-tool", "allow-open-world", "processes"} {
		if o.flags != nil && o.flags.Changed(name) {
			out = append(out, name)
		}
	}
	if o.flags == nil { // a test without cobra: a value is what was given
		if len(o.tools) > 0 {
			out = append(out, "tool")
		}
		if len(o.skip) > 0 {
			out = append(out, "skip-tool")
		}
		if o.allowOpenWorld {
			out = append(out, "allow-open-world")
		}
		if o.processes != 0 {
			out = append(out, "processes")
		}
	}
	return out
}

// refuse refuses the external flags for a herd world (world is true),
// whose agents play its goals on every tool.
func (o *externalOptions) refuse(targetArg string, world bool) error {
	if g := o.given(); world && len(g) > 0 {
		return usageErrf("--%s: %s is a herd world, whose agents play its goals (pick them with --goal); the flag is for MCP servers that are not herd worlds", g[0], targetArg)
	}
	return nil
}

// words are the external flags as the reproducing command says them.
func (o *externalOptions) words() []string {
	var parts []string
	for _, t := range o.tools {
		parts = append(parts, "--tool", shellQuote(t))
	}
	for _, t := range o.skip {
		parts = append(parts, "--skip-tool", shellQuote(t))
	}
	if o.allowOpenWorld {
		parts = append(parts, "--allow-open-world")
	}
	if slices.Contains(o.given(), "processes") {
		parts = append(parts, "--processes", strconv.Itoa(o.processes))
	}
	return parts
}

// defaultExternalSeed seeds a run against an external server when --seed
// is not given (there is no world seed to default to). It is printed and
// recorded like any seed.
const defaultExternalSeed = 1

// runExternal tests an MCP server that is not a herd world: it discovers
// the tools, lints their descriptions, calls the read-only ones (and the
// others with --allow-writes) with schema-valid arguments and with
// arguments the schema refuses, and reports latency, throughput and what
// the answers were. A server that crashes or hangs ends the run with exit 3.
func runExternal(ctx context.Context, s *streams, o *swarmCmdOptions, reached *swarm.Reached, load *swarm.Load, agents int) error {
	ext := reached.ExternalTarget()
	defer ext.Close()
	set := &o.set
	for _, f := range []struct {
		name string
		set  bool
	}{{"goal", set.goal}, {"mix", set.mix}, {"personas", set.personas}, {"faults", set.faults}, {"variant", set.variant},
		{"descriptions", set.descriptions}, {"shard", set.shard}, {"world", set.world}, {"otlp", set.otlp}} {
		if f.set {
			hint := ""
			if f.name == "goal" {
				hint = " (to choose which tools it calls, use --tool and --skip-tool with name patterns)"
			}
			return usageErrf("--%s: %s is not a herd world (it has no herd control plane), so the swarm runs generic goals on its tools; --%s does not apply%s", f.name, reached.Spec.Raw, f.name, hint)
		}
	}
	ex := &o.external
	if slices.Contains(ex.given(), "processes") {
		if reached.Spec.Kind != target.KindStdio {
			return usageErrf("--processes: %s is one server over HTTP; the flag sizes the pool of a stdio server's processes", reached.Spec.Raw)
		}
		if ex.processes < 1 || ex.processes > target.MaxProcesses {
			return usageErrf("--processes: must be between 1 and %d, got %d", target.MaxProcesses, ex.processes)
		}
	}
	// The thresholds' form was checked before the server was contacted
	// (checkWorldFree); their names are checked against the tools it lists
	// (cfg.Check), before any agent runs.
	server, tools, err := ext.Server(ctx)
	if err != nil {
		return codeErr(exitUnreachable, err)
	}
	if err := checkToolCount(reached.Spec.Raw, len(tools), o.maxTools); err != nil {
		return err
	}
	seed := uint64(defaultExternalSeed)
	if set.seed {
		seed = o.seed
	}
	readOnly := 0
	for _, t := range tools {
		if t.Annotations != nil && t.Annotations.ReadOnlyHint {
			readOnly++
		}
	}
	rs := o.settings()
	rs.agents = agents
	processes := 0
	if reached.Spec.Kind == target.KindStdio {
		processes = cmp.Or(ex.processes, target.DefaultProcesses)
	}
	command := strings.Join(append([]string{commandLine(o, rs, seed)}, ex.words()...), " ")
	cfg := swarm.ExternalConfig{
		Target: ext, Server: server, Tools: tools, Seed: seed, Agents: agents,
		AllowWrites: o.transport.allowWrites, AllowOpenWorld: ex.allowOpenWorld, Select: ex.tools, Skip: ex.skip,
		Processes: processes, Load: *load, Command: command,
		Thresholds: o.thresholds,
	}
	if err := cfg.Check(); err != nil {
		return flagErr(err)
	}
	fmt.Fprintf(o.chatter(s), "herd: swarm %s: %s %s, %d tools (%d read-only), %d agents, seed %d\n",
		reached.Spec.Raw, server.Name, server.Version, len(tools), readOnly, agents, seed)
	if processes > 0 {
		fmt.Fprintf(o.chatter(s), "herd: starting %d server processes before the clock (--processes)\n", processes)
	}
	prog := newProgress(s.err, o.progressMode(), agents, o.progressLoad())
	cfg.Progress, cfg.ProgressEvery = prog.update, prog.every
	defer swarm.Running(ctx)() // as in runSwarm: from here an interrupt still writes the results
	run, err := swarm.RunExternal(ctx, cfg)
	prog.finish()
	if err != nil {
		return flagErr(err) // a pool that could not be started exits 3
	}
	printSkipped(s.err, run.Skipped)
	res := run.Results
	res.Lint = unlessInterrupted(ctx, s, func() []report.LintFinding {
		return swarm.LintResults(lint.LintTools(lintTools(tools), lint.Options{World: server.Name, Variant: swarm.ExternalVariant}))
	})
	res.LintTokens = serverLintTokens(tools)
	printStats(o.chatter(s), run.Stats, res, load.Pacer != nil)
	code, err := finishRun(s, res, o.out, o.thresholds, o.strict)
	if err != nil {
		return err
	}
	if run.Unusable != "" {
		return codeErr(exitUnreachable, fmt.Errorf("%s is unusable: %s", reached.Spec.Raw, run.Unusable))
	}
	return exitFor(interruptedCode(ctx, code))
}

// skipNotes say, per reason a tool was not called, which flag calls it.
var skipNotes = []struct{ reason, note string }{
	{report.SkipWrites, "they may write; --allow-writes calls them"},
	{report.SkipOpenWorld, "they may reach outside the server; --allow-open-world calls them"},
	{report.SkipFiltered, "left out by --tool/--skip-tool"},
}

// printSkipped says which tools were not called, and why.
func printSkipped(w io.Writer, skipped []report.SkippedTool) {
	for _, n := range skipNotes {
		var names []string
		for _, t := range skipped {
			if t.Reason == n.reason {
				names = append(names, safetext.Terminal(t.Tool, 80))
			}
		}
		if len(names) > 0 {
			fmt.Fprintf(w, "herd: not called (%s): %s\n", n.note, strings.Join(names, ", "))
		}
	}
}

// lintTools describes discovered tools to the description linter: the
// name, description, parameters from the input schema, and annotations.
func lintTools(tools []*mcp.Tool) []lint.Tool {
	out := make([]lint.Tool, 0, len(tools))
	for _, t := range tools {
		lt := lint.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}
		if a := t.Annotations; a != nil {
			lt.Annotations = &lint.Annotations{ReadOnly: a.ReadOnlyHint, Idempotent: a.IdempotentHint,
				Destructive: a.DestructiveHint == nil || *a.DestructiveHint, OpenWorld: a.OpenWorldHint == nil || *a.OpenWorldHint,
				DestructiveGiven: a.DestructiveHint != nil}
		}
		if s, ok := t.InputSchema.(map[string]any); ok {
			props, names, required := personas.SchemaProperties(s)
			for _, n := range names {
				ps, _ := props[n].(map[string]any)
				p := lint.Param{Name: n, Required: slices.Contains(required, n)}
				p.Type, _ = ps["type"].(string)
				p.Description, _ = ps["description"].(string)
				if e, ok := ps["enum"].([]any); ok {
					p.Type = "enum"
					for _, v := range e {
						p.Values = append(p.Values, fmt.Sprint(v))
					}
				}
				lt.Params = append(lt.Params, p)
			}
		}
		out = append(out, lt)
	}
	return out
}

// printStats writes what a run over a transport measured.
func printStats(w io.Writer, st swarm.LoadStats, res *report.Results, paced bool) {
	fmt.Fprintf(w, "herd: load: %s of %s agents started", report.Thousands(int64(st.Started)), report.Thousands(int64(st.Planned)))
	if paced {
		fmt.Fprintf(w, " (%.1f/s achieved)", st.StartRate())
	}
	fmt.Fprintf(w, "; %s calls in %.1fs (%s calls/s)\n", report.Thousands(int64(st.Calls)), st.Seconds, rateText(st.CallRate()))
	if st.Churned > 0 {
		fmt.Fprintf(w, "herd: load: %s sessions opened, read on and dropped without ending them (churn)\n", report.Thousands(st.Churned))
	}
	if values := res.OverallLatency(); values != nil {
		parts := make([]string, len(values))
		for i, p := range report.Percentiles {
			parts[i] = fmt.Sprintf("%s %.2fms", p.Name, values[i])
		}
		fmt.Fprintf(w, "herd: load: latency %s\n", strings.Join(parts, ", "))
	}
	byClass := map[target.Class]int64{}
	for _, c := range st.Classes {
		byClass[c.Class] += c.N
	}
	var parts []string
	for c := target.ClassOK; c < target.NumClasses; c++ {
		if n := byClass[c]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", c, report.Thousands(n)))
		}
	}
	if len(parts) > 0 {
		fmt.Fprintf(w, "herd: load: calls by class: %s\n", strings.Join(parts, ", "))
	}
	if t := res.Timing; t != nil {
		printServer(w, t)
	}
}

// printServer writes what a run measured of the server besides latency
// per tool: ok calls apart from the others, warm-up calls, why the run
// stopped, the process pool and its memory and CPU, and stdout lines that
// were not JSON.
func printServer(w io.Writer, t *report.Timing) {
	var split []string
	for _, h := range []*report.LatencyHistogram{t.LatencyOK, t.LatencyError} {
		if h == nil {
			continue
		}
		bars := make([]stats.Bar, len(h.Bars))
		for i, b := range h.Bars {
			bars[i] = stats.Bar{Value: float64(b.ValueUS) / 1000, Count: b.Count}
		}
		split = append(split, fmt.Sprintf("%s calls (%s) p50 %.2fms, p99 %.2fms", h.Tool, report.Thousands(h.Calls()),
			stats.Quantile(bars, 0.5), stats.Quantile(bars, 0.99)))
	}
	if len(split) > 0 {
		note := ""
		if t.WarmupCalls > 0 {
			note = fmt.Sprintf(" (%s warm-up calls not timed)", report.Thousands(t.WarmupCalls))
		}
		fmt.Fprintf(w, "herd: load: %s%s\n", strings.Join(split, "; "), note)
	}
	if t.Stopped != "" {
		fmt.Fprintf(w, "herd: load: stopped: %s\n", t.Stopped)
	}
	sv := t.Server
	if sv == nil {
		return
	}
	if sv.Processes > 0 {
		var rss, peak int64
		var cpu float64
		for _, p := range sv.ProcessStats {
			rss, peak, cpu = rss+p.RSSKB, peak+p.PeakRSSKB, cpu+p.CPUSeconds
		}
		line := fmt.Sprintf("herd: server: %d processes", sv.Processes)
		if len(sv.ProcessStats) > 0 {
			line += fmt.Sprintf("; at the end %d alive, RSS %.1f MiB (peak %.1f MiB), CPU %.2fs in all",
				len(sv.ProcessStats), float64(rss)/1024, float64(peak)/1024, cpu)
		}
		fmt.Fprintln(w, line)
	}
	if sv.NonJSONLines > 0 {
		ex := ""
		if len(sv.NonJSONSample) > 0 {
			ex = fmt.Sprintf(", e.g. %q", safetext.Terminal(sv.NonJSONSample[0], 80))
		}
		fmt.Fprintf(w, "herd: server: %s stdout lines were not JSON-RPC and were skipped (a stdio server must write only messages to stdout)%s\n",
			report.Thousands(sv.NonJSONLines), ex)
	}
}
