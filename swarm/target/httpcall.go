package target

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	sjson "github.com/segmentio/encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// httpCalls makes the tool calls of one MCP session over Streamable HTTP
// itself, as POSTs of JSON-RPC tools/call requests, instead of through the
// SDK's client session (which opened the session and still ends it).
//
// Why: profiled against herd serve, the SDK's client spent most of the
// swarm's CPU per call decoding each answer — the JSON-RPC envelope, then
// the result again, the text content unescaped into a string although the
// swarm reads the structured content (herd serve sends the same JSON as
// both), each decode through a fresh buffer — and in its per-session
// goroutines and channels. A list of 20 records is a 10 KB answer, so a
// swarm's mix of tools paid that many times over a loop of get_contact.
// Here the body is read once and decoded once into exactly what the swarm
// reads: the structured content as the SDK would have decoded it (the same
// decoder, so the same values), _meta and isError; the text content is
// kept raw and decoded only when the structured content does not do.
//
// A session's calls are made one at a time (one episode holds the
// connection), so nothing here is shared between goroutines.
type httpCalls struct {
	hc       *http.Client
	endpoint string
	session  string // Mcp-Session-Id
	protocol string // the negotiated protocol version (Mcp-Protocol-Version)
	nextID   int64
	// the header values of every call (never written to)
	sessionHeader, protocolHeader []string
	// buf reads each answer before it is copied out at its exact size
	buf bytes.Buffer
}

// Header values every call sends (never written to).
var (
	jsonContentType = []string{"application/json"}
	acceptAnswers   = []string{"application/json, text/event-stream"}
	toolsCallMethod = []string{"tools/call"}
)

// firstCallID is the id of a session's first call made here: far above the
// ids the SDK's client session gave its own requests on the same session,
// so that the server never sees one id twice.
const firstCallID = 1 << 40

// standardHeadersVersion is the first protocol version whose requests name
// their method (and tool) in headers, as the SDK sends them.
const standardHeadersVersion = "2026-07-28"

func newHTTPCalls(hc *http.Client, endpoint string, cs *mcp.ClientSession) *httpCalls {
	pv := ProtocolVersion
	if r := cs.InitializeResult(); r != nil && r.ProtocolVersion != "" {
		pv = r.ProtocolVersion
	}
	return newHTTPCallsOf(hc, endpoint, cs.ID(), pv)
}

func newHTTPCallsOf(hc *http.Client, endpoint, session, protocol string) *httpCalls {
	return &httpCalls{hc: hc, endpoint: endpoint, session: session, protocol: protocol, nextID: firstCallID,
		sessionHeader: []string{session}, protocolHeader: []string{protocol}}
}

// toolAnswer is a tools/call result as the swarm reads it. The structured
// content is kept raw: answers repeat (a list on a freshly reset world is
// the same 20 records episode after episode), and a repeated one is not
// decoded again (answerCache).
type toolAnswer struct {
	Meta       mcp.Meta        `json:"_meta"`
	Content    json.RawMessage `json:"content"`
	Structured json.RawMessage `json:"structuredContent"`
	IsError    bool            `json:"isError"`
}

// structured is the structured content decoded as the SDK's client decodes
// it (the same decoder), nil when there is none or it does not decode.
func (a *toolAnswer) structured() any {
	if len(a.Structured) == 0 {
		return nil
	}
	var v any
	// The answer's bytes are this call's alone: strings may point into them.
	if rest, err := sjson.Parse(a.Structured, &v, sjson.ZeroCopy); err != nil || len(bytes.TrimSpace(rest)) != 0 {
		return nil
	}
	return v
}

// text is the answer's first text content, decoded (what resultText reads
// from an SDK result).
func (a *toolAnswer) text() ([]byte, error) {
	var content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if len(a.Content) > 0 {
		if err := json.Unmarshal(a.Content, &content); err != nil {
			return nil, fmt.Errorf("the result's content is not a list of contents: %v", err)
		}
	}
	for _, c := range content {
		if c.Type == "text" {
			return []byte(c.Text), nil
		}
	}
	if len(a.Structured) > 0 && string(a.Structured) != "null" {
		return a.Structured, nil
	}
	return nil, fmt.Errorf("the result has no text content")
}

// rpcAnswer is a JSON-RPC response to one call.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result *toolAnswer     `json:"result"`
	Error  *rpcError       `json:"error"`
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// callParams is a tools/call request's params.
type callParams struct {
	Meta      mcp.Meta       `json:"_meta,omitempty"`
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// call makes one tools/call with the per-call timeout, meta its _meta, and
// says what became of it as callTool does for the SDK's client.
func (h *httpCalls) call(ctx context.Context, timeout time.Duration, tool string, args map[string]any, meta mcp.Meta) (*toolAnswer, Class, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	a, class, err := h.roundTrip(cctx, tool, args, meta)
	switch {
	case err != nil:
		if ctx.Err() != nil {
			return nil, ClassCancelled, err // the run was stopped, not the server
		}
		if errors.Is(err, context.DeadlineExceeded) && cctx.Err() != nil {
			return nil, ClassTimeout, fmt.Errorf("no answer within %s", timeout)
		}
		return nil, class, err
	case a.IsError:
		return a, ClassToolError, nil
	}
	return a, ClassOK, nil
}

func (h *httpCalls) roundTrip(ctx context.Context, tool string, args map[string]any, meta mcp.Meta) (*toolAnswer, Class, error) {
	h.nextID++
	id := strconv.AppendInt(nil, h.nextID, 10)
	params, err := json.Marshal(callParams{Meta: meta, Name: tool, Arguments: args})
	if err != nil {
		return nil, ClassProtocol, fmt.Errorf("encoding the call: %v", err)
	}
	body := make([]byte, 0, len(params)+64)
	body = append(body, `{"jsonrpc":"2.0","id":`...)
	body = append(body, id...)
	body = append(body, `,"method":"tools/call","params":`...)
	body = append(body, params...)
	body = append(body, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, ClassTransport, err
	}
	// One map, its values shared by every call of the session: nothing on
	// the way (the transport, the bearer round tripper, which clones) writes
	// to a request's header values.
	req.Header = http.Header{
		"Content-Type":         jsonContentType,
		"Accept":               acceptAnswers,
		"Mcp-Protocol-Version": h.protocolHeader,
		"Mcp-Session-Id":       h.sessionHeader,
	}
	if h.protocol >= standardHeadersVersion {
		req.Header["Mcp-Method"] = toolsCallMethod
		req.Header["Mcp-Name"] = []string{tool}
	}
	resp, err := h.hc.Do(req)
	if err != nil {
		return nil, ClassTransport, fmt.Errorf("calling %q: %w", tool, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		class, err := statusError(resp)
		return nil, class, fmt.Errorf("calling %q: %w", tool, err)
	}
	var raw []byte
	ct := resp.Header.Get("Content-Type")
	if strings.HasPrefix(ct, "text/event-stream") {
		raw, err = sseAnswer(resp.Body, id)
	} else {
		raw, err = h.readBody(resp)
	}
	if err != nil {
		return nil, ClassTransport, fmt.Errorf("calling %q: reading the answer: %w", tool, err)
	}
	var ans rpcAnswer
	// The body is this call's alone: strings may point into it.
	if rest, err := sjson.Parse(raw, &ans, sjson.ZeroCopy); err != nil || len(rest) != 0 {
		if err == nil {
			err = errors.New("trailing data after the answer")
		}
		return nil, ClassMalformed, fmt.Errorf("calling %q: the answer does not decode: %v: %s", tool, err, clip(raw))
	}
	if !bytes.Equal(ans.ID, id) {
		return nil, ClassProtocol, fmt.Errorf("calling %q: the answer is to request %s, not %s", tool, ans.ID, id)
	}
	if ans.Error != nil {
		return nil, ClassProtocol, fmt.Errorf("calling %q: %w", tool, ans.Error)
	}
	if ans.Result == nil {
		return nil, ClassMalformed, fmt.Errorf("calling %q: the answer has neither a result nor an error: %s", tool, clip(raw))
	}
	return ans.Result, ClassOK, nil
}

// readBody reads a JSON answer in one allocation of its size: herd serve
// sends it chunked, with no length, and io.ReadAll would grow a buffer
// through several allocations to get there. The copy is the caller's to
// keep (decoded strings point into it); the read buffer is the session's.
func (h *httpCalls) readBody(resp *http.Response) ([]byte, error) {
	if n := resp.ContentLength; n > 0 && n <= DefaultMaxResponseBytes {
		b := make([]byte, n)
		if _, err := io.ReadFull(resp.Body, b); err != nil {
			return nil, err
		}
		return b, nil
	}
	h.buf.Reset()
	if _, err := h.buf.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	b := bytes.Clone(h.buf.Bytes())
	if h.buf.Cap() > 1<<20 {
		h.buf = bytes.Buffer{} // a rare large answer: let it go
	}
	return b, nil
}

// sseAnswer reads an SSE stream until the event that answers request id
// (notifications and other messages may come first; they are not the
// swarm's to read) and returns its data.
func sseAnswer(r io.Reader, id []byte) ([]byte, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4<<10), DefaultMaxResponseBytes+1)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) > 0 {
			if v, ok := bytes.CutPrefix(line, []byte("data:")); ok {
				data = append(data, bytes.TrimPrefix(v, []byte(" "))...)
				data = append(data, '\n')
			}
			continue
		}
		// A blank line ends an event.
		if len(data) > 0 {
			var head struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(data, &head) == nil && bytes.Equal(head.ID, id) {
				return data, nil
			}
			data = nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(data) > 0 {
		return data, nil // the last event, unterminated
	}
	return nil, errors.New("the event stream ended without an answer")
}

// statusError says what an HTTP error status means for a call, as the
// SDK's client does: a busy or failing server (429, 502, 503, 504) and a
// session the server no longer knows (404) are the transport's; a JSON-RPC
// error in the body of another status is the server refusing the request.
func statusError(resp *http.Response) (Class, error) {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	switch resp.StatusCode {
	case http.StatusNotFound:
		return ClassTransport, fmt.Errorf("the server no longer knows session %s (404 Not Found)", resp.Request.Header.Get("Mcp-Session-Id"))
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return ClassTransport, fmt.Errorf("the server answered %s", resp.Status)
	}
	var ans rpcAnswer
	if json.Unmarshal(b, &ans) == nil && ans.Error != nil {
		return ClassProtocol, fmt.Errorf("%w (%s)", ans.Error, resp.Status)
	}
	msg := clip(b)
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	return ClassTransport, fmt.Errorf("the server answered %s: %s", resp.Status, msg)
}
