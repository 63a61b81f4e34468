package brain_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herd-sh/herd/brain"
)

// answer is a chat completion with msg as its one choice's message.
func answer(msg string) string {
	return `{"id":"x","object":"chat.completion","choices":[{"index":0,"finish_reason":"stop","message":` + msg +
		`}],"usage":{"prompt_tokens":7,"completion_tokens":3}}`
}

const done = `{"role":"assistant","content":"Done."}`

// endpoint is a loopback server answering with h; it keeps every request
// body it was sent.
type endpoint struct {
	*httptest.Server
	mu     sync.Mutex
	bodies [][]byte
	heads  []http.Header
}

func newEndpoint(t *testing.T, h func(n int, w http.ResponseWriter, r *http.Request)) *endpoint {
	t.Helper()
	e := &endpoint{}
	e.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 16<<20))
		e.mu.Lock()
		e.bodies = append(e.bodies, body)
		e.heads = append(e.heads, r.Header.Clone())
		n := len(e.bodies)
		e.mu.Unlock()
		h(n, w, r)
	}))
	t.Cleanup(e.Close)
	return e
}

func (e *endpoint) n() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.bodies)
}

func (e *endpoint) body(t *testing.T, i int) map[string]any {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	var v map[string]any
	if err := json.Unmarshal(e.bodies[i], &v); err != nil {
		t.Fatalf("request %d is not JSON: %v", i, err)
	}
	return v
}

func write(w http.ResponseWriter, status int, body string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	io.WriteString(w, body)
}

// play plays one episode of hide_contact with s, returning its error.
func play(t *testing.T, s brain.Settings) (*brain.Client, error) {
	t.Helper()
	w, b := world(t)
	a, c := newAgent(t, s, w, "clear")
	_, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	return c, err
}

func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.Marshal(got)
		t.Errorf("%s:\n got %s\nwant %s", what, g, want)
	}
}

// The request is what the committed cassettes were recorded from: the
// fields, which are left out when empty and which are always sent. A
// change here re-keys every recorded request.
func TestRequestWire(t *testing.T) {
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			write(w, 200, answer(`{"role":"assistant","content":"let me look","reasoning":"x","tool_calls":[`+
				`{"id":"c1","type":"function","index":0,"function":{"name":"list_contacts","arguments":""}},`+
				`{"id":"c2","function":{"name":"get_contact","arguments":{"id":"c_0001"}}}]}`))
			return
		}
		write(w, 200, answer(done))
	})
	zero := 0.0
	w, b := world(t)
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", Temperature: &zero, MaxTokens: 64}, w, "clear")
	o, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1<<32)) // the seed sent is 0
	if err != nil {
		t.Fatal(err)
	}
	if o.Calls != 2 || o.InvalidArgs != 0 {
		t.Errorf("outcome %+v: want both calls made (arguments as a string and as an object)", o)
	}
	first, second := srv.body(t, 0), srv.body(t, 1)
	var keys []string
	for k := range first {
		keys = append(keys, k)
	}
	jsonEqual(t, "top-level fields", map[string]any{"model": first["model"], "seed": first["seed"],
		"temperature": first["temperature"], "max_tokens": first["max_tokens"]},
		`{"model":"m","seed":0,"temperature":0,"max_tokens":64}`)
	if len(first) != 6 {
		t.Errorf("fields %v: want model, messages, tools, seed, temperature, max_tokens and nothing else", keys)
	}
	tools := first["tools"].([]any)
	jsonEqual(t, "a tool's keys", mapKeys(tools[0].(map[string]any)), `["function","type"]`)
	jsonEqual(t, "a tool function's keys", mapKeys(tools[0].(map[string]any)["function"].(map[string]any)),
		`["description","name","parameters"]`)
	msgs := second["messages"].([]any)
	jsonEqual(t, "the system and user messages' keys", []any{mapKeys(msgs[0].(map[string]any)), mapKeys(msgs[1].(map[string]any))},
		`[["content","role"],["content","role"]]`)
	jsonEqual(t, "the assistant message sent back", msgs[2], `{"role":"assistant","content":"let me look","tool_calls":[`+
		`{"id":"c1","type":"function","function":{"name":"list_contacts","arguments":""}},`+
		`{"id":"c2","type":"function","function":{"name":"get_contact","arguments":"{\"id\":\"c_0001\"}"}}]}`)
	jsonEqual(t, "a tool message's keys", mapKeys(msgs[3].(map[string]any)), `["content","role","tool_call_id"]`)
	if msgs[3].(map[string]any)["tool_call_id"] != "c1" || msgs[4].(map[string]any)["tool_call_id"] != "c2" {
		t.Errorf("tool messages %v %v: want the calls' ids in order", msgs[3], msgs[4])
	}
	// Without a temperature or a token cap neither is sent; with no
	// content beside its calls an assistant message has none.
	srv2 := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			write(w, 200, answer(`{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"list_contacts","arguments":"{}"}}]}`))
			return
		}
		write(w, 200, answer(done))
	})
	if _, err := play(t, brain.Settings{Model: "m", URL: srv2.URL + "/v1"}); err != nil {
		t.Fatal(err)
	}
	b2 := srv2.body(t, 1)
	jsonEqual(t, "fields without temperature", mapKeys(b2), `["messages","model","seed","tools"]`)
	jsonEqual(t, "an assistant message without content", b2["messages"].([]any)[2],
		`{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"list_contacts","arguments":"{}"}}]}`)
}

func mapKeys(m map[string]any) []any {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	out := make([]any, len(ks))
	for i, k := range ks {
		out[i] = k
	}
	return out
}

// The key goes as a bearer token, and nothing else of the environment
// goes anywhere: OPENAI_BASE_URL does not move the endpoint, a key in
// OPENAI_API_KEY is not sent, no organization or project header is.
func TestHeadersAndNoEnvironment(t *testing.T) {
	elsewhere := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) { write(w, 200, answer(done)) })
	t.Setenv("OPENAI_BASE_URL", elsewhere.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "sk-from-env")
	t.Setenv("OPENAI_ORG_ID", "org-env")
	t.Setenv("OPENAI_PROJECT_ID", "proj-env")
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			write(w, 404, `{"error":{"message":"no such path"}}`)
			return
		}
		write(w, 200, answer(done))
	})
	for _, key := range []string{"sk-given", ""} {
		if _, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", Key: key}); err != nil {
			t.Fatal(err)
		}
	}
	if elsewhere.n() != 0 {
		t.Errorf("OPENAI_BASE_URL got %d requests", elsewhere.n())
	}
	h := srv.heads
	if got := h[0].Get("Authorization"); got != "Bearer sk-given" {
		t.Errorf("Authorization %q, want the given key", got)
	}
	if got, ok := h[1]["Authorization"]; ok {
		t.Errorf("Authorization %q with no key: want none", got)
	}
	for _, hd := range h {
		if hd.Get("OpenAI-Organization") != "" || hd.Get("OpenAI-Project") != "" || hd.Get("Content-Type") != "application/json" {
			t.Errorf("headers %v: want JSON, no organization, no project", hd)
		}
	}
}

// A 429's Retry-After (seconds) is waited for, then the request is sent
// again; the attempts are counted apart from the requests.
func TestRetryAfterSeconds(t *testing.T) {
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		if n == 1 {
			w.Header().Set("Retry-After", "1")
			write(w, 429, `{"error":{"message":"slow down"}}`)
			return
		}
		write(w, 200, answer(done))
	})
	start := time.Now()
	c, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", MaxRetries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 900*time.Millisecond {
		t.Errorf("retried after %s: want the second Retry-After asked", el)
	}
	if u := c.Usage(); u.Requests != 1 || u.Attempts != 2 || u.Answered != 1 || u.PromptTokens != 7 || u.OutputTokens != 3 {
		t.Errorf("usage %+v: want 1 request in 2 attempts, its tokens tallied", u)
	}
}

// A Retry-After longer than MaxRetryDelay is not waited out: the 429
// stands, and says why it was not retried.
func TestRetryAfterBeyondTheCap(t *testing.T) {
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", "3600")
		write(w, 429, `{"error":{"message":"quota exceeded"}}`)
	})
	start := time.Now()
	c, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", MaxRetries: 3, MaxRetryDelay: time.Second})
	var ee *brain.EndpointError
	if !errors.As(err, &ee) || ee.Status != 429 || ee.Message != "quota exceeded" || !strings.Contains(err.Error(), "longer than 1s") {
		t.Fatalf("err %v: want the 429 with its message, not retried", err)
	}
	if time.Since(start) > 500*time.Millisecond || c.Usage().Attempts != 1 {
		t.Errorf("%d attempts in %s: want one, at once", c.Usage().Attempts, time.Since(start))
	}
}

// 5xx answers and dropped connections are retried with backoff (capped
// by MaxRetryDelay) until one succeeds; a 400 is not retried.
func TestRetries5xxAndDroppedConnections(t *testing.T) {
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		switch n {
		case 1:
			write(w, 502, `bad gateway`)
		case 2:
			// Drop the connection without an answer.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		case 3:
			w.Header().Set("Retry-After-Ms", "10")
			write(w, 503, `{"error":{"message":"loading model"}}`)
		default:
			write(w, 200, answer(done))
		}
	})
	c, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", MaxRetries: 3, MaxRetryDelay: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if u := c.Usage(); u.Attempts != 4 || u.Requests != 1 {
		t.Errorf("usage %+v: want 4 attempts for 1 request", u)
	}

	bad := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		write(w, 400, `{"error":{"message":"tools are not supported by this model","type":"invalid_request_error"}}`)
	})
	c, err = play(t, brain.Settings{Model: "m", URL: bad.URL + "/v1", Key: "sk-secret", MaxRetries: 3})
	var ee *brain.EndpointError
	if !errors.As(err, &ee) || ee.Status != 400 || ee.Message != "tools are not supported by this model" {
		t.Fatalf("err %v: want the 400 with the endpoint's message", err)
	}
	if c.Usage().Attempts != 1 || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("%d attempts, error %q: want one attempt and no key", c.Usage().Attempts, err)
	}
}

// An error answer's message is the endpoint's, in OpenAI's shape or as a
// bare string; without one, the status's text.
func TestErrorMessages(t *testing.T) {
	for body, want := range map[string]string{
		`{"error":{"message":"model \"m\" not found, try pulling it first","code":null}}`: `model "m" not found, try pulling it first`,
		`{"error":"model \"m\" not found"}`:                                               `model "m" not found`,
		`<html>404 page</html>`:                                                           "Not Found",
		`{"error":{"code":404}}`:                                                          "Not Found",
		``:                                                                                "Not Found",
	} {
		srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) { write(w, 404, body) })
		_, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1"})
		var ee *brain.EndpointError
		if !errors.As(err, &ee) || ee.Status != 404 || ee.Message != want {
			t.Errorf("body %q: err %v, want 404 %q", body, err, want)
		}
	}
	// A gateway that answers a failure with 200.
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		write(w, 200, `{"error":{"message":"upstream timed out"}}`)
	})
	_, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1"})
	var ee *brain.EndpointError
	if !errors.As(err, &ee) || ee.Message != "upstream timed out" {
		t.Errorf("err %v: want the gateway's message", err)
	}
}

// An answer that is not a chat completion is an error saying what is
// wrong and where, and is not asked again.
func TestMalformedAnswer(t *testing.T) {
	for body, want := range map[string]string{
		`{"choices":[{"message":{"content":[1,2]}}]}`:                                                 "choices.message.content",
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"arguments":[1]}}]}}]}`:          "choices.message.tool_calls.function.arguments",
		`{"choices":[{"message":{"role":"assistant","content":"hi"}}],"usage":{"prompt_tokens":"7"}}`: "usage.prompt_tokens",
		`{"choices":[`:                          "not a chat completion",
		`<html><body>Bad gateway</body></html>`: "byte 1",
	} {
		srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) { write(w, 200, body) })
		c, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", MaxRetries: 3})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "turn 1") {
			t.Errorf("answer %q: err %v, want it to say %q and the turn", body, err, want)
		}
		if c.Usage().Attempts != 1 || c.Usage().Answered != 0 {
			t.Errorf("answer %q: usage %+v, want one attempt, nothing answered", body, c.Usage())
		}
	}
}

// An endpoint that sends an endless answer is read to the cap and no
// further, and the error says so.
func TestAnswerCap(t *testing.T) {
	var sent atomic.Int64
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"choices":[{"message":{"content":"`)
		chunk := []byte(strings.Repeat("a", 64<<10))
		for sent.Load() < 1<<30 {
			k, err := w.Write(chunk)
			sent.Add(int64(k))
			if err != nil {
				return
			}
		}
	})
	c, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", MaxRetries: 3})
	if err == nil || !strings.Contains(err.Error(), "larger than 8 MiB") {
		t.Fatalf("err %v: want the answer refused at the cap", err)
	}
	if c.Usage().Attempts != 1 {
		t.Errorf("%d attempts: an answer too large is not asked again", c.Usage().Attempts)
	}
	srv.CloseClientConnections()
	if s := sent.Load(); s > 64<<20 {
		t.Errorf("the endpoint sent %d MiB: the client read past its cap", s>>20)
	}
}

// Cancelling the episode's context ends a request in flight at once; the
// client's timeout bounds a request with its retries.
func TestCancelAndTimeout(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	hang := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	w, b := world(t)
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: hang.URL + "/v1"}, w, "clear")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	start := time.Now()
	_, err := a.Play(ctx, episode(b, w, "hide_contact", 1))
	if !errors.Is(err, context.Canceled) || time.Since(start) > 2*time.Second {
		t.Errorf("err %v after %s: want context.Canceled, promptly", err, time.Since(start))
	}

	busy := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After-Ms", "40")
		write(w, 503, `{"error":{"message":"busy"}}`)
	})
	start = time.Now()
	c, err := play(t, brain.Settings{Model: "m", URL: busy.URL + "/v1", MaxRetries: 20, Timeout: 300 * time.Millisecond})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 300ms, retries included") ||
		!strings.Contains(err.Error(), "busy") {
		t.Errorf("err %v: want the timeout, retries included, with the last answer", err)
	}
	if el := time.Since(start); el > 2*time.Second || c.Usage().Attempts < 2 || c.Usage().Attempts > 9 {
		t.Errorf("%d attempts in %s: want a few, ended by the timeout", c.Usage().Attempts, el)
	}
}

// A redirect to another origin is refused: the key is for the endpoint.
func TestRedirectElsewhereRefused(t *testing.T) {
	other := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) { write(w, 200, answer(done)) })
	srv := newEndpoint(t, func(n int, w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/v1/chat/completions", http.StatusTemporaryRedirect)
	})
	_, err := play(t, brain.Settings{Model: "m", URL: srv.URL + "/v1", Key: "sk-secret", MaxRetries: 0})
	if err == nil || !strings.Contains(err.Error(), "refusing a redirect") {
		t.Errorf("err %v: want the redirect refused", err)
	}
	if other.n() != 0 {
		t.Errorf("the other origin got %d requests", other.n())
	}
}

// Replaying a cassette never retries: a request it lacks is asked once.
func TestReplayDoesNotRetry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.json")
	rec, err := brain.OpenCassette(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	playc, err := brain.OpenCassette(path, false)
	if err != nil {
		t.Fatal(err)
	}
	c, err := play(t, brain.Settings{Model: "m", Cassette: playc, MaxRetries: 5})
	if !errors.Is(err, brain.ErrNotRecorded) || c.Usage().Attempts != 1 {
		t.Errorf("err %v, %d attempts: want ErrNotRecorded after one", err, c.Usage().Attempts)
	}
}
