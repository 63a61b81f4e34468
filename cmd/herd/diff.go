package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/report"
)

// diffOptions are the flags of herd diff.
type diffOptions struct {
	minEffect     string
	format        string
	output        string
	allowMismatch bool
}

func newDiffCmd(s *streams) *cobra.Command {
	opts := &diffOptions{}
	cmd := &cobra.Command{
		Use:   "diff BASE.json HEAD.json",
		Short: "Flag the rates that got worse from one run to another",
		Long: `Compare two results documents rate by rate — harmful overall, per goal
and per persona, every outcome class — and flag the ones that got
significantly worse. Runs with the same seed, agents and mix are compared as
paired (McNemar), others as independent samples; p-values are Holm-corrected.

  herd diff main.json pr.json --min-effect 2% --format md

Runs of different worlds or goals are refused (their rates measure different
things); --allow-mismatch compares them anyway.

Exit codes: 0 no regression, 1 a rate got significantly worse (p < 0.05 after
correction) by at least --min-effect, 2 bad usage, an unreadable file or runs
of different worlds or goals.`,
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runDiff(s, opts, args[0], args[1])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.minEffect, "min-effect", "2%", "smallest change that counts as a regression, e.g. 2% or 0.02")
	f.StringVar(&opts.format, "format", "terminal", "output format: terminal, md or json")
	f.StringVarP(&opts.output, "output", "o", "", "write the diff to FILE instead of standard output")
	f.BoolVar(&opts.allowMismatch, "allow-mismatch", false, "compare runs of different worlds or goals (refused otherwise)")
	return cmd
}

func runDiff(s *streams, opts *diffOptions, basePath, headPath string) error {
	minEffect, err := parseFraction(opts.minEffect)
	if err != nil {
		return usageErrf("--min-effect %q: %v", opts.minEffect, err)
	}
	if opts.format != "terminal" && opts.format != "md" && opts.format != "markdown" && opts.format != "json" {
		return usageErrf("--format %q: want terminal, md or json", opts.format)
	}
	docs, err := readAllResults(s, []string{basePath, headPath})
	if err != nil {
		return err
	}
	if err := report.Comparable(docs[0], docs[1]); err != nil {
		if !opts.allowMismatch {
			return usageErrf("%s vs %s: %v; --allow-mismatch compares them anyway", basePath, headPath, err)
		}
		fmt.Fprintf(s.err, "herd: diff: %s vs %s: %v; compared as asked (--allow-mismatch)\n", basePath, headPath, err)
	}
	d, err := report.Diff(docs[0], docs[1], report.DiffOptions{MinEffect: minEffect, AllowMismatch: opts.allowMismatch})
	if err != nil {
		return usageErrf("%s vs %s: %w", basePath, headPath, err)
	}
	plain := opts.output != "" || !isTerminal(s.out)
	err = writeOutput(s, opts.output, func(w io.Writer) error {
		switch opts.format {
		case "json":
			return report.DiffJSON(w, d)
		case "md", "markdown":
			return report.DiffMarkdown(w, d)
		}
		return report.DiffTerminal(w, d, plain)
	})
	if err != nil {
		return err
	}
	if d.Regressions > 0 {
		return codeErr(exitThreshold, fmt.Errorf("%d rate(s) regressed from %s to %s", d.Regressions, basePath, headPath))
	}
	return nil
}

// parseFraction reads "2%", "0.5%" or "0.02" as a fraction in [0, 1].
func parseFraction(s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(t, "%"), 64)
	if err != nil {
		return 0, fmt.Errorf("not a number or percentage")
	}
	if pct {
		v /= 100
	}
	if !(v >= 0 && v <= 1) { // NaN too
		return 0, fmt.Errorf("must lie between 0%% and 100%%")
	}
	return v, nil
}
