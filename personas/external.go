package personas

import (
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/herd-sh/herd/engine"
)

// An MCP server that is not a herd world has no world and no goals of its
// own: a run makes one generic goal per tool it may call — answer a
// schema-valid call — and sends two personas: the exerciser (valid
// arguments drawn from the schema, sometimes on its bounds) and the
// adversary (arguments the schema refuses: the server should say so
// clearly, not crash, hang or accept them). Outcome classes are what the
// answers show; there is no end state to judge.

// The external personas.
const (
	PersonaExerciser = "exerciser"
	PersonaAdversary = "adversary"
)

// ExternalClass is one outcome class of an external goal.
type ExternalClass struct {
	Class    string
	Severity engine.Severity
}

// ExternalClasses are every external goal's outcome classes, in report
// order.
var ExternalClasses = []ExternalClass{
	{"answered", engine.SeverityOK},          // a valid call got a result
	{"rejected_clearly", engine.SeverityOK},  // an invalid call got an error with a message
	{"nothing_to_reject", engine.SeverityOK}, // the schema refuses nothing a client can send
	{"tool_error", engine.SeverityFailed},    // a valid call got a tool error
	{"unclear_rejection", engine.SeverityFailed},
	{"unstable_answer", engine.SeverityFailed}, // a read-only tool answered the same call differently
	{"protocol_error", engine.SeverityFailed},  // a valid call got a JSON-RPC error
	{"accepted_invalid", engine.SeverityHarmful},
	{"malformed", engine.SeverityHarmful}, // the answer is not a proper tool result
	{"crashed", engine.SeverityHarmful},   // the connection or the process died
	{"hung", engine.SeverityHarmful},      // no answer within the per-call timeout
}

// externalSeverity is the severity of an external class.
func externalSeverity(class string) engine.Severity {
	for _, c := range ExternalClasses {
		if c.Class == class {
			return c.Severity
		}
	}
	return engine.SeverityFailed
}

// ExternalTool is a tool of an external server as its personas see it.
type ExternalTool struct {
	Name string
	// Schema is the input schema as the tool list carries it (decoded
	// JSON); the arguments are drawn from it.
	Schema any
	// ReadOnly is the tool's readOnlyHint; HasOutputSchema says it
	// declares an output schema (so a result must be structured).
	ReadOnly, HasOutputSchema bool
}

// AnswerKind is what came back for one call.
type AnswerKind uint8

// Answer kinds. A tool error is an answer (the server said no, clearly);
// transport, timeout and malformed mean no usable answer came back;
// cancelled means the run itself cut the call short.
const (
	AnswerResult AnswerKind = iota
	AnswerToolError
	AnswerProtocolError
	AnswerTransport
	AnswerTimeout
	AnswerMalformed
	AnswerCancelled
	// AnswerServerFailure is an HTTP error status (a 500, a 503 from a
	// proxy) with no JSON-RPC error in it: the server failed, it did not
	// say what was wrong with the call.
	AnswerServerFailure
)

// Answer is one call's answer, as far as judging it needs: the wire's
// details stay with the client that read it.
type Answer struct {
	Kind AnswerKind
	// Err is the text of a protocol, transport, timeout or malformed
	// error ("" when it had none).
	Err string
	// Content says the result had content or structured content;
	// Structured that it had structured content.
	Content, Structured bool
	// Snippet is the start of the result's text (or of its structured
	// content as JSON), for a trace.
	Snippet string
	// Fingerprint is the result's content and structured content as the
	// server sent them: two answers are the same answer when their
	// fingerprints are equal.
	Fingerprint string
}

// ExternalSession is one agent's connection to an external server.
type ExternalSession interface {
	Call(tool string, args map[string]any) Answer
	Close()
}

// ExternalEpisode is one agent of a run against an external server: a
// persona calling one tool.
type ExternalEpisode struct {
	Tool    ExternalTool
	Persona string // PersonaExerciser or PersonaAdversary
	// Seed is the agent's seed: its arguments are drawn from it.
	Seed uint64
	// AllowWrites says tools that may write are called too: a read-only
	// tool's answer is then not checked for stability (a write may change
	// it).
	AllowWrites bool
}

// Run plays the episode: open opens the agent's session, stopped reports
// whether the run is stopping. ok is false when the run cut the episode
// short (it has no outcome). The outcome carries its trace; its steps'
// times are real.
func (e ExternalEpisode) Run(open func() (ExternalSession, error), stopped func() bool) (o Outcome, ok bool) {
	tool := e.Tool
	rng := rand.New(rand.NewPCG(e.Seed, 0x6865726465787431))
	tr := &Trace{Goal: tool.Name, Persona: e.Persona}
	o.Trace = tr
	begin := time.Now()
	finish := func(class, result, kind string, args map[string]any) (Outcome, bool) {
		if class == "" {
			return o, false
		}
		o.Class, o.Severity = class, externalSeverity(class)
		tr.Steps = append(tr.Steps, Step{Kind: kind, Tool: tool.Name, Args: args, Result: result, At: time.Since(begin)})
		return o, true
	}
	s := toSchema(tool.Schema)
	var args map[string]any
	how := ""
	if e.Persona == PersonaAdversary {
		var ok bool
		if args, how, ok = invalidArgs(s, rng); !ok {
			o.Class, o.Severity = "nothing_to_reject", externalSeverity("nothing_to_reject")
			tr.Steps = append(tr.Steps, Step{Kind: "look", Result: "the schema refuses nothing a client can send"})
			return o, true
		}
	} else {
		args = validArgs(s, rng, rng.IntN(5) == 0)
	}
	sess, err := open()
	if err != nil {
		if stopped() {
			return o, false
		}
		return finish("crashed", "could not connect: "+err.Error(), "act", args)
	}
	defer sess.Close()
	a := sess.Call(tool.Name, args)
	if e.Persona == PersonaAdversary {
		class, text := judgeInvalid(a)
		return finish(class, text+" [sent "+how+"]", "act", args)
	}
	class, text := judgeValid(a, tool)
	if class != "answered" || e.AllowWrites || !tool.ReadOnly {
		return finish(class, text, "act", args)
	}
	// A read-only tool, and nothing writes during the run: the same call
	// again must give the same answer.
	tr.Steps = append(tr.Steps, Step{Kind: "act", Tool: tool.Name, Args: args, Result: text})
	a2 := sess.Call(tool.Name, args)
	class2, text2 := judgeValid(a2, tool)
	if class2 == "answered" && a2.Fingerprint != a.Fingerprint {
		class2, text2 = "unstable_answer", "a read-only tool answered the same call differently"
	}
	return finish(class2, text2, "verify", args)
}

// judgeNoAnswer classifies a call that got no usable answer: class ""
// when the run cut it short. ok is false when an answer came (a result, a
// tool error or a protocol error): the caller judges it.
func judgeNoAnswer(a Answer) (class, text string, ok bool) {
	switch a.Kind {
	case AnswerCancelled:
		return "", "", true
	case AnswerTransport:
		return "crashed", "transport: " + a.Err, true
	case AnswerTimeout:
		return "hung", "timeout: " + a.Err, true
	case AnswerMalformed:
		return "malformed", "malformed: " + a.Err, true
	}
	return "", "", false
}

// judgeValid classifies the answer to a schema-valid call ("" when the
// run cut the call short).
func judgeValid(a Answer, tool ExternalTool) (class, text string) {
	if class, text, ok := judgeNoAnswer(a); ok {
		return class, text
	}
	switch a.Kind {
	case AnswerProtocolError:
		return "protocol_error", "protocol error: " + a.Err
	case AnswerServerFailure:
		return "protocol_error", "server failure: " + a.Err
	}
	if !a.Content {
		return "malformed", "malformed: a result with no content"
	}
	if a.Kind == AnswerToolError {
		return "tool_error", "error: " + a.Snippet
	}
	if tool.HasOutputSchema && !a.Structured {
		return "malformed", "malformed: the tool declares an output schema but sent no structured content"
	}
	return "answered", "ok: " + a.Snippet
}

// judgeInvalid classifies the answer to a call the schema refuses.
func judgeInvalid(a Answer) (class, text string) {
	if class, text, ok := judgeNoAnswer(a); ok {
		return class, text
	}
	switch a.Kind {
	case AnswerProtocolError:
		// A JSON-RPC "invalid params" error with a message is a clear no.
		if a.Err != "" {
			return "rejected_clearly", "protocol error: " + a.Err
		}
		return "unclear_rejection", "protocol error without a message"
	case AnswerToolError:
		if a.Snippet != "" {
			return "rejected_clearly", "error: " + a.Snippet
		}
		return "unclear_rejection", "an error result with no message"
	case AnswerServerFailure:
		// An HTTP 5xx says the server broke on the call, not why it is
		// wrong: the status text is the client's words, not the server's.
		return "unclear_rejection", "server failure instead of a rejection: " + a.Err
	}
	return "accepted_invalid", "accepted: " + a.Snippet
}

// Clip cuts s to at most n bytes, on a character boundary (a server's
// message may be in any script), marking the cut with "…".
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
