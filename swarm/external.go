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
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/internal/version"
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
	Progress    func(done, total int)
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

// RunExternal runs the generic goals against an external server.
func RunExternal(ctx context.Context, cfg ExternalConfig) (*ExternalRun, error) {
	if cfg.Agents < 1 || cfg.Agents > MaxAgents {
		return nil, fmt.Errorf("--agents: must be between 1 and %d, got %d", MaxAgents, cfg.Agents)
	}
	out := &ExternalRun{}
	var tools []*mcp.Tool
	for _, t := range cfg.Tools {
		if mayCall(t, cfg.AllowWrites) {
			tools = append(tools, t)
		} else {
			out.Skipped = append(out.Skipped, t.Name)
		}
	}
	slices.SortFunc(tools, byName)
	if len(tools) == 0 {
		return nil, fmt.Errorf("%s: no tool the swarm may call (%d tools, none read-only; --allow-writes lets it call the others)", cfg.Target.Name(), len(cfg.Tools))
	}
	assign, err := NewAssignment(cfg.Seed, cfg.Agents, []float64{1, 1}, len(tools))
	if err != nil {
		return nil, err
	}
	inFlight := max(cfg.Load.MaxInFlight, 1)
	ms := startMeasure()
	broken, stop := inflightContext(ctx)
	defer stop(nil)

	agg := newExternalAgg(len(tools))
	var wg sync.WaitGroup
	var done atomic.Int64
	slots := make(chan int, inFlight)
	for k := range inFlight {
		slots <- k
	}
	progress := startProgress(cfg.Progress, cfg.ProgressEvery, cfg.Agents, &done)
	n, last := schedule(ctx, broken, cfg.Load, slots, cfg.Agents, func(i int, slot int) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { slots <- slot }()
			tool := tools[assign.Goal(i)]
			persona := PersonaExerciser
			if assign.Persona(i) == 1 {
				persona = PersonaAdversary
			}
			tr, ok := externalEpisode(broken, cfg, tool, persona, i, ms.meter)
			if !ok {
				return // cut short by the run stopping: no outcome
			}
			agg.add(tr)
			done.Add(1)
			if tr.Class == "crashed" || tr.Class == "hung" {
				stop(fmt.Errorf("agent %d: %s %s: %s", i, tool.Name, tr.Class, tr.Steps[len(tr.Steps)-1].Result))
			}
		}()
	})
	wg.Wait()
	progress()
	out.Stats = ms.stop(cfg.Agents, n, last)
	if cause := context.Cause(broken); cause != nil && broken.Err() != nil {
		out.Unusable = cause.Error()
	}

	res := &report.Results{Schema: report.Schema, Version: report.Version}
	res.Run = report.Run{
		HerdVersion: version.String(),
		World:       report.WorldRef{Name: cfg.Server.Name, Hash: toolsHash(cfg.Tools), Source: cfg.Target.Name()},
		Target:      cfg.Target.Name(),
		Variants:    []string{ExternalVariant},
		Faults:      "none",
		Seed:        cfg.Seed,
		Agents:      n,
		Command:     cfg.Command,
	}
	for _, t := range tools {
		res.Run.Goals = append(res.Run.Goals, t.Name)
		for _, c := range externalClasses {
			res.Classes = append(res.Classes, report.ClassInfo{Goal: t.Name, Class: c.Class, Severity: c.Severity})
		}
	}
	perPersona := map[string]int{}
	for k, v := range agg.counts {
		perPersona[k[1]] += v
		res.Counts = append(res.Counts, report.Count{Goal: k[0], Persona: k[1], Variant: ExternalVariant, Class: k[2], Severity: severityOf(k[2]), N: v})
		res.Episodes += v
	}
	for _, p := range []string{PersonaExerciser, PersonaAdversary} {
		res.Run.Mix = append(res.Run.Mix, report.MixEntry{Persona: p, Weight: 1, Agents: perPersona[p]})
	}
	res.Traces = agg.traces
	res.Partial = n < cfg.Agents && (ctx.Err() != nil || out.Unusable != "")
	res.Timing = ms.timing(out.Stats, res.Episodes, inFlight)
	res.Normalize()
	if out.Unusable == "" && out.Stats.Calls > 0 && allMalformed(res) {
		out.Unusable = "every answer to a valid call was malformed"
	}
	out.Results = res
	return out, nil
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

// externalAgg counts episodes and keeps a bounded trace sample.
type externalAgg struct {
	mu     sync.Mutex
	counts map[[3]string]int // goal, persona, class
	traces []report.Trace
	// maxTraces is the length at which the sample is cut back to
	// TracesPerClass a goal × class: four times what it keeps, as in the
	// in-process Aggregator, so that a cut (a sort) stays rare however
	// many tools the server has.
	maxTraces int
}

func newExternalAgg(tools int) *externalAgg {
	return &externalAgg{counts: map[[3]string]int{}, maxTraces: 4 * report.TracesPerClass * tools * len(externalClasses)}
}

func (a *externalAgg) add(t report.Trace) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.counts[[3]string{t.Goal, t.Persona, t.Class}]++
	a.traces = append(a.traces, t)
	if len(a.traces) > a.maxTraces {
		r := report.Results{Traces: a.traces}
		r.Normalize()
		a.traces = r.Traces
	}
}

// externalEpisode is one agent's call (or two) and its class.
func externalEpisode(ctx context.Context, cfg ExternalConfig, tool *mcp.Tool, persona string, i int, m *callMeter) (report.Trace, bool) {
	seed := AgentSeed(cfg.Seed, i)
	rng := rand.New(rand.NewPCG(seed, 0x6865726465787431))
	tr := report.Trace{Agent: i, Seed: seed, Goal: tool.Name, Persona: persona, Variant: ExternalVariant,
		Replay: cfg.Command}
	begin := time.Now()
	finish := func(class, result, kind string, args map[string]any) (report.Trace, bool) {
		if class == "" {
			return tr, false
		}
		tr.Class, tr.Severity = class, severityOf(class)
		tr.Steps = append(tr.Steps, report.Step{Kind: kind, Tool: tool.Name, Args: args, Result: result,
			At: fmt.Sprintf("+%.3fs", time.Since(begin).Seconds())})
		return tr, true
	}
	s := toSchema(tool.InputSchema)
	var args map[string]any
	how := ""
	if persona == PersonaAdversary {
		var ok bool
		if args, how, ok = invalidArgs(s, rng); !ok {
			tr.Class, tr.Severity = "nothing_to_reject", report.SeverityOK
			tr.Steps = append(tr.Steps, report.Step{Kind: "look", Result: "the schema refuses nothing a client can send", At: "+0.000s"})
			return tr, true
		}
	} else {
		args = validArgs(s, rng, rng.IntN(5) == 0)
	}
	sess, err := cfg.Target.Open(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return tr, false
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
	tr.Steps = append(tr.Steps, report.Step{Kind: "act", Tool: tool.Name, Args: args, Result: text, At: "+0.000s"})
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
