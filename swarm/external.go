package swarm

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/version"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// An external server has no world and no goals of its own: the swarm
// makes one generic goal per tool it may call — answer a schema-valid call
// — and sends two personas: an exerciser (valid arguments drawn from the
// schema, sometimes on its bounds) and an adversary (arguments the schema
// refuses: the server should say so clearly, not crash, hang or accept
// them). Outcome classes are what the answers show.

// External personas.
const (
	PersonaExerciser = "exerciser"
	PersonaAdversary = "adversary"
)

// ExternalVariant names the one description variant an external server
// has: the descriptions it serves.
const ExternalVariant = "served"

// externalClasses are every goal's outcome classes, in report order.
var externalClasses = []report.ClassInfo{
	{Class: "answered", Severity: report.SeverityOK},          // a valid call got a result
	{Class: "rejected_clearly", Severity: report.SeverityOK},  // an invalid call got an error with a message
	{Class: "nothing_to_reject", Severity: report.SeverityOK}, // the schema refuses nothing a client can send
	{Class: "tool_error", Severity: report.SeverityFailed},    // a valid call got a tool error
	{Class: "unclear_rejection", Severity: report.SeverityFailed},
	{Class: "unstable_answer", Severity: report.SeverityFailed}, // a read-only tool answered the same call differently
	{Class: "protocol_error", Severity: report.SeverityFailed},  // a valid call got a JSON-RPC error
	{Class: "accepted_invalid", Severity: report.SeverityHarmful},
	{Class: "malformed", Severity: report.SeverityHarmful}, // the answer is not a proper tool result
	{Class: "crashed", Severity: report.SeverityHarmful},   // the connection or the process died
	{Class: "hung", Severity: report.SeverityHarmful},      // no answer within the per-call timeout
}

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
	Progress   func(done, total int)
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
	if cfg.Agents < 1 || cfg.Agents > MaxAgents {
		return nil, nil, fieldErr("Agents", "must be between 1 and %d, got %d", MaxAgents, cfg.Agents)
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
	l := &layout{personas: []string{PersonaExerciser, PersonaAdversary}, variants: []string{ExternalVariant},
		toolIdx: map[string]int{}, kindIdx: map[string]int{}}
	cs := make([]classInfo, len(externalClasses))
	for i, c := range externalClasses {
		cs[i] = classInfo{c.Class, engine.Severity(c.Severity)}
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
	persona := PersonaExerciser
	if pi == 1 {
		persona = PersonaAdversary
	}
	o, ok := externalEpisode(w.ctx, x.cfg, tool, persona, i, p.meter)
	if !ok {
		return nil // cut short by the run stopping: no outcome
	}
	r := &w.res
	r.Index, r.Seed, r.Persona, r.Goal = i, AgentSeed(x.cfg.Seed, i), pi, gi
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

func byName(a, b *mcp.Tool) int { return strings.Compare(a.Name, b.Name) }

func severityOf(class string) string {
	for _, c := range externalClasses {
		if c.Class == class {
			return c.Severity
		}
	}
	return report.SeverityFailed
}

// allMalformed reports whether the exerciser got nothing but malformed
// answers (and got some).
func allMalformed(r *report.Results) bool {
	malformed, other := 0, 0
	for _, c := range r.Counts {
		if c.Persona != PersonaExerciser {
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

// externalEpisode is one agent's call (or two) and its class, as an
// outcome with its trace.
func externalEpisode(ctx context.Context, cfg ExternalConfig, tool *mcp.Tool, persona string, i int, m target.Meter) (personas.Outcome, bool) {
	seed := AgentSeed(cfg.Seed, i)
	rng := rand.New(rand.NewPCG(seed, 0x6865726465787431))
	tr := &personas.Trace{Goal: tool.Name, Persona: persona}
	o := personas.Outcome{Trace: tr}
	begin := time.Now()
	finish := func(class, result, kind string, args map[string]any) (personas.Outcome, bool) {
		if class == "" {
			return o, false
		}
		o.Class, o.Severity = class, engine.Severity(severityOf(class))
		tr.Steps = append(tr.Steps, personas.Step{Kind: kind, Tool: tool.Name, Args: args, Result: result, At: time.Since(begin)})
		return o, true
	}
	s := toSchema(tool.InputSchema)
	var args map[string]any
	how := ""
	if persona == PersonaAdversary {
		var ok bool
		if args, how, ok = invalidArgs(s, rng); !ok {
			o.Class, o.Severity = "nothing_to_reject", engine.Severity(report.SeverityOK)
			tr.Steps = append(tr.Steps, personas.Step{Kind: "look", Result: "the schema refuses nothing a client can send"})
			return o, true
		}
	} else {
		args = validArgs(s, rng, rng.IntN(5) == 0)
	}
	sess, err := cfg.Target.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return o, false
		}
		return finish("crashed", "could not connect: "+err.Error(), "act", args)
	}
	defer sess.Close()
	c := sess.Call(ctx, tool.Name, args, m)
	if persona == PersonaAdversary {
		class, text := judgeInvalid(c)
		return finish(class, text+" [sent "+how+"]", "act", args)
	}
	class, text := judgeValid(c, tool)
	if class != "answered" || cfg.AllowWrites || tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
		return finish(class, text, "act", args)
	}
	// A read-only tool, and nothing writes during the run: the same call
	// again must give the same answer.
	tr.Steps = append(tr.Steps, personas.Step{Kind: "act", Tool: tool.Name, Args: args, Result: text})
	c2 := sess.Call(ctx, tool.Name, args, m)
	class2, text2 := judgeValid(c2, tool)
	if class2 == "answered" && !sameAnswer(c.Result, c2.Result) {
		class2, text2 = "unstable_answer", "a read-only tool answered the same call differently"
	}
	return finish(class2, text2, "verify", args)
}

// judgeNoAnswer classifies a call that got no usable answer: class ""
// when the run cut it short. ok is false when an answer came (a result, a
// tool error or a protocol error): the caller judges it.
func judgeNoAnswer(c target.ExternalCall) (class, text string, ok bool) {
	switch c.Class {
	case target.ClassCancelled:
		return "", "", true
	case target.ClassTransport:
		return "crashed", "transport: " + errText(c.Err), true
	case target.ClassTimeout:
		return "hung", "timeout: " + errText(c.Err), true
	case target.ClassMalformed:
		return "malformed", "malformed: " + errText(c.Err), true
	}
	return "", "", false
}

// judgeValid classifies the answer to a schema-valid call ("" when the
// run cut the call short).
func judgeValid(c target.ExternalCall, tool *mcp.Tool) (class, text string) {
	if class, text, ok := judgeNoAnswer(c); ok {
		return class, text
	}
	if c.Class == target.ClassProtocol {
		return "protocol_error", "protocol error: " + errText(c.Err)
	}
	r := c.Result
	if len(r.Content) == 0 && r.StructuredContent == nil {
		return "malformed", "malformed: a result with no content"
	}
	if c.Class == target.ClassToolError {
		return "tool_error", "error: " + resultSnippet(r)
	}
	if tool.OutputSchema != nil && r.StructuredContent == nil {
		return "malformed", "malformed: the tool declares an output schema but sent no structured content"
	}
	return "answered", "ok: " + resultSnippet(r)
}

// judgeInvalid classifies the answer to a call the schema refuses.
func judgeInvalid(c target.ExternalCall) (class, text string) {
	if class, text, ok := judgeNoAnswer(c); ok {
		return class, text
	}
	switch c.Class {
	case target.ClassProtocol:
		// A JSON-RPC "invalid params" error with a message is a clear no.
		if msg := errText(c.Err); msg != "" {
			return "rejected_clearly", "protocol error: " + msg
		}
		return "unclear_rejection", "protocol error without a message"
	case target.ClassToolError:
		if t := resultSnippet(c.Result); t != "" {
			return "rejected_clearly", "error: " + t
		}
		return "unclear_rejection", "an error result with no message"
	}
	return "accepted_invalid", "accepted: " + resultSnippet(c.Result)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return clip(err.Error(), 300)
}

// clip cuts s to at most n bytes, on a character boundary (a server's
// message may be in any script), marking the cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// resultSnippet is the start of a result's text, for a trace.
func resultSnippet(r *mcp.CallToolResult) string {
	if r == nil {
		return ""
	}
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return clip(tc.Text, 120)
		}
	}
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		return clip(string(b), 120)
	}
	return ""
}

// sameAnswer compares two results by their JSON.
func sameAnswer(a, b *mcp.CallToolResult) bool {
	ja, _ := json.Marshal(a.Content)
	jb, _ := json.Marshal(b.Content)
	sa, _ := json.Marshal(a.StructuredContent)
	sb, _ := json.Marshal(b.StructuredContent)
	return bytes.Equal(ja, jb) && bytes.Equal(sa, sb)
}
