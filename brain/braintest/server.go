// Package braintest is an OpenAI-compatible chat-completions server for
// tests: it speaks the real wire format (POST …/chat/completions with
// `tools`, answers with `tool_calls` or content, streaming off) on
// loopback, and decides with a Policy the test gives it. It can answer
// 429 with Retry-After, send malformed tool calls, never stop calling
// tools, or answer without a tool call — the cases a model-backed agent
// must survive. No test contacts a real model.
package braintest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Request is what the server was asked, decoded.
type Request struct {
	Model       string     `json:"model"`
	Messages    []Message  `json:"messages"`
	Tools       []ToolSpec `json:"tools"`
	Seed        *int64     `json:"seed"`
	Temperature *float64   `json:"temperature"`
	Stream      bool       `json:"stream"`
	// Auth is the Authorization header as sent.
	Auth string `json:"-"`
}

// Message is one chat message of the request.
type Message struct {
	Role       string     `json:"role"`
	Content    any        `json:"content"`
	ToolCalls  []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string     `json:"tool_call_id,omitempty"`
}

// Text is the message's content as text.
func (m Message) Text() string {
	switch c := m.Content.(type) {
	case string:
		return c
	case []any:
		var b strings.Builder
		for _, p := range c {
			if pm, ok := p.(map[string]any); ok {
				if s, ok := pm["text"].(string); ok {
					b.WriteString(s)
				}
			}
		}
		return b.String()
	}
	return ""
}

// ToolCall is a call in an assistant message.
type ToolCall struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// ToolSpec is one tool offered.
type ToolSpec struct {
	Type     string `json:"type"`
	Function struct {
		Name        string         `json:"name"`
		Description string         `json:"description"`
		Parameters  map[string]any `json:"parameters"`
	} `json:"function"`
}

// Call is a tool call a policy makes.
type Call struct {
	Name      string
	Arguments string // raw: a test may send malformed JSON
}

// Reply is what a policy answers: an HTTP status other than 200 (with
// RetryAfter in seconds), or content, or tool calls.
type Reply struct {
	Status     int
	RetryAfter string
	Content    string
	Calls      []Call
}

// Policy decides the reply to a request. It is called concurrently.
type Policy func(n int, r *Request) Reply

// Server is a running fake endpoint.
type Server struct {
	*httptest.Server
	policy   Policy
	requests atomic.Int64
	mu       sync.Mutex
	last     *Request
}

// New starts a server on loopback answering with policy. Close it.
func New(policy Policy) *Server {
	s := &Server{policy: policy}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// BaseURL is the URL a client is given (the part chat/completions is under).
func (s *Server) BaseURL() string { return s.URL + "/v1" }

// Requests counts the requests the server got.
func (s *Server) Requests() int { return int(s.requests.Load()) }

// Last is the last request decoded.
func (s *Server) Last() *Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	n := int(s.requests.Add(1))
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, `{"error":{"message":"not found","type":"invalid_request_error"}}`, http.StatusNotFound)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var req Request
	if err := json.Unmarshal(body, &req); err != nil {
		writeError(w, http.StatusBadRequest, "invalid JSON: "+err.Error())
		return
	}
	req.Auth = r.Header.Get("Authorization")
	s.mu.Lock()
	s.last = &req
	s.mu.Unlock()
	if req.Stream {
		writeError(w, http.StatusBadRequest, "this test server does not stream")
		return
	}
	rep := s.policy(n, &req)
	if rep.Status != 0 && rep.Status != http.StatusOK {
		if rep.RetryAfter != "" {
			w.Header().Set("Retry-After", rep.RetryAfter)
		}
		writeError(w, rep.Status, http.StatusText(rep.Status))
		return
	}
	msg := map[string]any{"role": "assistant", "content": nil}
	finish := "stop"
	if len(rep.Calls) > 0 {
		calls := make([]map[string]any, len(rep.Calls))
		for i, c := range rep.Calls {
			calls[i] = map[string]any{
				"id": fmt.Sprintf("call_%d_%d", len(req.Messages), i), "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": c.Arguments},
			}
		}
		msg["tool_calls"] = calls
		finish = "tool_calls"
	} else {
		msg["content"] = rep.Content
	}
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(strings.Fields(m.Text())) + 4
	}
	out := map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", len(req.Messages)), "object": "chat.completion", "created": 1764547200,
		"model":   req.Model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": 12 * max(1, len(rep.Calls)), "total_tokens": prompt + 12*max(1, len(rep.Calls))},
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(out)
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "test_error"}})
}

// Reader is a plausible, deterministic model for whole episodes: it picks
// the tool whose name and description share most words with the user's
// request (every fourth agent seed takes the runner-up, so outcomes vary),
// finds the record first with a search or list tool when the tool needs an
// id it does not have, calls the tool with the id from the search's first
// item, and answers "Done." once the call succeeded (or after an error it
// cannot fix).
func Reader(n int, r *Request) Reply {
	user, toolResults := "", []string{}
	for _, m := range r.Messages {
		switch m.Role {
		case "user":
			user = m.Text()
		case "tool":
			toolResults = append(toolResults, m.Text())
		}
	}
	called := calledTools(r.Messages)
	pick := rankTools(r.Tools, user)
	if len(pick) == 0 {
		return Reply{Content: "There is no tool for that."}
	}
	choice := pick[0]
	if r.Seed != nil && *r.Seed%4 == 3 && len(pick) > 1 {
		choice = pick[1]
	}
	if slices.Contains(called, choice.Function.Name) {
		last := toolResults[len(toolResults)-1]
		if strings.Contains(last, `"error"`) {
			return Reply{Content: "I could not do it: " + last}
		}
		return Reply{Content: "Done."}
	}
	id := lastID(toolResults)
	params, required := props(choice)
	args := map[string]any{}
	for _, p := range required {
		switch {
		case strings.HasSuffix(p, "id") && id != "":
			args[p] = id
		case strings.HasSuffix(p, "id"):
			// The id is not known yet: find the record first.
			if s := searchTool(r.Tools); s != nil && !slices.Contains(called, s.Function.Name) {
				return Reply{Calls: []Call{searchCall(s, user)}}
			}
			return Reply{Content: "I could not find the record."}
		default:
			args[p] = knownValue(user, p, params[p])
		}
	}
	b, _ := json.Marshal(args)
	return Reply{Calls: []Call{{Name: choice.Function.Name, Arguments: string(b)}}}
}

var wordRE = regexp.MustCompile(`[a-z]+`)

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		if len(w) > 2 {
			out[w] = true
		}
	}
	return out
}

func rankTools(tools []ToolSpec, user string) []ToolSpec {
	u := words(strings.SplitN(user, "\n", 2)[0])
	type scored struct {
		t ToolSpec
		s int
	}
	var ss []scored
	for _, t := range tools {
		s := 0
		for w := range words(strings.ReplaceAll(t.Function.Name, "_", " ")) {
			if u[w] {
				s += 3
			}
		}
		for w := range words(t.Function.Description) {
			if u[w] {
				s++
			}
		}
		ss = append(ss, scored{t, s})
	}
	slices.SortStableFunc(ss, func(a, b scored) int { return b.s - a.s })
	out := make([]ToolSpec, len(ss))
	for i := range ss {
		out[i] = ss[i].t
	}
	return out
}

func calledTools(ms []Message) []string {
	var out []string
	for _, m := range ms {
		for _, c := range m.ToolCalls {
			out = append(out, c.Function.Name)
		}
	}
	return out
}

func props(t ToolSpec) (map[string]map[string]any, []string) {
	ps := map[string]map[string]any{}
	if m, ok := t.Function.Parameters["properties"].(map[string]any); ok {
		for k, v := range m {
			vm, _ := v.(map[string]any)
			ps[k] = vm
		}
	}
	var req []string
	if r, ok := t.Function.Parameters["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req = append(req, s)
			}
		}
	}
	return ps, req
}

var idRE = regexp.MustCompile(`"id":"([^"]+)"`)

func lastID(results []string) string {
	for i := len(results) - 1; i >= 0; i-- {
		if m := idRE.FindStringSubmatch(results[i]); m != nil {
			return m[1]
		}
	}
	return ""
}

func searchTool(tools []ToolSpec) *ToolSpec {
	for i, t := range tools {
		n := t.Function.Name
		if strings.HasPrefix(n, "search") || strings.HasPrefix(n, "find") {
			return &tools[i]
		}
	}
	for i, t := range tools {
		if strings.HasPrefix(t.Function.Name, "list") {
			return &tools[i]
		}
	}
	return nil
}

func searchCall(t *ToolSpec, user string) Call {
	ps, req := props(*t)
	args := map[string]any{}
	for _, p := range req {
		args[p] = knownValue(user, p, ps[p])
	}
	b, _ := json.Marshal(args)
	return Call{Name: t.Function.Name, Arguments: string(b)}
}

var knownRE = regexp.MustCompile(`(?m)^- ([a-z_]+): (.+)$`)

// knownValue is a value for param p from the "What you know" lines of
// the user's message, else a placeholder of the param's type.
func knownValue(user, p string, schema map[string]any) any {
	var first any
	if p == "query" || p == "q" || p == "search" || p == "text" {
		p = "name" // a search looks for who the request names
	}
	for _, m := range knownRE.FindAllStringSubmatch(user, -1) {

		var v any
		if json.Unmarshal([]byte(m[2]), &v) != nil {
			continue
		}
		if first == nil {
			first = v
		}
		if m[1] == p || strings.Contains(p, m[1]) || strings.Contains(m[1], p) {
			return v
		}
	}
	switch schema["type"] {
	case "integer", "number":
		if f, ok := first.(float64); ok {
			return f
		}
		return 1
	case "boolean":
		return true
	}
	if first != nil {
		if s, ok := first.(string); ok {
			return s
		}
		return strconv.Quote(fmt.Sprint(first))
	}
	return "x"
}
