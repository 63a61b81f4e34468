package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
)

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
			return usageErrf("--%s: %s is not a herd world (it has no herd control plane), so the swarm runs generic goals on its tools; --%s does not apply", f.name, reached.Spec.Raw, f.name)
		}
	}
	// The thresholds' form was checked before the server was contacted
	// (checkWorldFree); their names are checked against the tools it lists
	// (cfg.Check), before any agent runs.
	server, tools, err := ext.Server(ctx)
	if err != nil {
		return codeErr(exitUnreachable, err)
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
	cfg := swarm.ExternalConfig{
		Target: ext, Server: server, Tools: tools, Seed: seed, Agents: agents,
		AllowWrites: o.transport.allowWrites, Load: *load, Command: commandLine(o, rs, seed),
		Thresholds: o.thresholds,
	}
	if err := cfg.Check(); err != nil {
		return flagErr(err)
	}
	fmt.Fprintf(o.chatter(s), "herd: swarm %s: %s %s, %d tools (%d read-only), %d agents, seed %d\n",
		reached.Spec.Raw, server.Name, server.Version, len(tools), readOnly, agents, seed)
	prog := newProgress(s.err, o.progressMode(), agents, o.progressLoad())
	cfg.Progress, cfg.ProgressEvery = prog.update, prog.every
	run, err := swarm.RunExternal(ctx, cfg)
	prog.finish()
	if err != nil {
		return flagErr(err)
	}
	if len(run.Skipped) > 0 {
		fmt.Fprintf(s.err, "herd: not called (they may write; --allow-writes calls them): %s\n", strings.Join(run.Skipped, ", "))
	}
	res := run.Results
	lr := lint.LintTools(lintTools(tools), lint.Options{World: server.Name, Variant: swarm.ExternalVariant})
	res.Lint = lintResults(lr)
	printStats(o.chatter(s), run.Stats, res, load.Pacer != nil)
	code, err := finishRun(s, res, o.out, o.thresholds, o.strict)
	if err != nil {
		return err
	}
	if run.Unusable != "" {
		return codeErr(exitUnreachable, fmt.Errorf("%s is unusable: %s", reached.Spec.Raw, run.Unusable))
	}
	return exitFor(interruptedCode(ctx, res.Partial, code))
}

// lintTools describes discovered tools to the description linter: the
// name, description, parameters from the input schema, and annotations.
func lintTools(tools []*mcp.Tool) []lint.Tool {
	out := make([]lint.Tool, 0, len(tools))
	for _, t := range tools {
		lt := lint.Tool{Name: t.Name, Description: t.Description}
		if a := t.Annotations; a != nil {
			lt.Annotations = &lint.Annotations{ReadOnly: a.ReadOnlyHint, Idempotent: a.IdempotentHint,
				Destructive: a.DestructiveHint == nil || *a.DestructiveHint, OpenWorld: a.OpenWorldHint == nil || *a.OpenWorldHint}
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
}
