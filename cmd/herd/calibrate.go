package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/calibrate"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

// calibrateOptions are the flags of herd calibrate, as given.
type calibrateOptions struct {
	episodes     string
	personas     string
	samples      int
	seed         uint64
	reps         int
	json         string
	savePersonas string
	workers      int
}

func newCalibrateCmd(s *streams) *cobra.Command {
	o := calibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate EPISODES",
		Short: "Measure how well the scripted personas stand in for a model's episodes, and fit the mix that predicts it",
		Long: `Calibrate the scripted personas against an agent's episodes — a language model's
(herd swarm --brain … --episodes FILE) or any run's. Every persona of the pack
plays the same world, seed, faults, variants and goals; the report gives

  - the persona mix that best explains the agent's outcomes (maximum
    likelihood, 95% bootstrap intervals), and whether it fits at all (a
    goodness-of-fit test; "DOES NOT FIT" when no mix explains them);
  - first-choice agreement (Cohen's κ) on the agent's own episodes;
  - per variant effect, the agent's change in harmful rate beside the
    fitted mix's prediction: same direction, overlapping size;
  - per goal and variant, the agent's outcome shares beside each persona's.

--save-personas writes the fitted mix as a persona pack: herd swarm
--personas FILE then plays the mix that predicts the agent, cheaply.

  herd swarm mock:crm --brain openai:qwen2.5 --brain-url http://127.0.0.1:11434/v1 --agents 200 --episodes model.ndjson
  herd calibrate model.ndjson --save-personas fitted.yaml
  herd swarm mock:crm --personas fitted.yaml --agents 100000`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.episodes = args[0]
			return runCalibrate(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.personas, "personas", "", "persona pack YAML file to fit (default: the built-in pack)")
	f.IntVar(&o.samples, "samples", calibrate.DefaultSamples, "episodes each persona plays per goal and variant")
	f.Uint64Var(&o.seed, "seed", 0, "seed of the personas' episodes and of the bootstrap (default: the run's seed)")
	f.IntVar(&o.reps, "reps", calibrate.DefaultReps, "bootstrap replicates")
	f.StringVar(&o.json, "json", "", "write the calibration as JSON to this file ('-' for standard output)")
	f.StringVar(&o.savePersonas, "save-personas", "", "write the fitted mix as a persona pack to this file")
	f.IntVar(&o.workers, "workers", 0, "worker goroutines (default: GOMAXPROCS)")
	return cmd
}

func runCalibrate(ctx context.Context, s *streams, o calibrateOptions) error {
	if o.samples < 10 || o.samples > calibrate.MaxSamples {
		return usageErrf("--samples: %d, want 10 to %d", o.samples, calibrate.MaxSamples)
	}
	if o.reps < 20 || o.reps > calibrate.MaxReps {
		return usageErrf("--reps: %d, want 20 to %d", o.reps, calibrate.MaxReps)
	}
	if o.workers < 0 || o.workers > swarm.MaxWorkers {
		return usageErrf("--workers: must be between 1 and %d, got %d", swarm.MaxWorkers, o.workers)
	}
	f, err := calibrate.ReadFile(o.episodes)
	if err != nil {
		return usageErr(err)
	}
	h := f.Header
	w, err := worlds.Resolve(h.World)
	if err != nil {
		return usageErrf("%s: the episodes' world: %v", o.episodes, err)
	}
	if h.WorldHash != "" && w.Hash != h.WorldHash {
		return usageErrf("%s: the episodes were played on %s with sha256 %.12s…; that world is now %.12s… (calibrate on the world they were played on)", o.episodes, h.World, h.WorldHash, w.Hash)
	}
	pack := personas.Builtin()
	if o.personas != "" {
		if pack, err = personas.LoadPack(o.personas); err != nil {
			return usageErr(err)
		}
	}
	cfg := calibrate.Config{World: w, File: f, Personas: pack.Personas, Samples: o.samples, Seed: o.seed, Reps: o.reps, Workers: o.workers}
	if h.Descriptions != "" {
		if cfg.Descriptions, err = lint.LoadDescriptions(h.Descriptions, w); err != nil {
			return usageErrf("%s: the run's descriptions: %v", o.episodes, err)
		}
	}
	rep, err := calibrate.Run(ctx, cfg)
	if err != nil {
		if ctx.Err() != nil {
			return exitFor(130)
		}
		return usageErr(err)
	}
	if o.savePersonas != "" {
		if err := writeFileAtomic(o.savePersonas, func(wr io.Writer) error {
			return rep.WritePack(wr, pack.Personas, "Use it with: herd swarm "+h.World+" --personas "+o.savePersonas)
		}); err != nil {
			return usageErr(err)
		}
	}
	if o.json != "" {
		path := o.json
		if path == "-" {
			path = ""
		}
		if err := writeOutput(s, path, rep.WriteJSON); err != nil {
			return err
		}
		if o.json == "-" {
			return nil
		}
	}
	if err := writeOutput(s, "", rep.WriteText); err != nil {
		return err
	}
	if o.savePersonas != "" {
		fmt.Fprintf(s.err, "herd: fitted mix written to %s (herd swarm %s --personas %s)\n", o.savePersonas, h.World, o.savePersonas)
	}
	return nil
}

// episodesLog is the log --episodes writes, for a run of cfg: an
// observer of every finished episode.
func episodesLog(cfg swarm.Config, descriptions, player string) *calibrate.Log {
	h := calibrate.Header{World: cfg.WorldRef, WorldHash: cfg.World.Hash, Seed: cfg.Seed, Agents: cfg.Agents,
		Faults: cfg.Profile.Name, Variants: cfg.Variants, Descriptions: descriptions, Player: player}
	goals := cfg.Goals
	if len(goals) == 0 {
		goals = cfg.World.Goals
	}
	for _, g := range goals {
		h.Goals = append(h.Goals, g.Name)
	}
	seed := cfg.Seed
	return calibrate.NewLog(h, func(i int) uint64 { return swarm.AgentSeed(seed, i) })
}

// observers is several observers as one.
type observers []swarm.Observer

func (obs observers) EpisodeDone(agent int, variant string, o personas.Outcome) {
	for _, x := range obs {
		x.EpisodeDone(agent, variant, o)
	}
}

// playerName is who plays a run's episodes, as an episodes file says it.
func playerName(b *brainOptions) string {
	if b.on() {
		m, _ := b.model()
		return strings.TrimSpace(m)
	}
	return "personas"
}
