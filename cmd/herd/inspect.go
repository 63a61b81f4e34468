package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
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

// worldView is what inspect shows of a world; the JSON form is this struct.
type worldView struct {
	World       string          `json:"world"`
	Version     int             `json:"version"`
	File        string          `json:"file"`
	SHA256      string          `json:"sha256"`
	Seed        uint64          `json:"seed"`
	Epoch       string          `json:"epoch"`
	Description string          `json:"description"`
	Variants    []string        `json:"variants"`
	Variant     string          `json:"variant"`
	Types       []serve.TypeDoc `json:"types"`
	Tools       []toolView      `json:"tools"`
	Faults      []profileView   `json:"fault_profiles"`
	Invariants  []invariantView `json:"invariants"`
	Goals       []goalView      `json:"goals"`
	ErrorCodes  []string        `json:"error_codes"`
}

// toolView is a tool as the served world lists it (control.ToolDoc), plus
// what inspect adds: params, idempotency key, error codes, input schema.
type toolView struct {
	control.ToolDoc
	Key         string         `json:"key,omitempty"`
	Idempotency string         `json:"idempotency,omitempty"`
	Errors      []string       `json:"errors,omitempty"`
	Params      []paramView    `json:"params"`
	InputSchema map[string]any `json:"input_schema"`
}

type paramView struct {
	Name        string   `json:"name"`
	Type        string   `json:"type"`
	Required    bool     `json:"required,omitempty"`
	Default     any      `json:"default,omitempty"`
	Min         *float64 `json:"min,omitempty"`
	Max         *float64 `json:"max,omitempty"`
	Values      []string `json:"values,omitempty"`
	Description string   `json:"description,omitempty"`
}

type profileView struct {
	Name    string           `json:"name"`
	Builtin bool             `json:"builtin"`
	Groups  []faultGroupView `json:"tools"` // tools that share the same faults
}

type faultGroupView struct {
	Tools   []string         `json:"tools"`
	Latency string           `json:"latency,omitempty"`
	Timeout string           `json:"timeout"`
	Errors  []faultErrorView `json:"errors"`
}

type faultErrorView struct {
	Kind       string  `json:"kind"`
	P          float64 `json:"p"`
	RetryAfter string  `json:"retry_after,omitempty"`
	Message    string  `json:"message,omitempty"`
}

type invariantView struct {
	Name    string `json:"name"`
	Each    string `json:"each,omitempty"`
	Expr    string `json:"expr"`
	Message string `json:"message"`
}

type goalView struct {
	Name            string        `json:"name"`
	Intent          string        `json:"intent"`
	Target          string        `json:"target"`
	Where           string        `json:"where"`
	Knows           []string      `json:"knows"`
	ConcurrentAfter int           `json:"concurrent_after_calls,omitempty"`
	Outcomes        []outcomeView `json:"outcomes"`
}

type outcomeView struct {
	Class    string `json:"class"`
	Severity string `json:"severity"`
	When     string `json:"when"`
}

// describeWorld gathers everything inspect shows, in file order. Record
// types and tools are described as the served world describes them
// (world://NAME/schema and world://NAME), so the two never disagree.
func describeWorld(w *engine.World, variant string) worldView {
	v := worldView{
		World: w.Name, Version: w.Version, File: w.File, SHA256: w.Hash, Seed: w.DefaultSeed,
		Epoch: w.Epoch.Format(time.RFC3339), Description: w.Description,
		Variants: w.Variants, Variant: variant, ErrorCodes: w.ErrorCodes(),
		Types: serve.DescribeTypes(w), Tools: []toolView{}, Faults: []profileView{}, Invariants: []invariantView{}, Goals: []goalView{},
	}
	for _, t := range w.Tools {
		tv := toolView{ToolDoc: serve.DescribeTool(t, variant), Key: t.Key, Idempotency: t.Idempotency, Errors: t.ErrorCodes(),
			Params: []paramView{}, InputSchema: t.InputSchema()}
		for _, p := range t.Params {
			// Params have no datetime type: a default is JSON-ready as it is.
			tv.Params = append(tv.Params, paramView{Name: p.Name, Type: string(p.Type), Required: p.Required,
				Default: p.Default, Min: p.Min, Max: p.Max, Values: p.Values, Description: p.Description})
		}
		v.Tools = append(v.Tools, tv)
	}
	for _, p := range w.Profiles {
		v.Faults = append(v.Faults, describeProfile(w, p))
	}
	for _, inv := range w.Invariants {
		iv := invariantView{Name: inv.Name, Expr: inv.Expr(), Message: inv.Message}
		if inv.Each != nil {
			iv.Each = inv.Each.Name
		}
		v.Invariants = append(v.Invariants, iv)
	}
	for _, g := range w.Goals {
		gv := goalView{Name: g.Name, Intent: g.Intent, Target: g.Target.Name, Where: g.Where(),
			Knows: g.KnowsKeys, ConcurrentAfter: g.ConcurrentAfter()}
		if gv.Knows == nil {
			gv.Knows = []string{}
		}
		for _, o := range g.Outcomes {
			gv.Outcomes = append(gv.Outcomes, outcomeView{Class: o.Class, Severity: string(o.Severity), When: o.When()})
		}
		v.Goals = append(v.Goals, gv)
	}
	return v
}

// describeProfile groups the tools whose faults are the same, so a profile
// with a default reads as one line plus its exceptions.
func describeProfile(w *engine.World, p *engine.FaultProfile) profileView {
	pv := profileView{Name: p.Name, Builtin: p.Builtin, Groups: []faultGroupView{}}
	index := map[string]int{}
	for _, t := range w.Tools {
		tf := p.For(t)
		if tf == nil || (len(tf.Errors) == 0 && tf.Latency == (engine.Latency{})) {
			continue
		}
		g := faultGroupView{Latency: latencyText(tf.Latency), Timeout: tf.Timeout().String(), Errors: []faultErrorView{}}
		for _, e := range tf.Errors {
			ev := faultErrorView{Kind: e.Kind, P: e.P, Message: e.Message}
			if e.RetryAfter > 0 {
				ev.RetryAfter = e.RetryAfter.String()
			}
			g.Errors = append(g.Errors, ev)
		}
		key, _ := json.Marshal(g)
		if i, ok := index[string(key)]; ok {
			pv.Groups[i].Tools = append(pv.Groups[i].Tools, t.Name)
			continue
		}
		index[string(key)] = len(pv.Groups)
		g.Tools = []string{t.Name}
		pv.Groups = append(pv.Groups, g)
	}
	return pv
}

func latencyText(l engine.Latency) string {
	switch {
	case l.Median > 0:
		return fmt.Sprintf("lognormal, median %s, p99 %s", l.Median, l.P99)
	case l.Max > 0:
		return fmt.Sprintf("uniform %s–%s", l.Min, l.Max)
	case l.Fixed > 0:
		return "fixed " + l.Fixed.String()
	}
	return ""
}

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

func fieldDetail(f serve.FieldDoc) string {
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
