package main

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// lintOptions are the flags of herd lint.
type lintOptions struct {
	variants     []string
	descriptions string
	format       string
	level        string
	encoding     string
	thresholds   []string
	target       toolTargetOptions
}

var lintFormats = []string{"table", "json", "md"}

func newLintCmd(s *streams) *cobra.Command {
	opts := &lintOptions{}
	cmd := &cobra.Command{
		Use:   "lint TARGET",
		Short: "Score tool descriptions, count their tokens, and say what to write instead",
		Long: `Lint the tool descriptions of a world (mock:NAME or a world file), of an MCP
server (mcp+stdio:COMMAND… or http://127.0.0.1:PORT/mcp), or of a saved
tools/list answer (a .json file) with a deterministic rubric: purpose, usage
guidance, side effects, parameters, length, disambiguation against siblings
(measured with the reader model, for worlds) and annotations. Every tool gets
an effect class (read, write, destructive or unknown) and a token count of
the definition a model is sent; every finding comes with a suggested fix.

  herd lint mock:crm
  herd lint mock:crm --variant ambiguous --format md >> "$GITHUB_STEP_SUMMARY"
  herd lint mock:crm --variant ambiguous --descriptions better.yaml
  herd lint 'mcp+stdio:npx -y @modelcontextprotocol/server-memory'
  herd lint tools.json --threshold 'tokens<4000'

Without --variant every variant of a world is linted (and any new variant
the descriptions file defines). See docs/lint.md.

Exit codes: 0 no error-level finding and every --threshold kept, 1 an
error-level finding or a broken --threshold (for CI), 2 bad usage or bad
input (world file, tool list, descriptions file, flags, too many tools),
3 the server could not be reached or broke.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runLint(cmd.Context(), s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringSliceVar(&opts.variants, "variant", nil, "description variant(s) of a world to lint, comma-separated (default: all)")
	f.StringVar(&opts.descriptions, "descriptions", "", "YAML file of your own tool descriptions for a world (tool: text, or tool: {variant: text})")
	f.StringVar(&opts.format, "format", "table", "output format: "+strings.Join(lintFormats, ", "))
	f.StringVar(&opts.level, "level", lint.LevelInfo, "show findings at this level and above: error, warning, info")
	f.StringVar(&opts.encoding, "encoding", lint.DefaultEncoding, "token encoding of the counts: "+strings.Join(lint.Encodings, ", "))
	f.StringArrayVar(&opts.thresholds, "threshold", nil, "token budget that fails the lint when reached: tokens<N (the tool set) or TOOL:tokens<N (repeatable)")
	opts.target.addFlags(cmd)
	return cmd
}

// runLint lints the tools behind arg — every requested variant of a
// world, or a server's tool list — and prints the result.
func runLint(ctx context.Context, s *streams, opts *lintOptions, arg string) error {
	if ctx == nil {
		ctx = context.Background()
	}
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
	if !slices.Contains(lint.Encodings, opts.encoding) {
		return usageErrf("--encoding %q: want one of %s", opts.encoding, strings.Join(lint.Encodings, ", "))
	}
	var budgets []lint.TokenThreshold
	for _, spec := range opts.thresholds {
		th, err := lint.ParseTokenThreshold(spec)
		if err != nil {
			return usageErrf("--threshold: %v", err)
		}
		budgets = append(budgets, th)
	}
	tl, err := loadToolList(ctx, arg, &opts.target)
	if err != nil {
		return err
	}
	tok, err := lint.NewTokenizer(opts.encoding)
	if err != nil {
		return fmt.Errorf("--encoding: %w", err)
	}
	var doc *lint.Document
	if tl.World != nil {
		doc, err = lintWorld(ctx, opts, tl.World, tok)
	} else {
		doc, err = lintServer(ctx, opts, tl, tok)
	}
	if err != nil {
		return err
	}
	for _, th := range budgets {
		for i := range doc.Reports {
			v, err := th.Judge(&doc.Reports[i])
			if err != nil {
				return usageErrf("--threshold: %v", err)
			}
			doc.Thresholds = append(doc.Thresholds, v)
		}
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
	var failed []string
	if counts.Errors > 0 {
		failed = append(failed, nounCount(counts.Errors, "error-level finding", "error-level findings"))
	}
	if n := doc.Failed(); n > 0 {
		failed = append(failed, nounCount(n, "token budget", "token budgets")+" broken")
	}
	if len(failed) > 0 {
		return codeErr(exitThreshold, fmt.Errorf("lint: %s", strings.Join(failed, ", ")))
	}
	return nil
}

// lintWorld lints every requested variant of a world.
func lintWorld(ctx context.Context, opts *lintOptions, w *engine.World, tok *lint.Tokenizer) (*lint.Document, error) {
	descs := map[string]map[string]string{}
	var err error
	if opts.descriptions != "" {
		if descs, err = lint.LoadDescriptions(opts.descriptions, w); err != nil {
			return nil, usageErr(err)
		}
	}
	known := lint.VariantNames(w, descs)
	variants := known
	if len(opts.variants) > 0 {
		variants = nil
		for _, v := range opts.variants {
			v = strings.TrimSpace(v)
			if !slices.Contains(known, v) {
				return nil, usageErrf("--variant %q: world %s has no such variant (it has %s)", v, w.Name, strings.Join(known, ", "))
			}
			if !slices.Contains(variants, v) {
				variants = append(variants, v)
			}
		}
	}
	doc := &lint.Document{World: w.Name, Descriptions: opts.descriptions, Encoding: tok.Encoding()}
	for _, v := range variants {
		r, err := lint.LintContext(ctx, w, v, descs[v], tok)
		if err != nil {
			return nil, lintInterrupted(ctx, err)
		}
		doc.Reports = append(doc.Reports, r)
	}
	return doc, nil
}

// lintServer lints a server's tool list (or a saved one): one report, of
// the server's own texts, judged on the texts alone (a server has no goals
// for the reader model to measure confusions on).
func lintServer(ctx context.Context, opts *lintOptions, tl *toolList, tok *lint.Tokenizer) (*lint.Document, error) {
	if len(opts.variants) > 0 {
		return nil, usageErrf("--variant: %s is not a herd world: it has one wording, its own", tl.Source)
	}
	if opts.descriptions != "" {
		return nil, usageErrf("--descriptions: %s is not a herd world; to try your own wording, run a world built from it (herd new --from)", tl.Source)
	}
	r, err := lint.LintToolsContext(ctx, lintTools(tl.Tools), lint.Options{World: tl.Server.Name, Variant: swarm.ExternalVariant, Tokenizer: tok})
	if err != nil {
		return nil, lintInterrupted(ctx, err)
	}
	r.Notes = append(r.Notes, "not a herd world: disambiguation judged from the texts alone")
	name := tl.Server.Name
	if tl.Server.Version != "" {
		name += " " + tl.Server.Version
	}
	return &lint.Document{World: name, Target: tl.Source, Encoding: tok.Encoding(), Reports: []lint.Report{r}}, nil
}

// lintInterrupted is the error of a lint that stopped: the exit code of
// the signal that stopped it.
func lintInterrupted(ctx context.Context, err error) error {
	if code, ok := interruptCode(ctx); ok {
		return codeErr(code, fmt.Errorf("lint: %w", context.Cause(ctx)))
	}
	return err
}

// serverLintTokens is what an external server's tool definitions cost.
func serverLintTokens(tools []*mcp.Tool) []report.LintTokens {
	tok, err := lint.NewTokenizer(lint.DefaultEncoding)
	if err != nil {
		return nil
	}
	return []report.LintTokens{swarm.ResultsTokens(swarm.ExternalVariant, tok.Cost(lintTools(tools)))}
}
