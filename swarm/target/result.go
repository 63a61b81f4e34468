package target

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

// resultText is the JSON a tool result carries: its first text content, or
// its structured content when it has no text.
func resultText(r *mcp.CallToolResult) ([]byte, error) {
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			return []byte(tc.Text), nil
		}
	}
	if r.StructuredContent != nil {
		return json.Marshal(r.StructuredContent)
	}
	return nil, fmt.Errorf("the result has no text content")
}

// wireError is a herd tool error as an agent reads it (docs/serve.md).
type wireError struct {
	Error *struct {
		Code         string `json:"code"`
		Message      string `json:"message"`
		RetryAfterMS int64  `json:"retry_after_ms"`
	} `json:"error"`
}

// toResult turns a herd world's tool result into the engine.Result an
// in-process call of t gives, as far as a client can see it: the error's
// code, message and retry-after, or the record(s) it returned, decoded into
// the world's record types. What a client cannot see — whether a fault was
// injected, whether a timed-out write committed, whether an idempotency key
// replayed — is left for Settle to read from the journal. An error means
// the answer is not what a herd world answers.
func toResult(w *engine.World, t *engine.Tool, r *mcp.CallToolResult) (engine.Result, error) {
	res := engine.Result{Tool: t.Name}
	text, err := resultText(r)
	if err != nil {
		return res, err
	}
	if r.IsError {
		var we wireError
		if err := json.Unmarshal(text, &we); err != nil || we.Error == nil || we.Error.Code == "" {
			return res, fmt.Errorf("tool error is not {\"error\": {\"code\", \"message\"}}: %s", clip(text))
		}
		res.Err = &engine.ToolError{Code: we.Error.Code, Message: we.Error.Message,
			RetryAfter: time.Duration(we.Error.RetryAfterMS) * time.Millisecond}
		return res, nil
	}
	res.Committed = t.Writes()
	if t.Kind == engine.KindList {
		var list struct {
			Items []json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(text, &list); err != nil || list.Items == nil {
			return res, fmt.Errorf("list result is not {\"items\": [...]}: %s", clip(text))
		}
		res.Records = make([]*engine.Record, len(list.Items))
		for i, raw := range list.Items {
			rec, err := decodeRecord(w, t.Record, raw)
			if err != nil {
				return res, fmt.Errorf("item %d: %w", i, err)
			}
			res.Records[i] = rec
		}
		return res, nil
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(text, &top); err != nil {
		return res, fmt.Errorf("result is not a JSON object: %s", clip(text))
	}
	if len(top) == 1 {
		if raw, ok := top["deleted"]; ok {
			if err := json.Unmarshal(raw, &res.Deleted); err == nil && res.Deleted != "" {
				return res, nil
			}
		}
		if _, ok := top["ok"]; ok {
			return res, nil
		}
	}
	rec, err := decodeRecord(w, t.Record, text)
	if err != nil {
		return res, err
	}
	res.Record = rec
	return res, nil
}

// decodeRecord decodes a record of the type whose fields and id prefix it
// has: the tool's own type first (nearly always), then the others (a custom
// tool may answer with a record its effect created).
func decodeRecord(w *engine.World, first *engine.RecordType, raw []byte) (*engine.Record, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("record is not a JSON object: %s", clip(raw))
	}
	fits := func(rt *engine.RecordType) bool {
		if rt == nil {
			return false
		}
		for k := range m {
			if rt.Field(k) == nil {
				return false
			}
		}
		for _, f := range rt.Fields {
			if f.Type == engine.FieldID {
				var id string
				return json.Unmarshal(m[f.Name], &id) == nil && strings.HasPrefix(id, f.Prefix)
			}
		}
		return false
	}
	rt := first
	if !fits(rt) {
		rt = nil
		for _, t := range w.Types {
			if fits(t) {
				rt = t
				break
			}
		}
	}
	if rt == nil {
		return nil, fmt.Errorf("not a record of world %s: %s", w.Name, clip(raw))
	}
	rec, err := rt.DecodeRecord(raw)
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", rt.Name, err)
	}
	return rec, nil
}

// clip shortens a payload for an error message.
func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
