package personas

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// A server's message is cut on a character boundary, whatever its script.
func TestClipKeepsCharactersWhole(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"abcdefghijk", 10, "abcdefghij…"},
		{"ééééé", 5, "éé…"},           // 2-byte runes: byte 5 is inside the third
		{"日本語のエラー", 7, "日本…"},         // 3-byte runes: byte 7 is inside the third
		{"🙂🙂", 3, "…"},                // a 4-byte rune longer than the limit
		{"ok 🙂 done", 4, "ok " + "…"}, // the cut falls inside the emoji
	} {
		got := Clip(c.in, c.n)
		if got != c.want || !utf8.ValidString(got) {
			t.Errorf("Clip(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
	}
}

// Each kind of answer is judged into its class: the exerciser's valid call
// and the adversary's invalid one, and a read-only tool whose second
// answer differs is unstable.
func TestExternalJudging(t *testing.T) {
	tool := ExternalTool{Name: "peek", ReadOnly: true, HasOutputSchema: true}
	valid := []struct {
		a    Answer
		want string
	}{
		{Answer{Kind: AnswerResult, Content: true, Structured: true, Snippet: "1"}, "answered"},
		{Answer{Kind: AnswerResult, Content: true, Snippet: "1"}, "malformed"}, // no structured content
		{Answer{Kind: AnswerResult}, "malformed"},
		{Answer{Kind: AnswerToolError, Content: true, Snippet: "no"}, "tool_error"},
		{Answer{Kind: AnswerProtocolError, Err: "bad"}, "protocol_error"},
		{Answer{Kind: AnswerTransport, Err: "EOF"}, "crashed"},
		{Answer{Kind: AnswerTimeout}, "timed_out"}, // slow, while the server answers others
		{Answer{Kind: AnswerHung}, "hung"},         // the server stopped answering
		{Answer{Kind: AnswerCancelled}, ""},
	}
	for _, c := range valid {
		if got, _ := judgeValid(c.a, tool); got != c.want {
			t.Errorf("valid call, %+v: %q, want %q", c.a, got, c.want)
		}
	}
	invalid := []struct {
		a    Answer
		want string
	}{
		{Answer{Kind: AnswerProtocolError, Err: "invalid params"}, "rejected_clearly"},
		{Answer{Kind: AnswerProtocolError}, "unclear_rejection"},
		{Answer{Kind: AnswerToolError, Content: true, Snippet: "n must be ≥ 3"}, "rejected_clearly"},
		{Answer{Kind: AnswerToolError, Content: true}, "unclear_rejection"},
		{Answer{Kind: AnswerResult, Content: true, Snippet: "ok"}, "accepted_invalid"},
	}
	for _, c := range invalid {
		if got, _ := judgeInvalid(c.a); got != c.want {
			t.Errorf("invalid call, %+v: %q, want %q", c.a, got, c.want)
		}
	}

	schema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}}
	tool.Schema = schema
	calls := 0
	sess := fakeSession(func() Answer {
		calls++
		return Answer{Kind: AnswerResult, Content: true, Structured: true, Fingerprint: string(rune('a' + calls))}
	})
	o, ok := ExternalEpisode{Tool: tool, Persona: PersonaExerciser, Seed: 3}.Run(func() (ExternalSession, error) { return sess, nil }, func() bool { return false })
	if !ok || o.Class != "unstable_answer" || calls != 2 || len(o.Trace.Steps) != 2 {
		t.Errorf("a read-only tool answering differently: %q after %d calls, ok %v", o.Class, calls, ok)
	}
	o, ok = ExternalEpisode{Tool: tool, Persona: PersonaExerciser, Seed: 3}.Run(func() (ExternalSession, error) { return nil, errors.New("refused") }, func() bool { return false })
	if !ok || o.Class != "crashed" {
		t.Errorf("a server that refuses the connection: %q, ok %v", o.Class, ok)
	}
}

type fakeSession func() Answer

func (f fakeSession) Call(string, map[string]any) Answer { return f() }
func (f fakeSession) Close()                             {}

// A guessed id or path that the server says is not found (or is a
// directory, or exists) is the correct answer, expected_error; the same
// error on a call with nothing guessed is a tool error.
func TestExpectedErrorOnGuessedValues(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}, "required": []any{"path"}}
	for _, c := range []struct {
		schema any
		a      Answer
		want   string
	}{
		{schema, Answer{Kind: AnswerToolError, Content: true, Snippet: "ENOENT: no such file or directory, open '/x/alpha'"}, "expected_error"},
		{schema, Answer{Kind: AnswerToolError, Content: true, Snippet: "Entity with name alpha not found"}, "expected_error"},
		{schema, Answer{Kind: AnswerProtocolError, Err: "MCP error -32602: resource alpha not found"}, "expected_error"},
		{schema, Answer{Kind: AnswerToolError, Content: true, Snippet: "database is locked"}, "tool_error"},
		// No string to guess: an enum value is the schema's own.
		{map[string]any{"type": "object", "properties": map[string]any{"unit": map[string]any{"enum": []any{"c", "f"}}}, "required": []any{"unit"}},
			Answer{Kind: AnswerToolError, Content: true, Snippet: "unit not found"}, "tool_error"},
	} {
		tool := ExternalTool{Name: "open", Schema: c.schema}
		sess := fakeSession(func() Answer { return c.a })
		o, ok := ExternalEpisode{Tool: tool, Persona: PersonaExerciser, Seed: 5}.Run(func() (ExternalSession, error) { return sess, nil }, func() bool { return false })
		if !ok || o.Class != c.want {
			t.Errorf("%+v: %q, want %q", c.a, o.Class, c.want)
		}
	}
	if ExternalClasses[3].Class != "expected_error" || externalSeverity("expected_error") != "ok" || externalSeverity("timed_out") != "failed" || externalSeverity("hung") != "harmful" {
		t.Errorf("severities: expected_error %s, timed_out %s, hung %s", externalSeverity("expected_error"), externalSeverity("timed_out"), externalSeverity("hung"))
	}
}

// An unstable answer says what differed: the first differing line, both
// sides, cut short, with control characters escaped.
func TestUnstableAnswerShowsTheDifference(t *testing.T) {
	tool := ExternalTool{Name: "peek", ReadOnly: true, Schema: map[string]any{"type": "object"}}
	calls := 0
	sess := fakeSession(func() Answer {
		calls++
		text := fmt.Sprintf("header\ncounter: %d\x1b[2J %s", calls, strings.Repeat("z", 200))
		return Answer{Kind: AnswerResult, Content: true, Text: text, Fingerprint: text}
	})
	o, _ := ExternalEpisode{Tool: tool, Persona: PersonaExerciser, Seed: 3}.Run(func() (ExternalSession, error) { return sess, nil }, func() bool { return false })
	got := o.Trace.Steps[len(o.Trace.Steps)-1].Result
	if o.Class != "unstable_answer" || !strings.Contains(got, "line 2: «counter: 1\\u001b[2J") || !strings.Contains(got, "then «counter: 2") {
		t.Fatalf("%s: %q", o.Class, got)
	}
	if strings.ContainsRune(got, 0x1b) || len(got) > 300 {
		t.Errorf("the difference is not escaped and short: %q", got)
	}
	// Texts equal, structured content not: the difference is in it.
	d := answerDiff(Answer{Data: map[string]any{"n": 1.0}}, Answer{Data: map[string]any{"n": 2.0}})
	if !strings.Contains(d, "structured content") || !strings.Contains(d, `{"n":1}`) || !strings.Contains(d, `{"n":2}`) {
		t.Errorf("structured difference: %q", d)
	}
}

// What a list answers is learnt, by field name, and used for a property
// of that name: ids from structured content and JSON text, paths from
// lines of text, plural and camelCase names matched to their last word.
func TestKnownValuesAreLearntAndUsed(t *testing.T) {
	k := NewKnown()
	k.Learn(Answer{Kind: AnswerResult, Data: map[string]any{"items": []any{map[string]any{"id": "cus_17"}}}})
	k.Learn(Answer{Kind: AnswerResult, Text: `{"entities": [{"name": "Ada", "entityType": "person"}]}`})
	k.Learn(Answer{Kind: AnswerResult, Text: "Allowed directories:\n/srv/data\n"})
	k.Learn(Answer{Kind: AnswerToolError, Data: map[string]any{"id": "err_1"}}) // an error teaches nothing
	rng := rand.New(rand.NewPCG(1, 2))
	str := map[string]any{"type": "string"}
	for _, c := range []struct{ prop, want string }{
		{"id", "cus_17"}, {"customer_id", "cus_17"}, {"entityNames", "Ada"}, {"names", "Ada"}, {"path", "/srv/data"}, {"source", "/srv/data"},
	} {
		if got, ok := k.pick(c.prop, str, rng); !ok || got != c.want {
			t.Errorf("pick(%q) = %q, %v; want %q", c.prop, got, ok, c.want)
		}
	}
	if v, ok := k.pick("id", map[string]any{"type": "string", "maxLength": 3}, rng); ok {
		t.Errorf("a known value longer than maxLength was used: %q", v)
	}
	if _, ok := k.pick("email", str, rng); ok {
		t.Error("a value was picked for a name nothing was learnt under")
	}
	// The exerciser uses them: most calls name the learnt id.
	schema := map[string]any{"type": "object", "properties": map[string]any{"customer_id": str}, "required": []any{"customer_id"}}
	used := 0
	for seed := range uint64(40) {
		m := argMaker{rng: rand.New(rand.NewPCG(seed, 0)), known: k}
		if m.object(schema, 0)["customer_id"] == "cus_17" {
			used++
		}
		if !m.guessed {
			t.Fatal("a string not fixed by the schema is not marked guessed")
		}
	}
	if used < 20 || used == 40 {
		t.Errorf("the learnt id was used %d times of 40, want most but not all", used)
	}
}

// Numbers named like a wait or an amount of work are kept small, whatever
// the schema allows: the long-running tool is asked for seconds, not
// minutes; a number of steps is whole and at least one.
func TestSlowNumbersAreClamped(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{
		"duration":  map[string]any{"type": "number", "default": 10},
		"steps":     map[string]any{"type": "number", "default": 5},
		"timeoutMs": map[string]any{"type": "integer", "minimum": 100, "maximum": 60000},
		"floor":     map[string]any{"type": "integer", "minimum": 5, "maximum": 9}, // not slow: untouched
	}, "required": []any{"duration", "steps", "timeoutMs", "floor"}}
	for seed := range uint64(200) {
		a := validArgs(schema, rand.New(rand.NewPCG(seed, 1)), seed%3 == 0)
		d, s, ms := a["duration"].(float64), a["steps"].(float64), a["timeoutMs"].(int64)
		if d < 0 || d > 2 || s < 1 || s > 3 || s != math.Floor(s) || ms < 100 || ms > 500 {
			t.Fatalf("seed %d: %v", seed, a)
		}
		if f := a["floor"].(int64); f < 5 || f > 9 {
			t.Fatalf("seed %d: floor %d", seed, f)
		}
	}
	if got := nameParts("durationMs"); strings.Join(got, ",") != "duration,ms" {
		t.Errorf("nameParts(durationMs) = %v", got)
	}
}
