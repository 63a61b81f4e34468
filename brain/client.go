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
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/herd-sh/herd/internal/boundedio"
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
//
// It is a small client of the one endpoint herd needs rather than a
// provider's SDK: it reads no environment variable (OPENAI_BASE_URL must
// never aim a run elsewhere, and OPENAI_API_KEY is not ours to send to a
// local endpoint), sends no organization or project header, and adds a
// few hundred lines to the binary instead of megabytes.
type Client struct {
	s        Settings
	endpoint *url.URL // {base}/chat/completions
	hc       *http.Client
	retries  int

	requests, attempts, answered atomic.Int64
	promptTokens, outTokens      atomic.Int64
}

// NewClient checks s and makes a client for it.
func NewClient(s Settings) (*Client, error) {
	s.defaults()
	if err := s.Check(); err != nil {
		return nil, err
	}
	base := s.URL
	if base == "" {
		// Replaying a cassette: nothing is sent, but the client still
		// builds requests against some origin.
		base = "http://replay.invalid/v1"
	}
	if !strings.HasSuffix(base, "/") {
		base += "/"
	}
	bu, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("brain: URL: %q: %w", s.URL, err)
	}
	// Resolved as a relative reference, as OpenAI's clients do: a base
	// with a query keeps its path and drops the query.
	endpoint := bu.ResolveReference(&url.URL{Path: "chat/completions"})
	c := &Client{s: s, endpoint: endpoint, retries: s.MaxRetries, hc: sameOrigin(s.HTTPClient, endpoint)}
	if s.Cassette != nil && !s.Cassette.record {
		c.retries = 0 // a missing recording is not made better by asking again
	}
	return c, nil
}

// sameOrigin is hc (or a plain client) following redirects only within
// the endpoint's origin: the key is for the endpoint, not for wherever it
// points. The caller's own redirect rules still apply.
func sameOrigin(hc *http.Client, endpoint *url.URL) *http.Client {
	if hc == nil {
		hc = &http.Client{}
	}
	c := *hc
	inner := hc.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if req.URL.Scheme != endpoint.Scheme || req.URL.Host != endpoint.Host {
			return fmt.Errorf("refusing a redirect to %s://%s: not the model endpoint's origin", req.URL.Scheme, req.URL.Host)
		}
		if inner != nil {
			return inner(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &c
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

// complete asks for one chat completion: it sends the request, again
// after a 429, a 5xx or a connection error while retries remain, and
// decodes the answer. s.Timeout bounds the whole, retries included.
func (c *Client) complete(ctx context.Context, req *chatRequest) (*chatCompletion, error) {
	c.requests.Add(1)
	body, err := json.Marshal(req)
	if err != nil {
		// Only a tool's schema can hold a value JSON cannot carry.
		return nil, fmt.Errorf("model request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.s.Timeout)
	defer cancel()
	var failed error // the last attempt's failure, once there was one
	for retry := 0; ; retry++ {
		answer, err := c.attempt(ctx, body)
		if err == nil {
			r, err := decodeCompletion(answer)
			if err != nil {
				return nil, err
			}
			if len(r.Choices) == 0 && len(r.Error) > 0 && string(r.Error) != "null" {
				// A gateway's failure with status 200.
				return nil, &EndpointError{Status: http.StatusOK, Message: orStatus(errorMessage(answer), http.StatusOK)}
			}
			c.answered.Add(1)
			c.promptTokens.Add(r.Usage.PromptTokens)
			c.outTokens.Add(r.Usage.CompletionTokens)
			return r, nil
		}
		if ctx.Err() != nil {
			return nil, c.stopped(ctx, err, failed)
		}
		var re *retryable
		if !errors.As(err, &re) {
			return nil, err
		}
		if retry >= c.retries {
			return nil, re.err
		}
		failed = re.err
		delay, ok := retryDelay(re.header, retry, c.s.MaxRetryDelay)
		if !ok {
			// The endpoint asks for a longer wait than allowed: its
			// answer stands.
			return nil, fmt.Errorf("%w (it asked to wait longer than %s before a retry)", re.err, c.s.MaxRetryDelay)
		}
		t := time.NewTimer(delay)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, c.stopped(ctx, re.err, failed)
		case <-t.C:
		}
	}
}

// stopped is the error of a request whose context ended, during the
// attempt that failed with last or the wait after it: the caller's
// cancellation, or the client's own timeout said so with the last
// failure the endpoint answered (failed, when the attempt cut short had
// none of its own); errors.Is finds the context's error in both.
func (c *Client) stopped(ctx context.Context, last, failed error) error {
	var re *retryable
	if errors.As(last, &re) {
		last = re.err
	}
	if errors.Is(last, ctx.Err()) && failed != nil {
		last = failed
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("model endpoint: no answer within %s, retries included (last: %v): %w", c.s.Timeout, last, context.DeadlineExceeded)
	}
	if errors.Is(last, ctx.Err()) {
		return last
	}
	return fmt.Errorf("model endpoint: %w (last: %v)", ctx.Err(), last)
}

// retryable is an attempt's failure that another attempt may not meet:
// a connection error, or a status the endpoint may answer differently
// later. header is the failed answer's (nil for a connection error).
type retryable struct {
	err    error
	header http.Header
}

func (r *retryable) Error() string { return r.err.Error() }
func (r *retryable) Unwrap() error { return r.err }

// attempt sends body once (through the cassette, when there is one) and
// returns the 200 answer's body, read up to MaxResponseBytes.
func (c *Client) attempt(ctx context.Context, body []byte) ([]byte, error) {
	c.attempts.Add(1)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint.String(), bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("model request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "herd")
	if c.s.Key != "" {
		req.Header.Set("Authorization", "Bearer "+c.s.Key)
	}
	send := func(r *http.Request) (*http.Response, error) {
		resp, err := c.hc.Do(r)
		if err != nil {
			// *url.Error names the URL, never the key (a header).
			return nil, &retryable{err: err}
		}
		return resp, nil
	}
	var resp *http.Response
	if c.s.Cassette != nil {
		resp, err = c.s.Cassette.roundTrip(req, send)
	} else {
		resp, err = send(req)
	}
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, failure(resp)
	}
	answer, err := boundedio.Read(resp.Body, MaxResponseBytes)
	if err != nil {
		return nil, answerReadError(err)
	}
	return answer, nil
}

// answerReadError says why a 200 answer could not be read. It is not
// asked again (as OpenAI's clients do not): one too large would be as
// large again, and the caller's transport may have its own cap.
func answerReadError(err error) error {
	var tl *boundedio.TooLargeError
	if errors.As(err, &tl) {
		return fmt.Errorf("model endpoint: the answer is larger than %d MiB, the limit; not read further", tl.Limit>>20)
	}
	return fmt.Errorf("model endpoint: reading the answer: %w", err)
}

// maxErrorBody bounds what is read of an error answer: its message is
// all herd wants from it.
const maxErrorBody = 64 << 10

// failure is the error of an answer that is not a 200: an EndpointError
// with the endpoint's message, retryable when the status says another
// attempt may fare better.
func failure(resp *http.Response) error {
	body, _ := boundedio.Read(resp.Body, maxErrorBody) // too long: the status text says it
	err := &EndpointError{Status: resp.StatusCode, Message: orStatus(errorMessage(body), resp.StatusCode)}
	if shouldRetry(resp) {
		return &retryable{err: err, header: resp.Header}
	}
	return err
}

// shouldRetry says whether another attempt may fare better than resp:
// the endpoint's X-Should-Retry when it says, else 408, 409, 429 and
// every 5xx (what OpenAI's own clients retry).
func shouldRetry(resp *http.Response) bool {
	switch resp.Header.Get("X-Should-Retry") {
	case "true":
		return true
	case "false":
		return false
	}
	s := resp.StatusCode
	return s == http.StatusRequestTimeout || s == http.StatusConflict || s == http.StatusTooManyRequests || s >= 500
}

// orStatus is msg, or the status's text when the endpoint said nothing.
func orStatus(msg string, status int) string {
	if msg == "" {
		if msg = http.StatusText(status); msg == "" {
			msg = "status " + strconv.Itoa(status)
		}
	}
	return msg
}

// retryDelay is the wait before retry number retry+1: what the answer's
// Retry-After-Ms or Retry-After asks (seconds or an HTTP date), else an
// exponential backoff from half a second less up to a quarter of jitter,
// at most limit either way. ok is false when the endpoint asks for more
// than limit.
func retryDelay(h http.Header, retry int, limit time.Duration) (d time.Duration, ok bool) {
	for _, ra := range []struct {
		name string
		unit time.Duration
	}{{"Retry-After-Ms", time.Millisecond}, {"Retry-After", time.Second}} {
		v := strings.TrimSpace(h.Get(ra.name))
		if v == "" {
			continue
		}
		if n, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
			if math.IsNaN(n) || n < 0 {
				continue
			}
			if n > float64(limit)/float64(ra.unit) {
				return 0, false
			}
			return time.Duration(n * float64(ra.unit)), true
		}
		if ra.unit == time.Second {
			if t, err := http.ParseTime(v); err == nil {
				wait := time.Until(t)
				if wait > limit {
					return 0, false
				}
				return max(wait, 0), true
			}
		}
	}
	d = limit
	if backoff := float64(500*time.Millisecond) * math.Pow(2, float64(retry)); backoff < float64(limit) {
		d = time.Duration(backoff)
	}
	if j := int64(d / 4); j > 0 {
		d -= time.Duration(rand.Int64N(j))
	}
	return d, true
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
