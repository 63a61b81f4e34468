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

// toResult turns a herd world's tool result into the engine.Result an
// in-process call of t gives, as far as a client can see it: the error's
// code, message and retry-after, or the record(s) it returned, decoded into
// the world's record types. What a client cannot see — whether a fault was
// injected, whether a timed-out write committed, whether an idempotency key
// replayed — is left for Settle to read from the journal. An error means
// the answer is not what a herd world answers.
//
// It reads the structured content the SDK has already decoded, not the
// text it would parse again (herd serve sends the same JSON as both);
// should that fail — an integer past 2^53, which the SDK decoded as a float
// — it parses the text, keeping numbers exact.
func toResult(w *engine.World, t *engine.Tool, r *mcp.CallToolResult) (engine.Result, error) {
	return decodeResult(w, t, r.IsError, r.StructuredContent, func() ([]byte, error) { return resultText(r) })
}

// answerResult is toResult on an answer read by httpCalls: the result of
// an answer the session had before, from cache, else decoded (and kept).
func answerResult(w *engine.World, t *engine.Tool, a *toolAnswer, cache *answerCache) (engine.Result, error) {
	if res, ok := cache.get(t, a.IsError, a.Structured); ok {
		return res, nil
	}
	res, err := decodeResult(w, t, a.IsError, a.structured(), a.text)
	if err == nil {
		cache.put(t, a.IsError, a.Structured, res)
	}
	return res, err
}

// decodeResult is toResult on a result's parts: isError, its structured
// content as decoded, and its text, read only if that content does not do.
func decodeResult(w *engine.World, t *engine.Tool, isError bool, structured any, resultText func() ([]byte, error)) (engine.Result, error) {
	if sc, ok := structured.(map[string]any); ok {
		if res, err := resultFromJSON(w, t, isError, sc); err == nil {
			return res, nil
		}
	}
	text, err := resultText()
	if err != nil {
		return engine.Result{Tool: t.Name}, err
	}
	var v map[string]any
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return engine.Result{Tool: t.Name}, fmt.Errorf("result is not a JSON object: %s", clip(text))
	}
	res, err := resultFromJSON(w, t, isError, v)
	if err != nil {
		return res, fmt.Errorf("%w: %s", err, clip(text))
	}
	return res, nil
}

// resultFromJSON is toResult on the result's JSON object, decoded.
func resultFromJSON(w *engine.World, t *engine.Tool, isError bool, v map[string]any) (engine.Result, error) {
	res := engine.Result{Tool: t.Name}
	if isError {
		e, _ := v["error"].(map[string]any)
		code, _ := e["code"].(string)
		if code == "" {
			return res, fmt.Errorf(`tool error is not {"error": {"code", "message"}}`)
		}
		msg, _ := e["message"].(string)
		retry, _ := number(e["retry_after_ms"])
		res.Err = &engine.ToolError{Code: code, Message: msg, RetryAfter: time.Duration(retry * float64(time.Millisecond))}
		return res, nil
	}
	res.Committed = t.Writes()
	if t.Kind == engine.KindList {
		items, ok := v["items"].([]any)
		if !ok {
			return res, fmt.Errorf(`list result is not {"items": [...]}`)
		}
		res.Records = make([]*engine.Record, len(items))
		for i, item := range items {
			m, ok := item.(map[string]any)
			if !ok {
				return res, fmt.Errorf("item %d is not a JSON object", i)
			}
			rec, err := decodeRecord(w, t.Record, m)
			if err != nil {
				return res, fmt.Errorf("item %d: %w", i, err)
			}
			res.Records[i] = rec
		}
		return res, nil
	}
	if len(v) == 1 {
		if id, ok := v["deleted"].(string); ok && id != "" {
			res.Deleted = id
			return res, nil
		}
		if _, ok := v["ok"]; ok {
			return res, nil
		}
	}
	rec, err := decodeRecord(w, t.Record, v)
	if err != nil {
		return res, err
	}
	res.Record = rec
	return res, nil
}

// number reads a JSON number decoded with or without UseNumber.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// decodeRecord makes a record of the type whose fields and id prefix m
// has: the tool's own type first (nearly always), then the others (a
// custom tool may answer with a record its effect created).
func decodeRecord(w *engine.World, first *engine.RecordType, m map[string]any) (*engine.Record, error) {
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
				id, ok := m[f.Name].(string)
				return ok && strings.HasPrefix(id, f.Prefix)
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
	if rt == nil && first != nil {
		// A field renamed upstream (the world's schema_drift fault) is a
		// key the type does not have: the record is still the tool's if its
		// id says so, and the renamed field reads as missing, as the engine
		// shows it to an in-process agent.
		known := make(map[string]any, len(m))
		for k, v := range m {
			if first.Field(k) != nil {
				known[k] = v
			}
		}
		if len(known) < len(m) && fitsKnown(first, known) {
			rt, m = first, known
		}
	}
	if rt == nil {
		return nil, fmt.Errorf("not a record of world %s", w.Name)
	}
	rec, err := rt.RecordFromJSON(m)
	if err != nil {
		return nil, fmt.Errorf("%s record: %w", rt.Name, err)
	}
	return rec, nil
}

// fitsKnown reports whether m, its unknown keys dropped, has rt's id.
func fitsKnown(rt *engine.RecordType, m map[string]any) bool {
	for _, f := range rt.Fields {
		if f.Type == engine.FieldID {
			id, ok := m[f.Name].(string)
			return ok && strings.HasPrefix(id, f.Prefix)
		}
	}
	return false
}

// clip shortens a payload for an error message.
func clip(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}
