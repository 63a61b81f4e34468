package target

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// servedCall is one call of a served session's journal: what a replay
// makes and what it checks the replayed call's answer against.
type servedCall struct {
	Tool      string         `json:"tool"`
	Args      map[string]any `json:"args"`
	AtMS      float64        `json:"at_ms"`
	OK        bool           `json:"ok"`
	Fault     string         `json:"fault"`
	Committed bool           `json:"committed"`
	Replayed  bool           `json:"replayed"`
	Error     *servedError   `json:"error"`
}

// servedError is the part of a journal call's error a replay checks.
type servedError struct {
	Code string `json:"code"`
}

// parseNDJSON reads a journal as GET …/journal answers it, a call a line.
func parseNDJSON(journal []byte) ([]servedCall, error) {
	var calls []servedCall
	sc := bufio.NewScanner(bytes.NewReader(journal))
	// A line is a call (its result included): start small, as a journal
	// read per episode would otherwise allocate 64 KB for a few lines.
	sc.Buffer(make([]byte, 0, 4<<10), control.MaxAnswer)
	for sc.Scan() {
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 {
			var c servedCall
			if err := json.Unmarshal(line, &c); err != nil {
				return nil, fmt.Errorf("line %d: %v", len(calls)+1, err)
			}
			calls = append(calls, c)
		}
	}
	return calls, sc.Err()
}

// decodeLines reads a journal as a reset's answer carries it, a call a
// JSON value.
func decodeLines(lines []json.RawMessage) ([]servedCall, error) {
	calls := make([]servedCall, len(lines))
	for i, line := range lines {
		if err := json.Unmarshal(line, &calls[i]); err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
	}
	return calls, nil
}

// callsFromMeta reads the journal of a reset answered in a result's _meta
// (control.MetaResetAnswer), as the SDK decoded it: already parsed, so it is
// read field by field instead of parsed again.
func callsFromMeta(v any) ([]servedCall, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("journal: want an array, got %T", v)
	}
	calls := make([]servedCall, len(list))
	for i, item := range list {
		m, ok := item.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("journal call %d: want an object, got %T", i+1, item)
		}
		c := &calls[i]
		var okTool, okAt bool
		c.Tool, okTool = m["tool"].(string)
		c.AtMS, okAt = m["at_ms"].(float64)
		if !okTool || !okAt {
			return nil, fmt.Errorf("journal call %d: want \"tool\" and \"at_ms\", got %v", i+1, m)
		}
		c.Args, _ = m["args"].(map[string]any)
		c.OK, _ = m["ok"].(bool)
		c.Fault, _ = m["fault"].(string)
		c.Committed, _ = m["committed"].(bool)
		c.Replayed, _ = m["replayed"].(bool)
		if e, ok := m["error"].(map[string]any); ok {
			code, _ := e["code"].(string)
			c.Error = &servedError{code}
		}
	}
	return calls, nil
}

// replayCalls runs a served session's calls on s (docs/serve.md: wait
// until the call's at_ms, then call). Arguments are as the server decoded
// them, so each call sees what the served call saw; each replayed answer
// must be the served one (success, error code, fault, commit).
func replayCalls(s *engine.Session, calls []servedCall) (int, error) {
	for i, c := range calls {
		args := c.Args
		if args == nil {
			args = map[string]any{}
		}
		at := time.Duration(math.Round(c.AtMS*1e3)) * time.Microsecond
		s.Sleep(at - s.Elapsed())
		r := s.Call(c.Tool, args)
		code := ""
		if c.Error != nil {
			code = c.Error.Code
		}
		rcode := ""
		if r.Err != nil {
			rcode = r.Err.Code
		}
		if r.OK() != c.OK || rcode != code || r.Fault != c.Fault || r.Committed != c.Committed || r.Replayed != c.Replayed {
			return i + 1, fmt.Errorf("call %d (%s): served ok=%v %s fault=%q, replayed in-process ok=%v %s fault=%q (is the server running the same world file?)",
				i+1, c.Tool, c.OK, code, c.Fault, r.OK(), rcode, r.Fault)
		}
	}
	return len(calls), nil
}
