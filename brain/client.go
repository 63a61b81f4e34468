// Package brain plays herd's episodes with a language model instead of a
// scripted persona: any OpenAI-compatible chat-completions endpoint with
// tool calling (Ollama, vLLM, llama.cpp's server, LM Studio, OpenAI, or
// a gateway in front of another provider). The model sees the world's
// tools as a served MCP client would show them to it — names, the chosen
// variant's texts, input schemas — and the goal's intent as the user's
// message; it plays against an in-process session, and the engine judges
// the end state with the same outcome classes as for any persona.
//
// Every exchange can be recorded to a cassette (request hash → answer),
// and a cassette replays a run byte for byte with no endpoint at all.
package brain

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// Settings say which model to ask and how.
type Settings struct {
	// Model is the model's name as the endpoint knows it ("qwen2.5:7b",
	// "gpt-4.1-mini").
	Model string
	// URL is the endpoint's base URL, the one chat/completions is under
	// ("http://127.0.0.1:11434/v1" for Ollama). Required: there is no
	// default endpoint, so that no run reaches a provider by accident.
	URL string
	// Key is the API key, read by the caller from the environment. It is
	// sent as a bearer token and never recorded (not in the cassette, not
	// in the results).
	Key string
	// Temperature is sent with every request; nil leaves the endpoint's
	// default.
	Temperature *float64
	// MaxSteps caps the model's turns in one episode: a model that never
	// stops calling tools ends there, and the episode is judged as it is.
	MaxSteps int
	// MaxTokens caps each answer's length (0: the endpoint's default).
	MaxTokens int
	// MaxRetries is how many times a request that met a 429, a 5xx or a
	// connection error is sent again, with backoff (the endpoint's
	// Retry-After is honoured up to MaxRetryDelay).
	MaxRetries    int
	MaxRetryDelay time.Duration
	// Timeout bounds one request, retries included.
	Timeout time.Duration
	// HTTPClient carries the requests (the caller's, with its loopback
	// guard). nil: a plain client.
	HTTPClient *http.Client
	// Cassette, when set, answers from its recording; with recording on it
	// also passes what it lacks to the endpoint and keeps the answer.
	Cassette *Cassette
}

// Defaults for Settings' zero values.
const (
	DefaultMaxSteps      = 12
	DefaultMaxRetries    = 4
	DefaultMaxRetryDelay = 30 * time.Second
	DefaultTimeout       = 2 * time.Minute
	// MaxStepsLimit caps MaxSteps.
	MaxStepsLimit = 200
)

// Check refuses settings that cannot make a client, in their field names.
func (s *Settings) Check() error {
	if strings.TrimSpace(s.Model) == "" {
		return errors.New("brain: Model: empty (name the model the endpoint serves)")
	}
	if s.Cassette == nil || s.Cassette.record {
		if s.URL == "" {
			return errors.New("brain: URL: empty (the endpoint's base URL, e.g. http://127.0.0.1:11434/v1)")
		}
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("brain: URL: %q is not an http(s) URL", s.URL)
		}
	}
	if s.MaxSteps < 0 || s.MaxSteps > MaxStepsLimit {
		return fmt.Errorf("brain: MaxSteps: %d, want 1 to %d", s.MaxSteps, MaxStepsLimit)
	}
	if s.MaxRetries < 0 || s.MaxRetries > 20 {
		return fmt.Errorf("brain: MaxRetries: %d, want 0 to 20", s.MaxRetries)
	}
	if t := s.Temperature; t != nil && (*t < 0 || *t > 2) {
		return fmt.Errorf("brain: Temperature: %g, want 0 to 2", *t)
	}
	return nil
}

func (s *Settings) defaults() {
	if s.MaxSteps == 0 {
		s.MaxSteps = DefaultMaxSteps
	}
	if s.MaxRetryDelay == 0 {
		s.MaxRetryDelay = DefaultMaxRetryDelay
	}
	if s.Timeout == 0 {
		s.Timeout = DefaultTimeout
	}
}

// Client asks the model. It counts what it asked and what it was
// answered; it is safe for concurrent use.
type Client struct {
	s  Settings
	oc openai.Client

	requests, attempts, answered atomic.Int64
	promptTokens, outTokens      atomic.Int64
}

// NewClient checks s and makes a client for it.
func NewClient(s Settings) (*Client, error) {
	s.defaults()
	if err := s.Check(); err != nil {
		return nil, err
	}
	c := &Client{s: s}
	base := s.URL
	if base == "" {
		// Replaying a cassette: nothing is sent, but the client still
		// builds requests against some origin.
		base = "http://replay.invalid/v1"
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	hc := s.HTTPClient
	if hc == nil {
		hc = &http.Client{}
	}
	retries := s.MaxRetries
	if s.Cassette != nil && !s.Cassette.record {
		retries = 0 // a missing recording is not made better by asking again
	}
	opts := []option.RequestOption{
		// Ours come after the SDK's environment defaults and override
		// them: OPENAI_BASE_URL must never aim a run elsewhere, and
		// OPENAI_API_KEY is not ours to send to a local endpoint.
		option.WithBaseURL(base),
		option.WithAPIKey(s.Key),
		option.WithHeaderDel("OpenAI-Organization"),
		option.WithHeaderDel("OpenAI-Project"),
		option.WithHTTPClient(hc),
		option.WithMaxRetries(retries),
		option.WithMaxRetryDelay(s.MaxRetryDelay),
		option.WithRequestTimeout(s.Timeout),
		option.WithMiddleware(c.count),
	}
	if s.Cassette != nil {
		opts = append(opts, option.WithMiddleware(s.Cassette.roundTrip))
	}
	c.oc = openai.NewClient(opts...)
	return c, nil
}

// count tallies every attempt (so retries show as attempts − requests).
func (c *Client) count(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	c.attempts.Add(1)
	return next(req)
}

// Model is the model's name.
func (c *Client) Model() string { return c.s.Model }

// Endpoint says how answers are obtained: "live", "record" (live, kept in
// a cassette) or "cassette" (replayed, nothing sent).
func (c *Client) Endpoint() string {
	switch {
	case c.s.Cassette == nil:
		return "live"
	case c.s.Cassette.record:
		return "record"
	}
	return "cassette"
}

// Usage is what a client asked and was answered.
type Usage struct {
	Requests     int64 // chat completions asked for
	Attempts     int64 // HTTP requests made for them (retries included)
	Answered     int64
	PromptTokens int64 // as the endpoint reported them
	OutputTokens int64
}

// Usage is the client's tally so far.
func (c *Client) Usage() Usage {
	return Usage{Requests: c.requests.Load(), Attempts: c.attempts.Load(), Answered: c.answered.Load(),
		PromptTokens: c.promptTokens.Load(), OutputTokens: c.outTokens.Load()}
}

// complete asks for one chat completion.
func (c *Client) complete(ctx context.Context, p openai.ChatCompletionNewParams) (*openai.ChatCompletion, error) {
	c.requests.Add(1)
	r, err := c.oc.Chat.Completions.New(ctx, p)
	if err != nil {
		return nil, describe(err)
	}
	c.answered.Add(1)
	c.promptTokens.Add(r.Usage.PromptTokens)
	c.outTokens.Add(r.Usage.CompletionTokens)
	return r, nil
}

// describe shortens the SDK's errors to what a user acts on: the status
// and the endpoint's message, never the request (it carries the key in
// its headers).
func describe(err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		msg := strings.TrimSpace(ae.Message)
		if msg == "" {
			msg = http.StatusText(ae.StatusCode)
		}
		return &EndpointError{Status: ae.StatusCode, Message: msg}
	}
	return err
}

// EndpointError is an answer the endpoint gave that is not a completion
// (after the retries).
type EndpointError struct {
	Status  int
	Message string
}

func (e *EndpointError) Error() string {
	return fmt.Sprintf("model endpoint answered %d: %s", e.Status, e.Message)
}
