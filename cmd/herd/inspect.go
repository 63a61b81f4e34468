package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/safetext"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/swarm"
)

// inspectOptions are the flags of herd inspect.
type inspectOptions struct {
	variant  string
	format   string
	encoding string
	target   toolTargetOptions
}

func newInspectCmd(s *streams) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect TARGET",
		Short: "Show a world's or an MCP server's tools (and a world's faults, invariants and goals)",
		Long: `Show what a world (mock:NAME or a world file) offers agents and how it is
judged: record types, tools with their kind, annotations, parameters and the
description under one variant, fault profiles with each tool's faults,
invariants, and goals with their outcome classes.

For an MCP server (mcp+stdio:COMMAND… or http://127.0.0.1:PORT/mcp) or a
saved tools/list answer (a .json file), show what a client is sent: the
server's name and version, and every tool with its annotations (with MCP's
defaults for the hints left out), its effect class, its parameters, its
description and the tokens its definition costs. The JSON form keeps the
tools as the server listed them, so it can be saved and linted offline.

  herd inspect mock:crm
  herd inspect mock:crm --variant ambiguous
  herd inspect my-world.yaml --format json | jq '.tools[].name'
  herd inspect 'mcp+stdio:npx -y @modelcontextprotocol/server-memory'
  herd inspect http://127.0.0.1:3001/mcp --format json > tools.json

Exit codes: 0 shown, 2 bad usage, a world or tool list that does not load,
or too many tools, 3 the server could not be reached or broke.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInspect(cmd.Context(), s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.variant, "variant", "", "description variant of a world to show (default: the world's first)")
	f.StringVar(&opts.format, "format", "text", "output format: text or json")
	f.StringVar(&opts.encoding, "encoding", lint.DefaultEncoding, "token encoding of a server's token counts: "+strings.Join(lint.Encodings, ", "))
	opts.target.addFlags(cmd)
	return cmd
}

func runInspect(ctx context.Context, s *streams, opts *inspectOptions, ref string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.format != "text" && opts.format != "json" {
		return usageErrf("--format %q: want text or json", opts.format)
	}
	if !slices.Contains(lint.Encodings, opts.encoding) {
		return usageErrf("--encoding %q: want one of %s", opts.encoding, strings.Join(lint.Encodings, ", "))
	}
	tl, err := loadToolList(ctx, ref, &opts.target)
	if err != nil {
		var le *engine.LoadError
		if errors.As(err, &le) {
			printLoadError(s, le)
			return codeErr(exitUsage, nil)
		}
		return err
	}
	if tl.World == nil {
		if opts.variant != "" {
			return usageErrf("--variant: %s is not a herd world: it has one wording, its own", tl.Source)
		}
		return inspectServer(s, opts, tl)
	}
	w := tl.World
	variant := w.DefaultVariant()
	if opts.variant != "" {
		if !w.HasVariant(opts.variant) {
			return usageErrf("--variant %q: world %s has no such variant (it has %s)", opts.variant, w.Name, strings.Join(w.Variants, ", "))
		}
		variant = opts.variant
	}
	doc := describeWorld(w, variant)
	if opts.format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(doc)
	}
	return writeInspectText(s.out, doc)
}

// What inspect shows of a world is the engine's one description of it,
// the one a served world and the linter use too; the JSON form is that
// struct.
type (
	worldView      = engine.WorldDescription
	profileView    = engine.ProfileDescription
	paramView      = engine.ParamDescription
	faultGroupView = engine.FaultGroupDescription
)

func describeWorld(w *engine.World, variant string) worldView { return w.Describe(variant) }

// inspectLineRunes bounds one line of herd inspect's text: a description
// longer than that is cut, not printed by the megabyte.
const inspectLineRunes = 10000

// writeInspectText renders the view for a terminal or a pager.
func writeInspectText(out io.Writer, v worldView) error {
	b := &strings.Builder{}
	fmt.Fprintf(b, "world %s (version %d) from %s\n", v.World, v.Version, v.File)
	fmt.Fprintf(b, "  sha256 %s, default seed %d, epoch %s\n", v.SHA256, v.Seed, v.Epoch)
	if v.Description != "" {
		fmt.Fprintf(b, "  %s\n", v.Description)
	}
	variants := slices.Clone(v.Variants)
	variants[0] += " (default)"
	fmt.Fprintf(b, "variants: %s; descriptions below are %q\n", strings.Join(variants, ", "), v.Variant)

	fmt.Fprintf(b, "\nTYPES\n")
	for _, t := range v.Types {
		fmt.Fprintf(b, "  %s: %s seeded\n", t.Name, strconv.Itoa(t.Count))
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for _, f := range t.Fields {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", f.Name, f.Type, fieldDetail(f))
		}
		tw.Flush()
	}

	fmt.Fprintf(b, "\nTOOLS\n")
	for _, t := range v.Tools {
		head := "  " + t.Name + ": " + t.Kind
		if t.Record != "" {
			head += " " + t.Record
		}
		if hints := annotationText(t.Annotations); hints != "" {
			head += "  [" + hints + "]"
		}
		fmt.Fprintln(b, head)
		fmt.Fprintf(b, "    %s\n", t.Description)
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for _, p := range t.Params {
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", p.Name, paramDetail(p), p.Description)
		}
		tw.Flush()
		if t.Idempotency != "" {
			fmt.Fprintf(b, "    idempotency key: %s\n", t.Idempotency)
		}
		if len(t.Errors) > 0 {
			fmt.Fprintf(b, "    errors: %s\n", strings.Join(t.Errors, ", "))
		}
	}

	fmt.Fprintf(b, "\nFAULT PROFILES\n")
	for _, p := range v.Faults {
		origin := "from the file"
		if p.Builtin {
			origin = "built in"
		}
		if len(p.Groups) == 0 {
			fmt.Fprintf(b, "  %s (%s): no faults, no latency\n", p.Name, origin)
			continue
		}
		fmt.Fprintf(b, "  %s (%s)\n", p.Name, origin)
		for _, g := range p.Groups {
			fmt.Fprintf(b, "    %s: %s\n", strings.Join(g.Tools, ", "), faultText(g))
		}
	}

	fmt.Fprintf(b, "\nINVARIANTS\n")
	if len(v.Invariants) == 0 {
		fmt.Fprintf(b, "  none\n")
	}
	for _, inv := range v.Invariants {
		scope := "whole state"
		if inv.Each != "" {
			scope = "each " + inv.Each
		}
		fmt.Fprintf(b, "  %s (%s): %s\n", inv.Name, scope, inv.Expr)
	}

	fmt.Fprintf(b, "\nGOALS\n")
	if len(v.Goals) == 0 {
		fmt.Fprintf(b, "  none\n")
	}
	for _, g := range v.Goals {
		fmt.Fprintf(b, "  %s: %s where %s\n", g.Name, g.Target, g.Where)
		fmt.Fprintf(b, "    intent: %s\n", g.Intent)
		if len(g.Knows) > 0 {
			fmt.Fprintf(b, "    knows: %s\n", strings.Join(g.Knows, ", "))
		}
		if g.ConcurrentAfter > 0 {
			fmt.Fprintf(b, "    another actor writes the target after call %d\n", g.ConcurrentAfter)
		}
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for i, o := range g.Outcomes {
			fmt.Fprintf(tw, "    %d. %s\t%s\twhen %s\n", i+1, o.Class, o.Severity, o.When)
		}
		tw.Flush()
	}
	// Empty last cells leave tabwriter padding at line ends. Every line
	// is made safe for a terminal here, in one place: names, descriptions
	// and rules come from a world file a pull request may have written, and
	// an ESC sequence in one would clear the screen or set the title.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(strings.TrimRight(l, " "), inspectLineRunes)
	}
	_, err := io.WriteString(out, strings.Join(lines, "\n"))
	return err
}

func fieldDetail(f engine.FieldDescription) string {
	var parts []string
	if f.Prefix != "" {
		parts = append(parts, "prefix "+f.Prefix)
	}
	if f.Ref != "" {
		parts = append(parts, "→ "+f.Ref)
	}
	if f.Gen != "" {
		parts = append(parts, "gen "+f.Gen)
	}
	if len(f.Values) > 0 {
		parts = append(parts, strings.Join(f.Values, " | "))
	}
	if f.P != nil {
		parts = append(parts, "true in "+percent(*f.P)+" of seeded records")
	}
	parts = append(parts, boundsText(f.Min, f.Max)...)
	if f.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", f.Default))
	}
	if f.Nullable {
		parts = append(parts, "nullable")
	}
	return strings.Join(parts, ", ")
}

func paramDetail(p paramView) string {
	parts := []string{p.Type}
	if p.Required {
		parts = append(parts, "required")
	}
	if len(p.Values) > 0 {
		parts = append(parts, strings.Join(p.Values, " | "))
	}
	if p.Type == string(engine.ParamStr) {
		if p.Min != nil {
			parts = append(parts, fmt.Sprintf("length ≥ %g", *p.Min))
		}
		if p.Max != nil {
			parts = append(parts, fmt.Sprintf("length ≤ %g", *p.Max))
		}
	} else {
		parts = append(parts, boundsText(p.Min, p.Max)...)
	}
	if p.Default != nil {
		parts = append(parts, fmt.Sprintf("default %v", p.Default))
	}
	return strings.Join(parts, ", ")
}

func boundsText(lo, hi *float64) []string {
	var parts []string
	if lo != nil {
		parts = append(parts, fmt.Sprintf("≥ %g", *lo))
	}
	if hi != nil {
		parts = append(parts, fmt.Sprintf("≤ %g", *hi))
	}
	return parts
}

func annotationText(a engine.Annotations) string {
	var hints []string
	for _, h := range []struct {
		on   bool
		name string
	}{{a.ReadOnly, "readOnly"}, {a.Destructive, "destructive"}, {a.Idempotent, "idempotent"}, {a.OpenWorld, "openWorld"}} {
		if h.on {
			hints = append(hints, h.name)
		}
	}
	return strings.Join(hints, ", ")
}

func faultText(g faultGroupView) string {
	var parts []string
	if g.Latency != "" {
		parts = append(parts, "latency "+g.Latency)
	}
	var errs []string
	for _, e := range g.Errors {
		s := fmt.Sprintf("%s %s", e.Kind, percent(e.P))
		if e.RetryAfter != "" {
			s += " (retry after " + e.RetryAfter + ")"
		}
		errs = append(errs, s)
	}
	if len(errs) > 0 {
		parts = append(parts, strings.Join(errs, ", "))
		parts = append(parts, "timeouts after "+g.Timeout)
	}
	return strings.Join(parts, "; ")
}

// percent prints a probability as a percentage without float noise
// (0.005 → "0.5%").
func percent(p float64) string {
	return strconv.FormatFloat(p*100, 'f', -1, 32) + "%"
}

// serverView is what herd inspect shows of an MCP server or a saved tool
// list. Tools are as the server listed them, so the JSON form is itself a
// tools/list result that herd lint and herd inspect read back.
type serverView struct {
	Target   string              `json:"target"`
	Server   *mcp.Implementation `json:"server"`
	Encoding string              `json:"encoding"`
	// Tokens is the sum of the tools' definitions' tokens.
	Tokens int         `json:"tokens"`
	Tools  []*mcp.Tool `json:"tools"`
	// Effects are the tools' effect classes and token counts, in order.
	Effects []toolEffect `json:"effects"`
}

// toolEffect is one tool's effect class and token count.
type toolEffect struct {
	Tool   string      `json:"tool"`
	Effect lint.Effect `json:"effect"`
	Tokens int         `json:"tokens"`
}

func inspectServer(s *streams, opts *inspectOptions, tl *toolList) error {
	tok, err := lint.NewTokenizer(opts.encoding)
	if err != nil {
		return fmt.Errorf("--encoding: %w", err)
	}
	lts := lintTools(tl.Tools)
	r := lint.LintTools(lts, lint.Options{World: tl.Server.Name, Variant: swarm.ExternalVariant, Tokenizer: tok})
	v := serverView{Target: tl.Source, Server: tl.Server, Encoding: tok.Encoding(), Tokens: r.Tokens.Total, Tools: tl.Tools}
	for i, ts := range r.Tools {
		v.Effects = append(v.Effects, toolEffect{Tool: ts.Tool, Effect: ts.Effect, Tokens: r.Tokens.Tools[i].Tokens})
	}
	if opts.format == "json" {
		enc := json.NewEncoder(s.out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	return writeServerText(s.out, v, lts)
}

// writeServerText renders a server's tools for a terminal or a pager.
func writeServerText(out io.Writer, v serverView, lts []lint.Tool) error {
	b := &strings.Builder{}
	name := v.Server.Name
	if v.Server.Version != "" {
		name += " " + v.Server.Version
	}
	fmt.Fprintf(b, "server %s from %s\n", name, v.Target)
	byEffect := map[lint.Effect]int{}
	for _, e := range v.Effects {
		byEffect[e.Effect]++
	}
	fmt.Fprintf(b, "  %s: %d read, %d write, %d destructive, %d unknown; %d tokens of definitions (%s)\n",
		nounCount(len(v.Tools), "tool", "tools"), byEffect[lint.EffectRead], byEffect[lint.EffectWrite],
		byEffect[lint.EffectDestructive], byEffect[lint.EffectUnknown], v.Tokens, v.Encoding)
	fmt.Fprintf(b, "\nTOOLS\n")
	for i, t := range v.Tools {
		e := v.Effects[i]
		head := fmt.Sprintf("  %s: %s, %d tokens  [%s]", t.Name, e.Effect, e.Tokens, mcpHintText(t.Annotations))
		fmt.Fprintln(b, head)
		if t.Description != "" {
			fmt.Fprintf(b, "    %s\n", t.Description)
		}
		tw := tabwriter.NewWriter(b, 0, 4, 2, ' ', 0)
		for _, p := range lts[i].Params {
			detail := p.Type
			if p.Required {
				detail += ", required"
			}
			if len(p.Values) > 0 {
				detail += ", " + strings.Join(p.Values, " | ")
			}
			fmt.Fprintf(tw, "    %s\t%s\t%s\n", p.Name, detail, p.Description)
		}
		tw.Flush()
	}
	// As for a world: every line made safe for a terminal, in one place —
	// a server's names and texts are whatever it sends.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = safetext.Terminal(strings.TrimRight(l, " "), inspectLineRunes)
	}
	_, err := io.WriteString(out, strings.Join(lines, "\n"))
	return err
}

// mcpHintText is a tool's hints as MCP reads them: the ones the server
// left out shown with their default, and destructive and idempotent only
// when they mean something (the tool is not read-only).
func mcpHintText(a *mcp.ToolAnnotations) string {
	if a == nil {
		return "no annotations: not read-only, destructive, not idempotent, open world (MCP defaults)"
	}
	if a.ReadOnlyHint {
		return "readOnly" + openWorldText(a)
	}
	var hints []string
	switch {
	case a.DestructiveHint == nil:
		hints = append(hints, "destructive (default)")
	case *a.DestructiveHint:
		hints = append(hints, "destructive")
	default:
		hints = append(hints, "not destructive")
	}
	if a.IdempotentHint {
		hints = append(hints, "idempotent")
	}
	return strings.Join(hints, ", ") + openWorldText(a)
}

func openWorldText(a *mcp.ToolAnnotations) string {
	switch {
	case a.OpenWorldHint == nil:
		return ", open world (default)"
	case *a.OpenWorldHint:
		return ", open world"
	}
	return ", closed world"
}
