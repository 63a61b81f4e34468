package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"runtime/debug"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// mcpTool describes a world tool as MCP lists it: the chosen variant's
// description, the params' JSON Schema and the annotations.
func (s *Server) mcpTool(t *engine.Tool) *mcp.Tool {
	a := t.Annotations
	destructive, openWorld := a.Destructive, a.OpenWorld
	return &mcp.Tool{
		Name:        t.Name,
		Description: t.Description(s.variant),
		InputSchema: t.InputSchema(),
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    a.ReadOnly,
			DestructiveHint: &destructive,
			IdempotentHint:  a.Idempotent,
			OpenWorldHint:   &openWorld,
		},
	}
}

// toolHandler calls the engine for one tool.
//
// It uses the SDK's raw handler, not the typed AddTool, on purpose: the
// typed path validates arguments against the schema itself and refuses bad
// ones before the engine sees them. Then a refused call would not be in the
// journal, would not count in the session's error tallies, and would not
// take a call index — every later fault die would shift, and a served
// session would stop matching the same calls run in-process. The engine's
// own checks are exactly the schema's (engine.Tool.InputSchema is built from
// the same params), and its invalid_argument errors name the param.
func (s *Server) toolHandler(t *engine.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := decodeArguments(req.Params.Arguments)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tool %s: %v", t.Name, err)}
		}
		ws, ok := ctx.Value(worldSessionKey{}).(*worldSession)
		if !ok {
			var err error
			if ws, err = s.session(ctx, req); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
			}
		}
		var (
			res   engine.Result
			reset *control.MetaResetAnswer
		)
		if v, ok := req.Params.Meta[control.ResetMeta]; ok {
			if res, reset, err = s.resetAndCall(ws, v, t.Name, args); err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("tool %s: _meta %q: %v", t.Name, control.ResetMeta, err)}
			}
		} else {
			res = ws.call(t.Name, args, s.now())
		}
		s.calls.Add(1)
		if err := s.wait(ctx, res.Latency); err != nil {
			return nil, err
		}
		ws.markAnswered(s.now())
		if res.Err != nil {
			s.log.Debug("call failed", "session", ws.id, "tool", t.Name, "code", res.Err.Code, "fault", res.Fault)
		}
		s.tellClient(ctx, req, ws, &res)
		out := toolResult(&res)
		if reset != nil {
			out.Meta = mcp.Meta{control.ResetMeta: reset}
		}
		return out, nil
	}
}

// resetAndCall resets ws as a call's _meta[control.ResetMeta] asks and makes the
// call on the session as reset, nothing between the two.
func (s *Server) resetAndCall(ws *worldSession, v any, tool string, args map[string]any) (engine.Result, *control.MetaResetAnswer, error) {
	body, err := parseMetaReset(v)
	if err != nil {
		return engine.Result{}, nil, err
	}
	p, err := s.planReset(body)
	if err != nil {
		return engine.Result{}, nil, err
	}
	done, res, err := ws.resetAndCall(p, s.now(), tool, args)
	if err != nil {
		return engine.Result{}, nil, err
	}
	a := metaAnswer(s.answerReset(ws, done), done.old, body.ReturnJournal)
	return res, &a, nil
}

// decodeArguments reads a call's arguments: absent, null or a JSON object.
// Anything else is a malformed request, not a tool error: no call happened.
func decodeArguments(raw json.RawMessage) (map[string]any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("arguments must be a JSON object, got %s", jsonKindOf(raw[0]))
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, fmt.Errorf("arguments are not valid JSON: %v", err)
	}
	return args, nil
}

func jsonKindOf(first byte) string {
	switch {
	case first == '[':
		return "an array"
	case first == '"':
		return "a string"
	case first == 't' || first == 'f':
		return "a boolean"
	default:
		return "a number"
	}
}

// wait sleeps out a call's latency for real, capped by MaxFaultWait. It
// returns early when the request is cancelled (an error: the client is gone)
// or the server is closing (no error: answer now).
func (s *Server) wait(ctx context.Context, d time.Duration) error {
	if s.maxWait < 0 || d <= 0 {
		return nil
	}
	d = min(d, s.maxWait)
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-s.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// toolError is the JSON an agent sees when a call fails: the code to branch
// on, a message to read, and when to retry for rate limits.
type toolError struct {
	Error toolErrorBody `json:"error"`
}

type toolErrorBody struct {
	Code         string `json:"code"`
	Message      string `json:"message"`
	RetryAfterMS int64  `json:"retry_after_ms,omitempty"`
}

// toolResult turns an engine result into an MCP tool result: the value (or
// the error) as JSON text, and the same JSON as structured content.
func toolResult(res *engine.Result) *mcp.CallToolResult {
	var (
		body    []byte
		err     error
		isError = res.Err != nil
	)
	if isError {
		e := toolErrorBody{Code: res.Err.Code, Message: res.Err.Message}
		if ra := res.Err.RetryAfter; ra > 0 {
			e.RetryAfterMS = int64(math.Ceil(float64(ra) / float64(time.Millisecond)))
		}
		body, err = json.Marshal(toolError{Error: e})
	} else {
		// The bytes of json.Marshal(res.Value()), without its maps.
		body, err = res.AppendValueJSON(make([]byte, 0, 1024))
	}
	if err != nil {
		// Records hold only JSON-ready values; this is a bug, but the agent
		// still gets a result it can read.
		isError = true
		body, _ = json.Marshal(toolError{Error: toolErrorBody{Code: "internal", Message: "result could not be encoded: " + err.Error()}})
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
		StructuredContent: answerJSON(body), // a json.RawMessage to the SDK; see encodedToolResult
		IsError:           isError,
	}
}

// ContainPanics is receiving middleware that turns a panic in a handler
// into an internal error for that one request, logged with its stack:
// a bug met by one request must not end every client's session. herd mcp
// uses it too.
func ContainPanics(log *slog.Logger) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (res mcp.Result, err error) {
			defer func() {
				if v := recover(); v != nil {
					log.Error("handler panicked; request failed, server goes on", "method", method, "panic", v, "stack", string(debug.Stack()))
					res, err = nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("internal error handling %s", method)}
				}
			}()
			return next(ctx, method, req)
		}
	}
}

// worldSessionKey carries a request's world session from trackSessions to
// the tool handler.
type worldSessionKey struct{}

// trackSessions finds (or, at initialize, creates) the request's world
// session, so the control plane lists a session before its first call (and
// a session over the limit is refused before it starts), and brackets the
// request for the idle timeout and eviction: a session with a request in
// flight is not idle.
func (s *Server) trackSessions(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		ws, err := s.session(ctx, req)
		if err != nil {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
		}
		if method == "logging/setLevel" {
			ws.noteLogLevel(req)
		}
		ws.begin(s.now())
		defer func() { ws.done(s.now()) }()
		return next(context.WithValue(ctx, worldSessionKey{}, ws), method, req)
	}
}
