package personas

import (
	"errors"
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
		{Answer{Kind: AnswerTimeout}, "hung"},
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
