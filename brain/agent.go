package brain

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/engine/entropy"
	"github.com/herd-sh/herd/personas"
)

// Step kinds a model's episode adds to the personas' ones.
const (
	// StepAnswer is the model's closing message (no tool call).
	StepAnswer = "answer"
	// StepCap is an episode stopped at the step cap.
	StepCap = "step_cap"
)

// systemPrompt is what every episode's model is told before the user's
// request: only that it acts through the tools. It says nothing of what
// is measured. A world's own instructions (the neutral text a served
// world sends as MCP instructions) follow it.
const systemPrompt = "You are an assistant that acts for the user through the tools you are given. " +
	"Use them to do what the user asks. When you are done, or cannot go on, answer briefly without calling a tool."

// Agent plays episodes of one world and variant with a model.
type Agent struct {
	c       *Client
	world   *engine.World
	variant string
	tools   []chatTool
	system  string
	meant   func(*engine.Goal) string
}

// NewAgent makes the model's player for world w read as variant, with
// descriptions (tool → text, may be nil) over the variant's texts, as
// served. meant names the tool a goal needs (the run's, from the world).
func NewAgent(c *Client, w *engine.World, variant string, descriptions map[string]string, meant func(*engine.Goal) string) *Agent {
	a := &Agent{c: c, world: w, variant: variant, meant: meant, system: systemPrompt}
	if ins := strings.TrimSpace(w.Instructions); ins != "" {
		a.system += "\n\n" + ins
	}
	for _, t := range w.Tools {
		text, ok := descriptions[t.Name]
		if !ok {
			text = t.Description(variant)
		}
		a.tools = append(a.tools, chatTool{Type: "function",
			Function: chatToolFunction{Name: t.Name, Description: text, Parameters: t.InputSchema()}})
	}
	return a
}

// Play runs one episode: the goal's intent (and what the agent knows) as
// the user's message, then turns — each tool call the model makes goes to
// the episode's session and its result back as the tool's message —
// until the model answers without a tool call or the step cap. The end
// state is judged by the goal's outcome classes, as for any persona.
//
// An episode with a Remote (a served world) is refused: a model plays
// in-process, where the session is the engine's.
func (a *Agent) Play(ctx context.Context, ep personas.Episode) (personas.Outcome, error) {
	if ep.Remote != nil {
		return personas.Outcome{}, fmt.Errorf("brain: a model plays in-process worlds only")
	}
	if ep.Base == nil || ep.Goal == nil {
		return personas.Outcome{}, fmt.Errorf("brain: episode without base or goal")
	}
	local := ep.Base.NewSession(ep.Seed, ep.Profile)
	rnd := entropy.Key{Seed: ep.Seed, Purpose: entropy.Goal}.Uint64()
	attempt, err := ep.Goal.Begin(local, rnd)
	if err != nil {
		return personas.Outcome{}, fmt.Errorf("brain: %w", err)
	}
	out := personas.Outcome{Meant: a.meant(ep.Goal)}
	tr := &personas.Trace{Persona: ep.Persona.Name, Goal: ep.Goal.Name, Variant: a.variant, Intent: attempt.Intent,
		Target: attempt.Target.ID(), Knows: maps.Clone(attempt.Knows)}
	msgs := []chatMessage{
		textMessage(roleSystem, a.system),
		textMessage(roleUser, userMessage(attempt)),
	}
	p := chatRequest{
		Model: a.c.s.Model,
		Tools: a.tools,
		// The agent's seed makes two agents' identical conversations two
		// requests (two samples at a temperature above zero) and the same
		// agent's the same request (one cassette entry).
		Seed:        int64(ep.Seed & math.MaxInt32),
		Temperature: a.c.s.Temperature,
		MaxTokens:   a.c.s.MaxTokens,
	}
	commits := map[string]int{}
	answered := false
	for step := 0; step < a.c.s.MaxSteps; step++ {
		p.Messages = msgs
		r, err := a.c.complete(ctx, &p)
		if err != nil {
			return personas.Outcome{}, fmt.Errorf("brain: agent seed %d, turn %d: %w", ep.Seed, step+1, err)
		}
		if len(r.Choices) == 0 {
			return personas.Outcome{}, fmt.Errorf("brain: agent seed %d, turn %d: the endpoint answered no choice", ep.Seed, step+1)
		}
		m := r.Choices[0].Message
		msgs = append(msgs, m.param())
		if len(m.ToolCalls) == 0 {
			tr.Steps = append(tr.Steps, personas.Step{Kind: StepAnswer, Result: clip(string(m.Content), 200), At: local.Elapsed()})
			answered = true
			break
		}
		for _, call := range m.ToolCalls {
			body, step := a.call(local, call, &out, commits)
			tr.Steps = append(tr.Steps, step)
			msgs = append(msgs, toolMessage(string(body), call.ID))
		}
	}
	if !answered {
		tr.Steps = append(tr.Steps, personas.Step{Kind: StepCap, Result: fmt.Sprintf("stopped after %d turns", a.c.s.MaxSteps), At: local.Elapsed()})
	}
	v, err := attempt.Judge()
	if err != nil {
		return personas.Outcome{}, fmt.Errorf("brain: goal %s: %w", ep.Goal.Name, err)
	}
	out.Class, out.Severity, out.Violations = v.Class, v.Severity, v.Violations
	out.Calls = local.Calls()
	out.IgnoredRetryAfter = local.IgnoredRetryAfter()
	out.Recovered = len(out.Faults) > 0 && v.Severity == engine.SeverityOK
	out.Trace = tr
	return out, nil
}

// call makes one of the model's tool calls on the session and returns
// what the model is told (the tool result's JSON, as a served world
// writes it) and the trace step.
func (a *Agent) call(s *engine.Session, call answerToolCall, out *personas.Outcome, commits map[string]int) ([]byte, personas.Step) {
	name := string(call.Function.Name)
	st := personas.Step{Kind: personas.StepAct, Tool: name, At: s.Elapsed()}
	t := a.world.Tool(name)
	if call.Type != "" && call.Type != "function" {
		return refusal("invalid_request", fmt.Sprintf("tool call of type %q: only function tools exist here", call.Type), &st)
	}
	if t == nil {
		return refusal("unknown_tool", fmt.Sprintf("there is no tool %q", clip(name, 64)), &st)
	}
	args, err := decodeArgs(string(call.Function.Arguments))
	if err != nil {
		out.InvalidArgs++
		return refusal("invalid_argument", err.Error(), &st)
	}
	st.Args = args
	if !t.Writes() {
		st.Kind = personas.StepLook
	}
	res := s.Call(name, args)
	if res.Err != nil && res.Err.Code == "invalid_argument" {
		out.InvalidArgs++
	}
	if res.Fault != "" {
		out.Faults = append(out.Faults, personas.FaultEvent{Tool: name, Kind: res.Fault})
	}
	if t.Writes() {
		if out.Called == "" {
			out.Called = name
		}
		if res.Committed && !res.Replayed {
			// The same write with the same arguments committing twice is a
			// side effect applied twice (a retry after a timeout).
			k := name + "\x00" + argsKey(t, args)
			commits[k]++
			if commits[k] > 1 {
				out.Duplicated++
			}
		}
	}
	body := ResultJSON(&res)
	switch {
	case res.Fault != "":
		st.Result = "fault: " + res.Fault
	case res.Err != nil:
		st.Result = "error: " + res.Err.Code + " — " + clip(res.Err.Message, 120)
	default:
		st.Result = "ok"
	}
	return body, st
}

func refusal(code, msg string, st *personas.Step) ([]byte, personas.Step) {
	st.Result = "error: " + code + " — " + msg
	body, _ := json.Marshal(wireError{Error: wireErrorBody{Code: code, Message: msg}})
	return body, *st
}

// decodeArgs reads a tool call's arguments: a JSON object (an empty
// string is no arguments, as some servers send it).
func decodeArgs(s string) (map[string]any, error) {
	if strings.TrimSpace(s) == "" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		return nil, fmt.Errorf("the arguments are not JSON: %v", err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the arguments are not a JSON object")
	}
	return m, nil
}

// argsKey is the call's arguments without an idempotency key, as JSON
// with sorted keys: two calls that differ only in their key are the same
// write asked twice.
func argsKey(t *engine.Tool, args map[string]any) string {
	keys := slices.Sorted(maps.Keys(args))
	var b strings.Builder
	for _, k := range keys {
		if k == t.Idempotency {
			continue
		}
		v, _ := json.Marshal(args[k])
		b.WriteString(k)
		b.WriteByte('=')
		b.Write(v)
		b.WriteByte(';')
	}
	return b.String()
}

// userMessage is the user's request: the goal's intent, and what the
// agent is told it knows (a persona reads the same knowledge).
func userMessage(at *engine.Attempt) string {
	if len(at.Knows) == 0 {
		return at.Intent
	}
	var b strings.Builder
	b.WriteString(at.Intent)
	b.WriteString("\n\nWhat you know:")
	for _, k := range slices.Sorted(maps.Keys(at.Knows)) {
		v, _ := json.Marshal(at.Knows[k])
		fmt.Fprintf(&b, "\n- %s: %s", k, v)
	}
	return b.String()
}

func clip(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

// wireError is a tool error as a served world writes it.
type wireError struct {
	Error wireErrorBody `json:"error"`
}

type wireErrorBody struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// ResultJSON is an engine result as a served world sends it to an MCP
// client (serve's tool results: the value, or the error, as JSON text),
// so that a model reads here exactly what it reads over MCP. A test
// holds the two to the same bytes.
func ResultJSON(res *engine.Result) []byte {
	if res.Err != nil {
		e := wireErrorBody{Code: res.Err.Code, Message: res.Err.Message}
		if ra := res.Err.RetryAfter; ra > 0 {
			e.RetryAfterMS = int64(math.Ceil(float64(ra) / float64(time.Millisecond)))
		}
		body, _ := json.Marshal(wireError{Error: e})
		return body
	}
	body, err := json.Marshal(res.Value())
	if err != nil {
		body, _ = json.Marshal(wireError{Error: wireErrorBody{Code: "internal", Message: "result could not be encoded: " + err.Error()}})
	}
	return body
}
