package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

type replayOptions struct {
	swarmOptions
	agent   int
	asJSON  bool
	explain bool
}

func newReplayCmd(s *streams) *cobra.Command {
	o := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay WORLD --seed S --agents N --agent I",
		Short: "Replay one agent of a swarm run, step by step, exactly as the run did",
		Long: `Replay one agent of a swarm run: its persona, goal, every tool it considered
(with the reader model's scores), every call, every fault and the outcome.
Give the same world, seed, --agents, --mix, --goal and --faults as the run
(the replay command in a report has them all).`,
		Example: `  herd replay mock:crm --seed 42 --agent 17 --variant ambiguous`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.world = args[0]
			o.set = recordGiven(cmd.Flags())
			return runReplay(s, o)
		},
	}
	o.addFlags(cmd)
	cmd.Flags().IntVar(&o.agent, "agent", -1, "the agent's index in the run (0-based)")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the traces as JSON")
	cmd.Flags().BoolVar(&o.explain, "explain", false, "after each trace, explain the agent's first choice as herd explain does")
	return cmd
}

// runReplay replays one agent with the options as parsed (tests call it
// without cobra).
func runReplay(s *streams, o *replayOptions) error {
	if !o.set.agent {
		return usageErrf("--agent: which agent to replay (0 to --agents - 1)")
	}
	cfg, err := o.config(o.settings())
	if err != nil {
		return err
	}
	if o.agent < 0 || o.agent >= cfg.Agents {
		return usageErrf("--agent: %d is not an agent of a run with --agents %d (0 to %d)", o.agent, cfg.Agents, cfg.Agents-1)
	}
	plan, err := swarm.NewPlan(cfg)
	if err != nil {
		return flagErr(err)
	}
	outcomes, err := plan.Replay(o.agent)
	if err != nil {
		return codeErr(exitUnreachable, err)
	}
	traces := make([]report.Trace, len(outcomes))
	for v, out := range outcomes {
		variant := cfg.Variants[v]
		traces[v] = swarm.ToReportTrace(o.agent, swarm.AgentSeed(cfg.Seed, o.agent), variant, out, plan.ReplayCommand(o.agent, variant))
	}
	var exps []personas.Explanation
	if o.explain {
		if exps, err = plan.Explain(o.agent); err != nil {
			return flagErr(err)
		}
	}
	if o.asJSON {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		if !o.explain {
			return enc.Encode(traces)
		}
		type explained struct {
			Trace       report.Trace         `json:"trace"`
			Explanation personas.Explanation `json:"explanation"`
		}
		out := make([]explained, len(traces))
		for v := range traces {
			out[v] = explained{traces[v], exps[v]}
		}
		return enc.Encode(out)
	}
	for v, t := range traces {
		writeTrace(s.out, t)
		if o.explain {
			writeExplanation(s.out, exps[v])
			fmt.Fprintln(s.out)
		}
	}
	return nil
}

// writeTrace prints one trace for a human.
func writeTrace(w io.Writer, t report.Trace) {
	fmt.Fprintf(w, "agent %d (seed %d) · persona %s · goal %s · variant %s\n", t.Agent, t.Seed, t.Persona, t.Goal, t.Variant)
	for i, st := range t.Steps {
		args := ""
		if len(st.Args) > 0 {
			keys := make([]string, 0, len(st.Args))
			for k := range st.Args {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			parts := make([]string, len(keys))
			for j, k := range keys {
				v, _ := json.Marshal(st.Args[k])
				parts[j] = k + "=" + string(v)
			}
			args = strings.Join(parts, " ")
		}
		fmt.Fprintf(w, "  %2d %-8s %-8s %s(%s) → %s\n", i+1, st.At, st.Kind, st.Tool, args, st.Result)
		if st.Read != "" {
			fmt.Fprintf(w, "              read: %s\n", st.Read)
		}
		if len(st.Scores) > 0 {
			parts := make([]string, len(st.Scores))
			for j, sc := range st.Scores {
				parts[j] = fmt.Sprintf("%s %.2f (p=%.2f)", sc.Tool, sc.Score, sc.P)
			}
			fmt.Fprintf(w, "              scores: %s\n", strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(w, "  outcome: %s (%s)\n  replay:  %s\n\n", t.Class, t.Severity, t.Replay)
}
