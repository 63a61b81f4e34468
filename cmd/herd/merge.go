package main

import (
	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/report"
)

// mergeOptions are the flags of herd merge.
type mergeOptions struct {
	output string
}

func newMergeCmd(s *streams) *cobra.Command {
	opts := &mergeOptions{}
	cmd := &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Combine the shard results of one run into the single-machine result",
		Long: `Combine the results of a run split with --shard k/n into exactly the
document one machine would have written: counts summed, samples re-cut,
thresholds judged again. Every shard 0..n-1 must be given once, and all must
come from the same run (world, seed, variants, faults, mix, agents, goals).

  herd merge shard-*.json -o run.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runMerge(s, opts, args)
		},
	}
	cmd.Flags().StringVarP(&opts.output, "output", "o", "", "write the merged results to FILE instead of standard output")
	return cmd
}

func runMerge(s *streams, opts *mergeOptions, paths []string) error {
	docs, err := readAllResults(s, paths)
	if err != nil {
		return err
	}
	merged, err := report.MergeLabeled(paths, docs)
	if err != nil {
		return usageErr(err)
	}
	return writeOutput(s, opts.output, merged.Write)
}
