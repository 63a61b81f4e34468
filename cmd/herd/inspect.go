package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

// inspectOptions are the flags of herd inspect.
type inspectOptions struct {
	variant string
	format  string
}

func newInspectCmd(s *streams) *cobra.Command {
	opts := &inspectOptions{}
	cmd := &cobra.Command{
		Use:   "inspect WORLD",
		Short: "Show a world's tools, fault profiles, invariants and goals",
		Long: `Show what a world (mock:NAME or a world file) offers agents and how it is
judged: record types, tools with their kind, annotations, parameters and the
description under one variant, fault profiles with each tool's faults,
invariants, and goals with their outcome classes.

  herd inspect mock:crm
  herd inspect mock:crm --variant ambiguous
  herd inspect my-world.yaml --format json | jq '.tools[].name'

Exit codes: 0 shown, 2 bad usage or a world that does not load.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runInspect(s, opts, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.variant, "variant", "", "description variant to show (default: the world's first)")
	f.StringVar(&opts.format, "format", "text", "output format: text or json")
	return cmd
}

func runInspect(s *streams, opts *inspectOptions, ref string) error {
	if opts.format != "text" && opts.format != "json" {
		return usageErrf("--format %q: want text or json", opts.format)
	}
	w, err := worlds.Resolve(ref)
	if err != nil {
		printLoadError(s, err)
		return codeErr(exitUsage, nil)
	}
	variant := w.Variants[0]
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
	// Empty last cells leave tabwriter padding at line ends.
	lines := strings.Split(b.String(), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
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
