package serve

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/herd-sh/herd/internal/jsonstr"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// encodedToolResult is a tool result that encodes itself in one pass: the
// JSON bytes of the answer (what toolResult made: the same bytes are the
// text content and the structured content) are written once quoted as the
// text and once as they are, into one buffer of about the final size.
//
// Why: profiled under a swarm's mix of tools (lists and searches answer
// 20 records, about 10 KB), the go-sdk's encoding of a CallToolResult was
// the largest part of herd serve's CPU per call: json.Marshal of the
// result marshals the text content through its own MarshalJSON, escaping
// the 10 KB as a string, then validates and compacts that output again,
// and compacts the structured content (a json.RawMessage) again, each step
// in a new buffer — before the JSON-RPC layer compacts the whole result
// twice more (once for the result, once inside the response), which no
// server of the SDK can avoid. Here the first three passes are one.
//
// The bytes are exactly the SDK's: MarshalJSON falls back to the SDK's own
// encoding whenever the result is not of the one shape herd serve makes,
// and TestEncodedToolResultIsTheSDKs checks the two byte for byte on every
// tool of every built-in world, errors and reset answers included.
type encodedToolResult struct {
	*mcp.CallToolResult
	body answerJSON // the structured content as toolResult set it
}

// answerJSON is a tool result's JSON as toolResult makes it, the
// structured content of every result herd serve sends: json.Marshal's
// output (engine.Result.AppendValueJSON is byte for byte that), so compact,
// with <, >, &, U+2028 and U+2029 already escaped — what the SDK's
// compaction of a json.RawMessage leaves as it is. Encoded by the SDK it is
// a json.RawMessage; its own type marks the results encodeToolResults may
// encode itself.
type answerJSON []byte

// MarshalJSON returns the bytes, as json.RawMessage does.
func (a answerJSON) MarshalJSON() ([]byte, error) {
	if a == nil {
		return []byte("null"), nil
	}
	return a, nil
}

// encodeToolResults is the receiving middleware that hands the JSON-RPC
// layer an encodedToolResult for every tool result.
func encodeToolResults(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if r, ok := res.(*mcp.CallToolResult); ok && r != nil && err == nil {
			if body, ok := r.StructuredContent.(answerJSON); ok {
				return &encodedToolResult{CallToolResult: r, body: body}, nil
			}
		}
		return res, err
	}
}

// MarshalJSON writes the result as the SDK's (*mcp.CallToolResult).MarshalJSON
// does, byte for byte.
func (e *encodedToolResult) MarshalJSON() ([]byte, error) {
	r := e.CallToolResult
	if !e.oneEncoding() {
		return r.MarshalJSON()
	}
	b := make([]byte, 0, 2*len(e.body)+len(e.body)/8+256)
	b = append(b, '{')
	if len(r.Meta) > 0 {
		meta, err := json.Marshal(r.Meta)
		if err != nil {
			return nil, err
		}
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
		b = append(b, ',')
	}
	b = append(b, `"content":[{"type":"text","text":`...)
	b = jsonstr.Append(b, e.body)
	b = append(b, `}],"structuredContent":`...)
	b = append(b, e.body...)
	if r.IsError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// oneEncoding reports whether the result is of the shape MarshalJSON
// writes itself: one plain text content whose text is the structured
// content's bytes, and nothing the SDK adds on its own (the fields of
// another protocol version: a result type, input requests, request state,
// the server's identity in _meta — the SDK sets those after every
// middleware). The structured content is checked again for what the SDK's
// compaction would escape, so that a mistake in making it costs speed,
// not bytes.
func (e *encodedToolResult) oneEncoding() bool {
	r := e.CallToolResult
	if len(r.Content) != 1 || r.RequestState != "" || r.InputRequests != nil || r.NeedsInput() {
		return false
	}
	if sc, ok := r.StructuredContent.(answerJSON); !ok || len(sc) != len(e.body) || len(sc) == 0 || &sc[0] != &e.body[0] {
		return false // changed since the middleware saw it
	}
	if _, ok := r.Meta[mcp.MetaKeyServerInfo]; ok {
		return false // a request of the per-request protocol: the SDK also set a result type
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok || tc.Meta != nil || tc.Annotations != nil || tc.Text != string(e.body) {
		return false
	}
	return bytes.IndexAny(e.body, "<>&") < 0 && !bytes.Contains(e.body, lineSep) && !bytes.Contains(e.body, paraSep)
}

var (
	lineSep = []byte("\u2028")
	paraSep = []byte("\u2029")
)
