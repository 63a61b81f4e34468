package personas

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/safetext"
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
	{"expected_error", engine.SeverityOK},    // a valid call naming an invented id or path was refused: not found
	{"tool_error", engine.SeverityFailed},    // a valid call got a tool error
	{"unclear_rejection", engine.SeverityFailed},
	{"unstable_answer", engine.SeverityFailed}, // a read-only tool answered the same call differently
	{"protocol_error", engine.SeverityFailed},  // a valid call got a JSON-RPC error
	{"timed_out", engine.SeverityFailed},       // no answer within the per-call timeout, while the server answered others
	{"accepted_invalid", engine.SeverityHarmful},
	{"malformed", engine.SeverityHarmful}, // the answer is not a proper tool result
	{"crashed", engine.SeverityHarmful},   // the connection or the process died
	{"hung", engine.SeverityHarmful},      // the server stopped answering: every call timed out, and the next ones too
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

// Stops says whether an external class ends the run: the server crashed
// or stopped answering, so nothing more can be learnt from it.
func Stops(class string) bool { return class == "crashed" || class == "hung" }

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
	// AnswerHung is a timeout after which the server is taken to have
	// stopped answering (nothing came back since an earlier timeout).
	AnswerHung
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
	// Text is the result's text content (its text parts, a line apart;
	// bounded by the caller) and Data its structured content as decoded:
	// what a difference is shown from and real ids are learnt from.
	Text string
	Data any
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
	// Known is what the run has learnt from answers so far (nil: nothing):
	// the exerciser uses real ids and paths from it, and adds what it is
	// answered.
	Known *Known
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
	guessed := false
	if e.Persona == PersonaAdversary {
		var ok bool
		if args, how, ok = invalidArgs(s, rng); !ok {
			o.Class, o.Severity = "nothing_to_reject", externalSeverity("nothing_to_reject")
			tr.Steps = append(tr.Steps, Step{Kind: "look", Result: "the schema refuses nothing a client can send"})
			return o, true
		}
	} else {
		m := argMaker{rng: rng, boundary: rng.IntN(5) == 0, known: e.Known}
		args = m.object(s, 0)
		guessed = m.guessed
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
	if guessed && (class == "tool_error" && refusesInvented(a.Snippet) || class == "protocol_error" && refusesInvented(a.Err)) {
		class, text = "expected_error", "refused a guessed value: "+strings.TrimPrefix(strings.TrimPrefix(text, "error: "), "protocol error: ")
	}
	if class == "answered" {
		e.Known.Learn(a)
	}
	if class != "answered" || e.AllowWrites || !tool.ReadOnly {
		return finish(class, text, "act", args)
	}
	// A read-only tool, and nothing writes during the run: the same call
	// again must give the same answer.
	tr.Steps = append(tr.Steps, Step{Kind: "act", Tool: tool.Name, Args: args, Result: text})
	a2 := sess.Call(tool.Name, args)
	class2, text2 := judgeValid(a2, tool)
	if class2 == "answered" && a2.Fingerprint != a.Fingerprint {
		class2, text2 = "unstable_answer", "a read-only tool answered the same call differently: "+answerDiff(a, a2)
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
		return "timed_out", "timeout: " + a.Err, true
	case AnswerHung:
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
	if a.Kind == AnswerProtocolError {
		return "protocol_error", "protocol error: " + a.Err
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

// refusals are what a server says when it rightly refuses an id or a
// path that does not exist (or exists already, or is of the wrong kind):
// said of an invented value, that is the correct answer.
var refusals = []string{
	"not found", "no such", "does not exist", "doesn't exist", "not exist", "unknown id",
	"enoent", "eexist", "already exists", "eisdir", "enotdir", "is a directory", "not a directory",
	"outside allowed", "access denied - path outside", "no entity", "no item", "no record",
}

// refusesInvented reports whether a tool error's text is such a refusal
// (a JSON-RPC -32602 "invalid params" counts when it also says not found).
func refusesInvented(text string) bool {
	t := strings.ToLower(text)
	for _, r := range refusals {
		if strings.Contains(t, r) {
			return true
		}
	}
	return false
}

// Bounds of the difference an unstable answer shows.
const (
	diffContext = 60 // runes of each side
)

// answerDiff says where two answers to the same call differ: the first
// differing line of their text (both sides), or of their structured
// content, cut short and with control characters escaped.
func answerDiff(a, b Answer) string {
	if a.Text != b.Text {
		return firstDiff(a.Text, b.Text, "line")
	}
	ja, _ := json.Marshal(a.Data)
	jb, _ := json.Marshal(b.Data)
	if string(ja) != string(jb) {
		return "structured content, " + firstDiff(string(ja), string(jb), "line")
	}
	return "the content differs in a part that is not text"
}

// firstDiff names the first line where x and y differ, and the two
// versions of it from the first differing character on (with a little
// before it).
func firstDiff(x, y, unit string) string {
	xl, yl := strings.Split(x, "\n"), strings.Split(y, "\n")
	i := 0
	for i < len(xl) && i < len(yl) && xl[i] == yl[i] {
		i++
	}
	get := func(ls []string) string {
		if i < len(ls) {
			return ls[i]
		}
		return ""
	}
	lx, ly := get(xl), get(yl)
	// Show each side from a little before the first differing byte.
	j := 0
	for j < len(lx) && j < len(ly) && lx[j] == ly[j] {
		j++
	}
	from := 0
	if max(len(lx), len(ly)) > diffContext {
		from = max(j-20, 0) // a long line: start a little before the difference
	}
	for from > 0 && !utf8.RuneStart(lx[from]) {
		from--
	}
	cut := func(s string) string {
		if from > len(s) {
			return "(nothing)"
		}
		prefix := ""
		if from > 0 {
			prefix = "…"
		}
		return "«" + prefix + safetext.Terminal(s[from:], diffContext) + "»"
	}
	return fmt.Sprintf("%s %d: %s, then %s", unit, i+1, cut(lx), cut(ly))
}
