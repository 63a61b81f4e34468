package swarm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
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
	Load        Load
	Command     string
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
	// Skipped are the tools not called: they may write, and writes were
	// not allowed.
	Skipped []string
}

// mayCall reports whether the swarm may call t: read-only tools always,
// others only when writes are allowed.
func mayCall(t *mcp.Tool, allowWrites bool) bool {
	return allowWrites || (t.Annotations != nil && t.Annotations.ReadOnlyHint)
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
func newExternalPlan(cfg ExternalConfig) (*Plan, []string, error) {
	if err := checkAgents(cfg.Agents); err != nil {
		return nil, nil, err
	}
	var tools []*mcp.Tool
	var skipped []string
	for _, t := range cfg.Tools {
		if mayCall(t, cfg.AllowWrites) {
			tools = append(tools, t)
		} else {
			skipped = append(skipped, t.Name)
		}
	}
	slices.SortFunc(tools, byName)
	if len(tools) == 0 {
		return nil, nil, &FieldError{Field: "AllowWrites", Err: fmt.Errorf("%s: no tool the swarm may call (%d tools, none read-only; allowing writes lets it call the others)", cfg.Target.Name(), len(cfg.Tools))}
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
		ext:    &externalPlay{cfg: cfg, tools: tools},
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
	res, runErr := p.Run(ctx, externalTarget{cfg.Target})
	if res == nil {
		return nil, runErr
	}
	if runErr != nil {
		out.Unusable = runErr.Error()
	}
	out.Stats = p.stats
	if out.Unusable == "" && out.Stats.Calls > 0 && allMalformed(res) {
		out.Unusable = "every answer to a valid call was malformed"
	}
	out.Results = res
	return out, nil
}

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
		Seed: AgentSeed(x.cfg.Seed, i), AllowWrites: x.cfg.AllowWrites}
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
	if o.Class == "crashed" || o.Class == "hung" {
		steps := o.Trace.Steps
		return fmt.Errorf("agent %d: %s %s: %s", i, tool.Name, o.Class, steps[len(steps)-1].Result)
	}
	return nil
}

// externalTool is a discovered tool as the external personas see it.
func externalTool(t *mcp.Tool) personas.ExternalTool {
	return personas.ExternalTool{Name: t.Name, Schema: t.InputSchema,
		ReadOnly: t.Annotations != nil && t.Annotations.ReadOnlyHint, HasOutputSchema: t.OutputSchema != nil}
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
	if c.Class == target.ClassProtocol && target.ServerFailed(c.Err) {
		a.Kind = personas.AnswerServerFailure
	}
	if r := c.Result; r != nil {
		a.Content = len(r.Content) > 0 || r.StructuredContent != nil
		a.Structured = r.StructuredContent != nil
		a.Snippet = resultSnippet(r)
		ja, _ := json.Marshal(r.Content)
		sa, _ := json.Marshal(r.StructuredContent)
		a.Fingerprint = string(ja) + "\x00" + string(sa)
	}
	return a
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
