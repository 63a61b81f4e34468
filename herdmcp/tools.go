package herdmcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
)

// Tool names.
const (
	ToolListWorlds    = "list_worlds"
	ToolDescribeWorld = "describe_world"
	ToolLintWorld     = "lint_world"
	ToolLintServer    = "lint_server"
	ToolRunSwarm      = "run_swarm"
	ToolCompare       = "compare_wordings"
	ToolExplain       = "explain_choice"
	ToolListResults   = "list_results"
	ToolReadResults   = "read_results"
)

func ptr[T any](v T) *T { return &v }

// reading is the annotations of a tool that only reads: the configured
// worlds and files, or the results folder.
func reading(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, OpenWorldHint: ptr(false)}
}

// running is the annotations of a tool that runs a swarm: it writes a
// results document (not read-only), never deletes or overwrites anything
// but that run's own document (not destructive), gives the same counts
// for the same arguments and writes them to the same run id
// (idempotent), and touches nothing beyond this machine's in-process
// worlds (closed world).
func running(title string) *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: false, DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
}

func (s *Server) addTools() {
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolListWorlds, Annotations: reading("List worlds"),
		Description: "List the worlds this server may run: each one's name, tools, goals, description variants and fault profiles."}, s.listWorlds)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolDescribeWorld, Annotations: reading("Describe a world"),
		Description: "Describe one configured world in full: record types, every tool with its description under a variant, parameters and annotations, fault profiles, invariants and goals with their outcome classes."}, s.describeWorld)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolLintWorld, Annotations: reading("Lint descriptions"),
		Description: "Score a world's tool descriptions (optionally with a configured descriptions file of your own wordings) with herd's deterministic rubric, and say what to write instead. Answers in Markdown."}, s.lintWorld)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolLintServer,
		// It starts or contacts a configured external server to list its
		// tools: it reads only, but beyond herd's own worlds.
		Annotations: &mcp.ToolAnnotations{Title: "Lint a server's descriptions", ReadOnlyHint: true, OpenWorldHint: ptr(true)},
		Description: "List the tools of a configured external MCP server and score their descriptions with herd's rubric (without its reader-model checks, which need a world's goals). Answers in Markdown."}, s.lintServer)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolRunSwarm, Annotations: running("Run a swarm"),
		Description: "Run a seeded swarm of scripted-persona agents against a configured world, in-process, and report how often they reached their goal and how often they damaged the data, with 95% intervals and a verdict over the thresholds given. The answer gives the seed, the exact herd swarm command that reproduces the run, and where its results were saved (also a herd-results:// resource). Cancellable; reports progress."}, s.runSwarm)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolCompare, Annotations: running("Compare two wordings"),
		Description: "Run the same agents under two wordings of a world's tools (two variants; a configured descriptions file can define one of them) and say, per goal and outcome, whether the second wording changes the rate: a paired difference with its 95% interval and McNemar's exact test. Saved like run_swarm. Cancellable; reports progress."}, s.compare)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolExplain, Annotations: reading("Explain a persona's choice"),
		Description: "Explain why a persona of the reader model picks the tool it picks first for a goal: per tool, the text it reads, the goal words matched, the cues, the score and the probability."}, s.explain)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolListResults, Annotations: reading("List saved runs"),
		Description: "List the runs saved in this server's results folder, the latest first, with their world, seed, verdict and reproducing command."}, s.listResults)
	mcp.AddTool(s.mcp, &mcp.Tool{Name: ToolReadResults, Annotations: reading("Read a saved run"),
		Description: "Render a saved run of this server's results folder as a Markdown report (short enough for a pull-request comment)."}, s.readResults)
}

// text is a tool result holding one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// toolError is the tool result of a refusal or a failure: isError, with a
// message a model can act on.
func toolError(err error) *mcp.CallToolResult {
	r := text(err.Error())
	r.IsError = true
	return r
}

// ---- list_worlds

// NoInput is the input of a tool that takes no arguments.
type NoInput struct{}

// WorldSummary is one configured world.
type WorldSummary struct {
	Name        string   `json:"name"`
	Ref         string   `json:"ref"` // as configured: mock:crm or a file
	Description string   `json:"description"`
	Tools       []string `json:"tools"`
	Goals       []string `json:"goals"`
	Variants    []string `json:"variants"`
	Faults      []string `json:"faults"`
	Seed        uint64   `json:"seed"`
}

// WorldList is list_worlds' answer.
type WorldList struct {
	Worlds       []WorldSummary `json:"worlds"`
	Descriptions []string       `json:"descriptions"` // configured descriptions files, by name
	Servers      []string       `json:"servers"`      // configured external servers, by name
	Personas     []string       `json:"personas"`
	MaxAgents    int            `json:"max_agents"`
}

func (s *Server) listWorlds(_ context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, WorldList, error) {
	out := WorldList{Descriptions: []string{}, Servers: []string{}, Personas: personas.Builtin().Names(), MaxAgents: s.cat.maxAgents}
	var b strings.Builder
	for _, cw := range s.cat.worlds {
		w := cw.world
		tools := make([]string, len(w.Tools))
		for i, t := range w.Tools {
			tools[i] = t.Name
		}
		ws := WorldSummary{Name: w.Name, Ref: cw.ref, Description: w.Description, Tools: tools, Goals: goalList(w),
			Variants: slices.Clone(w.Variants), Faults: w.ProfileNames(), Seed: w.DefaultSeed}
		out.Worlds = append(out.Worlds, ws)
		fmt.Fprintf(&b, "%s (%s): %d tools; goals %s; variants %s; faults %s\n  %s\n", w.Name, cw.ref, len(tools),
			strings.Join(ws.Goals, ", "), strings.Join(ws.Variants, ", "), strings.Join(ws.Faults, ", "), firstLine(w.Description))
	}
	for _, d := range s.cat.descriptions {
		out.Descriptions = append(out.Descriptions, d.Name)
	}
	if len(out.Descriptions) > 0 {
		fmt.Fprintf(&b, "descriptions files: %s\n", strings.Join(out.Descriptions, ", "))
	}
	for _, sv := range s.cat.servers {
		out.Servers = append(out.Servers, sv.Name)
	}
	if len(out.Servers) > 0 {
		fmt.Fprintf(&b, "external servers (lint_server): %s\n", strings.Join(out.Servers, ", "))
	}
	fmt.Fprintf(&b, "personas: %s\nagents per run: at most %s\n", strings.Join(out.Personas, ", "), report.Thousands(int64(out.MaxAgents)))
	return text(b.String()), out, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// ---- describe_world

// DescribeInput is describe_world's input.
type DescribeInput struct {
	World   string `json:"world" jsonschema:"a configured world, by name"`
	Variant string `json:"variant,omitempty" jsonschema:"the description variant to show the tools under (default: the world's first)"`
}

func (s *Server) describeWorld(_ context.Context, _ *mcp.CallToolRequest, in DescribeInput) (*mcp.CallToolResult, any, error) {
	cw, err := s.cat.world(in.World)
	if err != nil {
		return toolError(err), nil, nil
	}
	w := cw.world
	v := in.Variant
	if v == "" {
		v = w.DefaultVariant()
	}
	if !w.HasVariant(v) {
		return toolError(unknownVariant("variant", w, v, w.Variants)), nil, nil
	}
	d := w.Describe(v)
	doc, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	return text(string(doc)), d, nil
}

// ---- lint_world

// LintInput is lint_world's input.
type LintInput struct {
	World        string   `json:"world" jsonschema:"a configured world, by name"`
	Variants     []string `json:"variants,omitempty" jsonschema:"variants to lint (default: all, and any new one the descriptions file defines)"`
	Descriptions string   `json:"descriptions,omitempty" jsonschema:"a configured descriptions file, by name, whose wordings replace the world's"`
	Level        string   `json:"level,omitempty" jsonschema:"show findings at this level and above: error, warning, info (default info)"`
}

// LintOutput is lint_world's answer besides its Markdown.
type LintOutput struct {
	World    string      `json:"world"`
	Variants []string    `json:"variants"`
	Counts   lint.Counts `json:"counts"`
	// Tokens is what the tool definitions cost a model, per variant
	// (lint.DefaultEncoding).
	Tokens []report.LintTokens `json:"tokens"`
}

// tokenCosts counts what each variant's tool definitions cost a model,
// and says so in a line per variant.
func tokenCosts(variants []string, tools func(variant string) []lint.Tool) ([]report.LintTokens, string) {
	tok, err := lint.NewTokenizer(lint.DefaultEncoding)
	if err != nil {
		return []report.LintTokens{}, ""
	}
	out := []report.LintTokens{}
	var b strings.Builder
	for _, v := range variants {
		lt := swarm.ResultsTokens(v, tok.Cost(tools(v)))
		out = append(out, lt)
		fmt.Fprintf(&b, "tool definitions under %s: %s tokens (%s)\n", v, report.Thousands(lt.Total), lt.Encoding)
	}
	return out, b.String()
}

func (s *Server) lintWorld(_ context.Context, _ *mcp.CallToolRequest, in LintInput) (*mcp.CallToolResult, *LintOutput, error) {
	cw, err := s.cat.world(in.World)
	if err != nil {
		return toolError(err), nil, nil
	}
	w := cw.world
	level := in.Level
	if level == "" {
		level = lint.LevelInfo
	}
	if !lint.ValidLevel(level) {
		return toolError(fmt.Errorf("level %q: want error, warning or info", in.Level)), nil, nil
	}
	descs, name, err := s.descriptionsFor(in.Descriptions, w)
	if err != nil {
		return toolError(err), nil, nil
	}
	known := lint.VariantNames(w, descs)
	variants := known
	if len(in.Variants) > 0 {
		variants = nil
		for _, v := range in.Variants {
			if !slices.Contains(known, v) {
				return toolError(unknownVariant("variants", w, v, known)), nil, nil
			}
			if !slices.Contains(variants, v) {
				variants = append(variants, v)
			}
		}
	}
	doc := &lint.Document{World: w.Name, Descriptions: name}
	for _, v := range variants {
		doc.Reports = append(doc.Reports, lint.Lint(w, v, descs[v]))
	}
	var md bytes.Buffer
	if err := lint.WriteMarkdown(&md, doc.AtLeast(level)); err != nil {
		return nil, nil, fmt.Errorf("rendering the lint report: %w", err)
	}
	tokens, line := tokenCosts(variants, func(v string) []lint.Tool { return lint.FromWorld(w, v, descs[v]) })
	return text(line + "\n" + md.String()), &LintOutput{World: w.Name, Variants: variants, Counts: doc.Counts(), Tokens: tokens}, nil
}

// LintServerInput is lint_server's input.
type LintServerInput struct {
	Server string `json:"server" jsonschema:"a configured external server, by name (list_worlds lists them)"`
	Level  string `json:"level,omitempty" jsonschema:"show findings at this level and above: error, warning, info (default info)"`
}

func (s *Server) lintServer(ctx context.Context, _ *mcp.CallToolRequest, in LintServerInput) (*mcp.CallToolResult, *LintOutput, error) {
	sv, err := s.cat.server(in.Server)
	if err != nil {
		return toolError(err), nil, nil
	}
	level := in.Level
	if level == "" {
		level = lint.LevelInfo
	}
	if !lint.ValidLevel(level) {
		return toolError(fmt.Errorf("level %q: want error, warning or info", in.Level)), nil, nil
	}
	name, tools, err := s.cat.listTools(ctx, sv.Path)
	if err != nil {
		return toolError(fmt.Errorf("server %s: %w", sv.Name, err)), nil, nil
	}
	rep := lint.LintTools(tools, lint.Options{World: name, Variant: swarm.ExternalVariant})
	doc := &lint.Document{World: name, Reports: []lint.Report{rep}}
	var md bytes.Buffer
	if err := lint.WriteMarkdown(&md, doc.AtLeast(level)); err != nil {
		return nil, nil, fmt.Errorf("rendering the lint report: %w", err)
	}
	tokens, line := tokenCosts([]string{swarm.ExternalVariant}, func(string) []lint.Tool { return tools })
	return text(line + "\n" + md.String()), &LintOutput{World: name, Variants: []string{swarm.ExternalVariant}, Counts: doc.Counts(), Tokens: tokens}, nil
}

// descriptionsFor reads a configured descriptions file for world w:
// variant → tool → text (empty for none), and its name.
func (s *Server) descriptionsFor(name string, w *engine.World) (map[string]map[string]string, string, error) {
	file, err := s.cat.descriptionsFile(name)
	if err != nil || file.Path == "" {
		return map[string]map[string]string{}, "", err
	}
	d, err := lint.ReadDescriptions(file.Path, w)
	if err != nil {
		return nil, "", fmt.Errorf("descriptions %s: %w", file.Name, err)
	}
	return d.Texts, file.Name, nil
}

// ---- run_swarm and compare_wordings

func (s *Server) runSwarm(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*mcp.CallToolResult, *RunOutput, error) {
	out, summary, err := s.run(ctx, req, in)
	if err != nil {
		return toolError(err), nil, nil
	}
	var b strings.Builder
	b.WriteString(out.header())
	if len(out.Comparisons) > 0 {
		b.WriteString("\n")
		b.WriteString(comparisonText(out.Comparisons))
	}
	b.WriteString("\n")
	b.WriteString(summary)
	return s.answer(out, b.String()), out, nil
}

// CompareInput is compare_wordings' input.
type CompareInput struct {
	World        string      `json:"world" jsonschema:"a configured world, by name"`
	Baseline     string      `json:"baseline" jsonschema:"the first wording: a variant of the world (or of the descriptions file)"`
	Candidate    string      `json:"candidate" jsonschema:"the second wording, compared with the first on the same agents"`
	Descriptions string      `json:"descriptions,omitempty" jsonschema:"a configured descriptions file, by name; a variant it defines (tool: {NAME: text}) can be the candidate"`
	Agents       int         `json:"agents,omitempty" jsonschema:"number of agents, each running under both wordings (default 1000; at most the server's cap)"`
	Seed         *uint64     `json:"seed,omitempty" jsonschema:"run seed (default: the world's seed)"`
	Faults       string      `json:"faults,omitempty" jsonschema:"fault profile (default none)"`
	Mix          []MixWeight `json:"mix,omitempty" jsonschema:"the persona population, in order (default: every built-in persona)"`
	Goals        []string    `json:"goals,omitempty" jsonschema:"goals to run (default: every goal of the world)"`
}

func (s *Server) compare(ctx context.Context, req *mcp.CallToolRequest, in CompareInput) (*mcp.CallToolResult, *RunOutput, error) {
	if in.Baseline == "" || in.Candidate == "" {
		return toolError(errors.New("baseline and candidate: name the two wordings to compare (list_worlds gives each world's variants)")), nil, nil
	}
	if in.Baseline == in.Candidate {
		return toolError(fmt.Errorf("candidate: %q is the baseline too; compare two different wordings", in.Candidate)), nil, nil
	}
	out, summary, err := s.run(ctx, req, RunInput{World: in.World, Variants: []string{in.Baseline, in.Candidate},
		Descriptions: in.Descriptions, Agents: in.Agents, Seed: in.Seed, Faults: in.Faults, Mix: in.Mix, Goals: in.Goals})
	if err != nil {
		return toolError(err), nil, nil
	}
	var b strings.Builder
	b.WriteString(out.header())
	fmt.Fprintf(&b, "\n%s vs %s, the same agents under each:\n", in.Baseline, in.Candidate)
	b.WriteString(comparisonText(out.Comparisons))
	b.WriteString("\n")
	b.WriteString(summary)
	return s.answer(out, b.String()), out, nil
}

// answer is a run's tool result: its text; marked an error when the run
// was stopped by a cap (the caller asked for more than it got).
func (s *Server) answer(out *RunOutput, body string) *mcp.CallToolResult {
	r := text(body)
	r.IsError = out.Partial && out.Stopped != "cancelled by the client"
	return r
}

// run checks, runs and saves one swarm, within the caps.
func (s *Server) run(ctx context.Context, req *mcp.CallToolRequest, in RunInput) (*RunOutput, string, error) {
	pr, err := s.cat.prepare(in)
	if err != nil {
		return nil, "", err
	}
	select {
	case s.runs <- struct{}{}:
		defer func() { <-s.runs }()
	default:
		return nil, "", refuse("a run is going already: this server runs at most %d at once (%s); wait for it, or raise the cap in the server's configuration",
			s.cat.maxRuns, s.cat.caps.MaxRuns)
	}
	s.log.Info("run", "run", pr.id, "command", pr.cfg.Command)
	out, summary, err := s.cat.execute(ctx, pr, s.progress(ctx, req), s.store)
	if err != nil {
		return nil, "", err
	}
	s.addRunResource(out.RunID)
	s.log.Info("run saved", "run", out.RunID, "file", out.ResultsFile, "episodes", out.Episodes, "partial", out.Partial)
	return out, summary, nil
}

// progress sends MCP progress notifications when the request carries a
// progress token (nil otherwise).
func (s *Server) progress(ctx context.Context, req *mcp.CallToolRequest) runProgress {
	if req == nil || req.Params == nil || req.Session == nil {
		return nil
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return nil
	}
	return func(done, total int, msg string) {
		// A client gone or slow must not stop the run: the error is
		// only logged.
		if err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
			Progress: float64(done), Total: float64(total), Message: msg}); err != nil && ctx.Err() == nil {
			s.log.Debug("progress notification not sent", "err", err)
		}
	}
}

// ---- explain_choice

// ExplainInput is explain_choice's input.
type ExplainInput struct {
	World        string `json:"world" jsonschema:"a configured world, by name"`
	Goal         string `json:"goal" jsonschema:"the goal whose first choice to explain"`
	Persona      string `json:"persona,omitempty" jsonschema:"the built-in persona (default: every persona, in short)"`
	Variant      string `json:"variant,omitempty" jsonschema:"description variant (default: the world's first)"`
	Descriptions string `json:"descriptions,omitempty" jsonschema:"a configured descriptions file, by name"`
}

func (s *Server) explain(_ context.Context, _ *mcp.CallToolRequest, in ExplainInput) (*mcp.CallToolResult, any, error) {
	cw, err := s.cat.world(in.World)
	if err != nil {
		return toolError(err), nil, nil
	}
	w := cw.world
	g := w.Goal(in.Goal)
	if g == nil {
		return toolError(fmt.Errorf("goal: world %s has no goal %q (it has %s)", w.Name, in.Goal, strings.Join(goalList(w), ", "))), nil, nil
	}
	descs, _, err := s.descriptionsFor(in.Descriptions, w)
	if err != nil {
		return toolError(err), nil, nil
	}
	variant := in.Variant
	if variant == "" {
		variant = w.DefaultVariant()
	}
	if known := lint.VariantNames(w, descs); !slices.Contains(known, variant) {
		return toolError(unknownVariant("variant", w, variant, known)), nil, nil
	}
	base := variant
	if !w.HasVariant(base) {
		base = w.DefaultVariant() // a variant only the file defines reads the first for the rest
	}
	model, err := personas.NewModelWith(w, base, descs[variant])
	if err != nil {
		return toolError(err), nil, nil
	}
	pack := personas.Builtin()
	ps := pack.Personas
	if in.Persona != "" {
		p := pack.Get(in.Persona)
		if p == nil {
			return toolError(fmt.Errorf("persona: no persona %q (the pack has %s)", in.Persona, strings.Join(pack.Names(), ", "))), nil, nil
		}
		ps = []*personas.Persona{p}
	}
	exps := make([]personas.Explanation, len(ps))
	var b strings.Builder
	fmt.Fprintf(&b, "world %s · goal %s · variant %s\nintent: %s\n", w.Name, g.Name, variant, strings.Join(strings.Fields(g.Intent), " "))
	for i, p := range ps {
		exps[i] = model.ExplainChoice(p, g)
		writeExplanation(&b, exps[i], len(ps) == 1)
	}
	if len(ps) == 1 {
		return text(b.String()), exps[0], nil
	}
	return text(b.String()), map[string]any{"explanations": exps}, nil
}

// writeExplanation is one persona's first choice: the tools it most
// likely takes per action, and in full (one persona) why.
func writeExplanation(b *strings.Builder, e personas.Explanation, full bool) {
	fmt.Fprintf(b, "\npersona %s (reads %s); the goal needs %s\n", e.Persona, e.Sees, e.Meant)
	for ai, act := range e.Actions {
		tools := personas.ByLikelihood(act.Tools)
		fmt.Fprintf(b, "  action %d (%s):", ai+1, act.Verb)
		shown := 0
		for _, t := range tools {
			if shown == 3 && !full || t.Parts.P < 0.005 && shown > 0 {
				break
			}
			fmt.Fprintf(b, " %s %.1f%%", t.Tool, 100*t.Parts.P)
			shown++
		}
		b.WriteString("\n")
		if !full {
			continue
		}
		for _, t := range tools[:min(3, len(tools))] {
			var words []string
			for _, m := range t.Matches {
				words = append(words, m.Word+"→"+m.Matched+" ("+m.Relation+")")
			}
			var cues []string
			for _, c := range t.Cues {
				cues = append(cues, fmt.Sprintf("%s ×%.1f", c.Kind, c.Count))
			}
			fmt.Fprintf(b, "    %s: score %+.3f; words %s; cues %s\n", t.Tool, t.Parts.Score, orNone(words), orNone(cues))
			if t.Disagreement != "" {
				fmt.Fprintf(b, "      disagrees: %s\n", t.Disagreement)
			}
		}
	}
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ", ")
}

// ---- list_results and read_results

// SavedRun is one run of the results folder.
type SavedRun struct {
	RunID    string `json:"run_id"`
	Resource string `json:"resource"`
	World    string `json:"world"`
	Seed     uint64 `json:"seed"`
	Agents   int    `json:"agents"`
	Episodes int    `json:"episodes"`
	Partial  bool   `json:"partial"`
	Verdict  string `json:"verdict"`
	Command  string `json:"command"`
}

// SavedRuns is list_results' answer.
type SavedRuns struct {
	Folder string     `json:"folder"`
	Runs   []SavedRun `json:"runs"`
}

func (s *Server) listResults(_ context.Context, _ *mcp.CallToolRequest, _ NoInput) (*mcp.CallToolResult, *SavedRuns, error) {
	runs, err := s.store.list()
	if err != nil {
		return toolError(err), nil, nil
	}
	out := &SavedRuns{Folder: s.store.dir, Runs: []SavedRun{}}
	var b strings.Builder
	fmt.Fprintf(&b, "%d saved run(s) in %s\n", len(runs), s.store.dir)
	for _, r := range runs {
		res, err := s.store.load(r.ID)
		if err != nil {
			fmt.Fprintf(&b, "%s: unreadable: %v\n", r.ID, err)
			continue
		}
		sr := SavedRun{RunID: r.ID, Resource: resultsURI(r.ID), World: res.Run.World.Name, Seed: res.Run.Seed, Agents: res.Run.Agents,
			Episodes: res.Episodes, Partial: res.Partial, Verdict: report.Overall(res.Thresholds), Command: res.Run.Command}
		out.Runs = append(out.Runs, sr)
		partial := ""
		if sr.Partial {
			partial = ", partial"
		}
		fmt.Fprintf(&b, "%s: %s, seed %d, %d episodes%s; %s\n", sr.RunID, sr.World, sr.Seed, sr.Episodes, partial, sr.Command)
	}
	return text(b.String()), out, nil
}

// ReadInput is read_results' input.
type ReadInput struct {
	RunID string `json:"run_id" jsonschema:"a saved run's id, as run_swarm or list_results gives it (e.g. crm-0123456789ab)"`
}

func (s *Server) readResults(_ context.Context, _ *mcp.CallToolRequest, in ReadInput) (*mcp.CallToolResult, any, error) {
	res, err := s.store.load(in.RunID)
	if err != nil {
		return toolError(err), nil, nil
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, res); err != nil {
		return nil, nil, fmt.Errorf("rendering run %s: %w", in.RunID, err)
	}
	return text(md.String()), nil, nil
}

// ---- resources

// addResources lists the runs already saved, and answers any
// herd-results:// URI from the results folder.
func (s *Server) addResources() error {
	runs, err := s.store.list()
	if err != nil {
		return err
	}
	s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "saved run", URITemplate: ResultsScheme + "://{run_id}",
		MIMEType: "application/json", Description: "A saved run's results document (JSON), by run id."}, s.readResource)
	for _, r := range runs {
		s.addRunResource(r.ID)
	}
	return nil
}

// addRunResource lists a saved run as a resource (again, after a rerun:
// the SDK replaces it).
func (s *Server) addRunResource(id string) {
	s.mcp.AddResource(&mcp.Resource{Name: id, URI: resultsURI(id), MIMEType: "application/json",
		Description: "results document of run " + id}, s.readResource)
}

func (s *Server) readResource(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	id, ok := idFromURI(req.Params.URI)
	if !ok {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	data, err := s.store.raw(id)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(req.Params.URI)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(data)}}}, nil
}

// unknownVariant is the error for a variant the world (with its
// descriptions file, if any) does not have, naming the input field and the
// variants there are.
func unknownVariant(field string, w *engine.World, v string, known []string) error {
	return fmt.Errorf("%s: world %s has no variant %q (it has %s)", field, w.Name, v, strings.Join(known, ", "))
}
