package swarm

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/safetext"
	"github.com/herd-sh/herd/internal/version"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// An external server has no world and no goals of its own: the run makes
// one generic goal per tool it may call, and its agents are the external
// personas (personas.ExternalEpisode): an exerciser and an adversary.

// ExternalVariant names the one description variant an external server
// has: the descriptions it serves.
const ExternalVariant = "served"

// ExternalConfig is a run against an external MCP server.
type ExternalConfig struct {
	Target      *target.External
	Server      *mcp.Implementation
	Tools       []*mcp.Tool // as discovered
	Seed        uint64
	Agents      int
	AllowWrites bool
	// AllowOpenWorld lets the swarm call tools that may reach outside the
	// server (openWorldHint true, or absent on a tool that is not
	// read-only: the MCP spec's default is true).
	AllowOpenWorld bool
	// Select, when set, are the name patterns (path.Match globs) of the
	// tools the run may call; Skip those it must not. A pattern that
	// matches no tool is an error (a typo would silently test nothing).
	Select, Skip []string
	// Processes is the size of a stdio server's process pool, started
	// before the clock (0: target.DefaultProcesses).
	Processes int
	Load      Load
	Command   string
	// Thresholds are checked against the tools the run may call before it
	// starts (Check).
	Thresholds []string
	Progress   func(Progress)
	// ProgressEvery is how often Progress is called (0: a second).
	ProgressEvery time.Duration
}

// ExternalRun is what a run against an external server found.
type ExternalRun struct {
	Results *report.Results
	Stats   LoadStats
	// Unusable says why the server could not be tested further (it
	// crashed, hung, or answered nothing usable); "" when it held up.
	Unusable string
	// Stopped is why the run ended (report.StopFinished, …), as the
	// results' timing records it.
	Stopped string
	// Skipped are the tools not called, and why.
	Skipped []report.SkippedTool
}

// readOnly reports the tool's readOnlyHint (false when absent: the MCP
// spec's default).
func readOnly(t *mcp.Tool) bool { return t.Annotations != nil && t.Annotations.ReadOnlyHint }

// OpenWorld reports whether t may reach outside the server: its
// openWorldHint, whose default in the MCP spec is true. A read-only tool
// with no hint is taken as closed: it changes nothing, and most servers
// leave the hint off their reading tools.
func OpenWorld(t *mcp.Tool) bool {
	if a := t.Annotations; a != nil && a.OpenWorldHint != nil {
		return *a.OpenWorldHint
	}
	return !readOnly(t)
}

// whyNot is why the swarm may not call t ("" when it may): left out by
// the patterns, it may write and writes were not allowed, or it may
// reach the open world and that was not allowed.
func (cfg ExternalConfig) whyNot(t *mcp.Tool) string {
	if len(cfg.Select) > 0 && !matchesAny(cfg.Select, t.Name) || matchesAny(cfg.Skip, t.Name) {
		return report.SkipFiltered
	}
	if !cfg.AllowWrites && !readOnly(t) {
		return report.SkipWrites
	}
	if !cfg.AllowOpenWorld && OpenWorld(t) {
		return report.SkipOpenWorld
	}
	return ""
}

func matchesAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

// checkPatterns refuses a malformed pattern, and one that matches no
// tool of the server.
func (cfg ExternalConfig) checkPatterns() error {
	for _, f := range []struct {
		field    string
		patterns []string
	}{{"Select", cfg.Select}, {"Skip", cfg.Skip}} {
		for _, p := range f.patterns {
			if _, err := path.Match(p, ""); err != nil {
				return fieldErr(f.field, "tool pattern %q: %v", p, err)
			}
			found := false
			for _, t := range cfg.Tools {
				if ok, _ := path.Match(p, t.Name); ok {
					found = true
					break
				}
			}
			if !found {
				// The names come from the server: escaped, and a few.
				names := make([]string, len(cfg.Tools))
				for i, t := range cfg.Tools {
					names[i] = safetext.Terminal(t.Name, 60)
				}
				slices.Sort(names)
				if len(names) > 20 {
					names = append(names[:20], fmt.Sprintf("… %d more", len(cfg.Tools)-20))
				}
				return fieldErr(f.field, "tool pattern %q matches no tool of %s (it has %s)", p, cfg.Target.Name(), strings.Join(names, ", "))
			}
		}
	}
	return nil
}

// Check checks the configuration, its thresholds among it, against the
// discovered tools: nothing is called.
func (cfg ExternalConfig) Check() error {
	p, _, err := newExternalPlan(cfg)
	if err != nil {
		return err
	}
	return p.CheckThresholds(cfg.Thresholds, true)
}

// newExternalPlan is the plan of a run against an external server, and
// the tools it may not call.
func newExternalPlan(cfg ExternalConfig) (*Plan, []report.SkippedTool, error) {
	if err := checkAgents(cfg.Agents); err != nil {
		return nil, nil, err
	}
	if cfg.Processes < 0 || cfg.Processes > target.MaxProcesses {
		return nil, nil, fieldErr("Processes", "must be between 1 and %d, got %d", target.MaxProcesses, cfg.Processes)
	}
	if err := cfg.checkPatterns(); err != nil {
		return nil, nil, err
	}
	var tools []*mcp.Tool
	var skipped []report.SkippedTool
	why := map[string]int{}
	for _, t := range cfg.Tools {
		if r := cfg.whyNot(t); r != "" {
			skipped = append(skipped, report.SkippedTool{Tool: t.Name, Reason: r})
			why[r]++
		} else {
			tools = append(tools, t)
		}
	}
	slices.SortFunc(tools, byName)
	slices.SortFunc(skipped, func(a, b report.SkippedTool) int { return strings.Compare(a.Tool, b.Tool) })
	if len(tools) == 0 {
		field, hint := "AllowWrites", "allowing writes lets it call the others"
		switch {
		case why[report.SkipFiltered] == len(cfg.Tools):
			field, hint = "Select", "the tool patterns leave none"
		case why[report.SkipWrites] == 0 && why[report.SkipOpenWorld] > 0:
			field, hint = "AllowOpenWorld", "allowing open-world tools lets it call them"
		}
		return nil, nil, &FieldError{Field: field, Err: fmt.Errorf("%s: no tool the swarm may call (%d tools: %d may write, %d may reach the open world, %d left out by the patterns; %s)",
			cfg.Target.Name(), len(cfg.Tools), why[report.SkipWrites], why[report.SkipOpenWorld], why[report.SkipFiltered], hint)}
	}
	assign, err := NewAssignment(cfg.Seed, cfg.Agents, []float64{1, 1}, len(tools))
	if err != nil {
		return nil, nil, err
	}
	load := cfg.Load
	p := &Plan{
		cfg: Config{Seed: cfg.Seed, Agents: cfg.Agents, Variants: []string{ExternalVariant}, Shard: Shard{0, 1},
			Workers: max(load.MaxInFlight, 1), Load: &load, Command: cfg.Command,
			Progress: cfg.Progress, ProgressEvery: cfg.ProgressEvery},
		assign: assign,
		ext:    &externalPlay{cfg: cfg, tools: tools, known: personas.NewKnown()},
		total:  cfg.Agents,
	}
	p.layout = newExternalLayout(tools)
	p.layout.trace = func(r *AgentResult, v int) (report.Trace, error) {
		return ToReportTrace(r.Index, r.Seed, ExternalVariant, r.Outcomes[v], cfg.Command), nil
	}
	p.layout.flipReplay = func(int, string, string) string { return cfg.Command }
	return p, skipped, nil
}

// RunExternal runs the generic goals against an external server, through
// the one run loop (Plan.Run).
func RunExternal(ctx context.Context, cfg ExternalConfig) (*ExternalRun, error) {
	p, skipped, err := newExternalPlan(cfg)
	if err != nil {
		return nil, err
	}
	if err := p.CheckThresholds(cfg.Thresholds, true); err != nil {
		return nil, err
	}
	out := &ExternalRun{Skipped: skipped}
	// The pool is started and initialized before the run's clock: the
	// latency measured is the server's, not that of starting it.
	processes := cmp.Or(cfg.Processes, target.DefaultProcesses)
	if _, err := cfg.Target.Warm(ctx, processes); err != nil {
		return nil, &UnreachableError{err}
	}
	res, runErr := p.Run(ctx, externalTarget{cfg.Target})
	if res == nil {
		return nil, runErr
	}
	out.Stats = p.stats
	var stop *serverStop
	switch {
	case errors.As(runErr, &stop):
		out.Unusable, out.Stopped = runErr.Error(), stop.reason
	case runErr != nil:
		out.Unusable, out.Stopped = runErr.Error(), report.StopUnusable
	case out.Stats.Calls > 0 && allMalformed(res):
		out.Unusable, out.Stopped = "every answer to a valid call was malformed", report.StopUnusable
	case ctx.Err() != nil && out.Stats.Started < out.Stats.Planned:
		out.Stopped = report.StopInterrupted
	case out.Stats.Started < out.Stats.Planned:
		out.Stopped = report.StopDuration
	default:
		out.Stopped = report.StopFinished
	}
	if res.Timing != nil {
		res.Timing.Stopped = out.Stopped
		res.Timing.Server = serverStats(cfg.Target, skipped)
	}
	out.Results = res
	return out, nil
}

// serverStats is the results' server section: the process pool, what it
// used, the stdout lines skipped and the tools not called. It is read
// before the target is closed (the processes still run).
func serverStats(t *target.External, skipped []report.SkippedTool) *report.ServerStats {
	st := &report.ServerStats{Processes: t.Processes(), Skipped: skipped}
	st.NonJSONLines, st.NonJSONSample = t.SkippedLines()
	for _, p := range t.ProcessStats() {
		st.ProcessStats = append(st.ProcessStats, report.ProcessStat{PID: p.PID, RSSKB: p.RSSKB, PeakRSSKB: p.PeakRSSKB, CPUSeconds: p.CPUSeconds})
	}
	return st
}

// serverStop is an episode that found the server gone: it crashed, its
// process died or it stopped answering. The run stops for it.
type serverStop struct {
	reason string // report.StopHung, …
	err    error
}

func (e *serverStop) Error() string { return e.err.Error() }
func (e *serverStop) Unwrap() error { return e.err }

// externalTarget is an MCP server that is not a herd world, as a run's
// target. Its agents are the exerciser and the adversary, which open their
// sessions on it themselves (externalPlay): there is no world session to
// bind, and no end state to read.
type externalTarget struct{ t *target.External }

func (e externalTarget) Name() string   { return e.t.Name() }
func (e externalTarget) RealTime() bool { return true }
func (e externalTarget) Sessions(context.Context, int, target.Meter, func()) personas.Remote {
	return nil
}
func (e externalTarget) Drain(context.Context) {}
func (e externalTarget) Close() error          { return e.t.Close() }

// externalPlay is what an external run's agents play: per agent, a tool
// (its goal) and a persona (exerciser or adversary).
type externalPlay struct {
	cfg   ExternalConfig
	tools []*mcp.Tool
	// known is what the run has learnt from answers: real ids and paths
	// the exerciser uses instead of invented ones.
	known *personas.Known
}

// newExternalLayout is the layout of an external run: a goal per tool, the
// two personas, one variant, the generic outcome classes.
func newExternalLayout(tools []*mcp.Tool) *layout {
	l := &layout{personas: []string{personas.PersonaExerciser, personas.PersonaAdversary}, variants: []string{ExternalVariant},
		toolIdx: map[string]int{}, kindIdx: map[string]int{}}
	cs := make([]classInfo, len(personas.ExternalClasses))
	for i, c := range personas.ExternalClasses {
		cs[i] = classInfo{c.Class, c.Severity}
	}
	for i, t := range tools {
		l.goals = append(l.goals, t.Name)
		l.tools = append(l.tools, t.Name)
		l.toolIdx[t.Name] = i
		l.addGoalClasses(cs)
		l.meant = append(l.meant, i)
	}
	l.addPairs()
	return l
}

// header is the run section of an external run's results.
func (x *externalPlay) header(seed uint64, agents int, command string) report.Run {
	return report.Run{
		HerdVersion: version.String(),
		World:       report.WorldRef{Name: x.cfg.Server.Name, Hash: toolsHash(x.cfg.Tools), Source: x.cfg.Target.Name()},
		Target:      x.cfg.Target.Name(),
		Variants:    []string{ExternalVariant},
		Faults:      engine.NoFaults,
		Seed:        seed,
		Agents:      agents,
		Command:     command,
	}
}

// runExternal runs agent i's one episode on the external server: a call
// (or two) and its class. A crash or a hang stops the run: the server is
// unusable.
func (w *worker) runExternal(i int) error {
	p := w.p
	x := p.ext
	pi, gi := p.assign.Persona(i), p.assign.Goal(i)
	tool := x.tools[gi]
	ep := personas.ExternalEpisode{Tool: externalTool(tool), Persona: personas.PersonaExerciser,
		Seed: AgentSeed(x.cfg.Seed, i), AllowWrites: x.cfg.AllowWrites, Known: x.known}
	if pi == 1 {
		ep.Persona = personas.PersonaAdversary
	}
	ctx, m := w.ctx, p.meter
	open := func() (personas.ExternalSession, error) {
		s, err := x.cfg.Target.Open(ctx)
		if err != nil {
			return nil, err
		}
		return externalSession{s: s, ctx: ctx, m: m}, nil
	}
	o, ok := ep.Run(open, func() bool { return ctx.Err() != nil })
	if !ok {
		return nil // cut short by the run stopping: no outcome
	}
	r := &w.res
	r.Index, r.Seed, r.Persona, r.Goal = i, ep.Seed, pi, gi
	r.Outcomes[0] = o
	if err := w.agg.Add(r); err != nil {
		return err
	}
	if personas.Stops(o.Class) {
		steps := o.Trace.Steps
		reason := report.StopHung
		if o.Class == "crashed" {
			reason = report.StopConnectionLost
			if x.cfg.Target.Stdio() {
				reason = report.StopProcessDied
			}
		}
		return &serverStop{reason: reason, err: fmt.Errorf("agent %d: %s %s: %s", i, tool.Name, o.Class, steps[len(steps)-1].Result)}
	}
	return nil
}

// externalTool is a discovered tool as the external personas see it.
func externalTool(t *mcp.Tool) personas.ExternalTool {
	return personas.ExternalTool{Name: t.Name, Schema: t.InputSchema,
		ReadOnly: readOnly(t), HasOutputSchema: t.OutputSchema != nil}
}

// externalSession is an agent's connection to an external server, its
// answers read into what the external personas judge.
type externalSession struct {
	s   *target.ExternalSession
	ctx context.Context
	m   target.Meter
}

func (x externalSession) Close() { x.s.Close() }

func (x externalSession) Call(tool string, args map[string]any) personas.Answer {
	c := x.s.Call(x.ctx, tool, args, x.m)
	a := personas.Answer{Kind: answerKinds[c.Class], Err: errText(c.Err)}
	if c.Hung {
		a.Kind = personas.AnswerHung
	}
	if r := c.Result; r != nil {
		a.Content = len(r.Content) > 0 || r.StructuredContent != nil
		a.Structured = r.StructuredContent != nil
		a.Snippet = resultSnippet(r)
		ja, _ := json.Marshal(r.Content)
		sa, _ := json.Marshal(r.StructuredContent)
		a.Fingerprint = string(ja) + "\x00" + string(sa)
		a.Text, a.Data = resultTexts(r), r.StructuredContent
	}
	return a
}

// maxAnswerText bounds the text of an answer kept for judging it (a
// difference, the ids it holds).
const maxAnswerText = 64 << 10

// resultTexts is a result's text parts, a line apart, cut at
// maxAnswerText.
func resultTexts(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(tc.Text)
			if b.Len() >= maxAnswerText {
				break
			}
		}
	}
	return personas.Clip(b.String(), maxAnswerText)
}

// answerKinds maps how a call ended over the wire to what came back.
var answerKinds = [target.NumClasses]personas.AnswerKind{
	target.ClassOK:        personas.AnswerResult,
	target.ClassToolError: personas.AnswerToolError,
	target.ClassProtocol:  personas.AnswerProtocolError,
	target.ClassTransport: personas.AnswerTransport,
	target.ClassTimeout:   personas.AnswerTimeout,
	target.ClassMalformed: personas.AnswerMalformed,
	target.ClassCancelled: personas.AnswerCancelled,
}

func byName(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) }

// allMalformed reports whether the exerciser got nothing but malformed
// answers (and got some).
func allMalformed(r *report.Results) bool {
	malformed, other := 0, 0
	for _, c := range r.Counts {
		if c.Persona != personas.PersonaExerciser {
			continue
		}
		if c.Class == "malformed" {
			malformed += c.N
		} else {
			other += c.N
		}
	}
	return malformed > 0 && other == 0
}

// toolsHash fingerprints a tool list: two runs with the same hash saw the
// same tools, descriptions, schemas and annotations.
func toolsHash(tools []*mcp.Tool) string {
	sorted := slices.Clone(tools)
	slices.SortFunc(sorted, byName)
	b, _ := json.Marshal(sorted)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return personas.Clip(err.Error(), 300)
}

// resultSnippet is the start of a result's text, for a trace.
func resultSnippet(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return personas.Clip(tc.Text, 120)
		}
	}
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		return personas.Clip(string(b), 120)
	}
	return ""
}
