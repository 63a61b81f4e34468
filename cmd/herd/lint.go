package main

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/worlds"
)

// lintOptions are the flags of herd lint.
type lintOptions struct {
	variants     []string
	descriptions string
	format       string
	level        string
}

var lintFormats = []string{"table", "json", "md"}

func newLintCmd(s *streams) *cobra.Command {
	opts := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint WORLD",
		Short: "Score a world's tool descriptions and say what to write instead",
		Long: `Lint the tool descriptions of a world (mock:NAME or a world file) with a
deterministic rubric: purpose, usage guidance, side effects, parameters,
length, disambiguation against siblings (measured with the reader model) and
annotations. Every finding comes with a suggested fix.

  herd lint mock:crm
  herd lint mock:crm --variant ambiguous --format md >> "$GITHUB_STEP_SUMMARY"
  herd lint mock:crm --variant ambiguous --descriptions better.yaml

Without --variant every variant is linted (and any new variant the
descriptions file defines). See docs/lint.md.

Exit codes: 0 no error-level finding, 1 an error-level finding (for CI),
2 bad usage or bad input (world file, descriptions file, flags).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLint(s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.variants, "variant", nil, "description variant(s) to lint, comma-separated (default: all)")
	f.StringVar(&opts.descriptions, "descriptions", "", "YAML file of your own tool descriptions (tool: text, or tool: {variant: text})")
	f.StringVar(&opts.format, "format", "table", "output format: "+strings.Join(lintFormats, ", "))
	f.StringVar(&opts.level, "level", lint.LevelInfo, "show findings at this level and above: error, warning, info")
	return cmd
}

// runLint lints every requested variant of one world and prints the
// result.
func runLint(s *streams, opts *lintOptions, ref string) error {
	format := opts.format
	if format == "markdown" {
		format = "md"
	}
	if !slices.Contains(lintFormats, format) {
		return usageErrf("--format %q: want one of %s", opts.format, strings.Join(lintFormats, ", "))
	}
	if !lint.ValidLevel(opts.level) {
		return usageErrf("--level %q: want error, warning or info", opts.level)
	}
	w, err := worlds.Resolve(ref)
	if err != nil {
		return usageErr(err)
	}
	descs := map[string]map[string]string{}
	if opts.descriptions != "" {
		if descs, err = lint.LoadDescriptions(opts.descriptions, w); err != nil {
			return usageErr(err)
		}
	}
	known := lint.VariantNames(w, descs)
	variants := known
	if len(opts.variants) > 0 {
		variants = nil
		for _, v := range opts.variants {
			v = strings.TrimSpace(v)
			if !slices.Contains(known, v) {
				return usageErrf("--variant %q: world %s has no such variant (it has %s)", v, w.Name, strings.Join(known, ", "))
			}
			if !slices.Contains(variants, v) {
				variants = append(variants, v)
			}
		}
	}

	doc := &lint.Document{World: w.Name, Descriptions: opts.descriptions}
	for _, v := range variants {
		doc.Reports = append(doc.Reports, lint.Lint(w, v, descs[v]))
	}
	counts := doc.Counts()
	shown := doc.AtLeast(opts.level)

	var buf bytes.Buffer
	switch format {
	case "json":
		err = lint.WriteJSON(&buf, shown)
	case "md":
		err = lint.WriteMarkdown(&buf, shown)
	default:
		err = lint.WriteTable(&buf, shown, !isTerminal(s.out))
	}
	if err != nil {
		return fmt.Errorf("rendering %s: %w", format, err)
	}
	if _, err := s.out.Write(buf.Bytes()); err != nil {
		return err
	}
	if counts.Errors > 0 {
		return codeErr(exitThreshold, fmt.Errorf("lint: %s", nounCount(counts.Errors, "error-level finding", "error-level findings")))
	}
	return nil
}
