package worlds_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

// shippedWorld is a built-in world seeded once, for the fuzzer.
type shippedWorld struct {
	name string
	w    *engine.World
	base *engine.Base
}

func shippedWorlds(tb testing.TB) []shippedWorld {
	tb.Helper()
	var out []shippedWorld
	for _, name := range worlds.Names() {
		w, err := worlds.Resolve(name)
		if err != nil {
			tb.Fatal(err)
		}
		b, err := w.Seed(w.DefaultSeed)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, shippedWorld{name, w, b})
	}
	return out
}

// FuzzToolArgs sends arbitrary JSON arguments to every tool of every
// shipped world through the engine's call path, decoded as herd serve
// decodes a tools/call's arguments. Whatever they hold, the call never
// panics; it answers with a tool error (a code and a message) or a result
// that encodes as JSON; a refused call changes nothing; the same call on
// a fresh session answers the same; the session still snapshots, restores
// to the same state, and checks its invariants without an error.
//
//	go test -run '^$' -fuzz=FuzzToolArgs -fuzzminimizetime=1s ./worlds
func FuzzToolArgs(f *testing.F) {
	ws := shippedWorlds(f)
	for wi, sw := range ws {
		for ti, t := range sw.w.Tools {
			args := map[string]any{}
			for _, p := range t.Params {
				switch p.Type {
				case engine.ParamStr:
					args[p.Name] = "x"
					if t.Record != nil && p.Name == t.Key {
						if recs := sw.base.Records(t.Record); len(recs) > 0 {
							args[p.Name] = recs[0].ID()
						}
					}
				case engine.ParamEnum:
					args[p.Name] = p.Values[0]
				case engine.ParamInt, engine.ParamFloat:
					args[p.Name] = 1
				case engine.ParamBool:
					args[p.Name] = true
				}
			}
			js, _ := json.Marshal(args)
			f.Add(uint8(wi), uint16(ti), js)
		}
	}
	for _, hostile := range []string{``, `null`, `{}`, `[]`, `"x"`, `{"id": {"$ne": ""}}`, `{"id": 1e308}`,
		`{"limit": -1, "query": ""}`, `{"amount": 1.5, "id": null}`, `{"":"", "\u0000": [[[]]]}`} {
		f.Add(uint8(0), uint16(0), []byte(hostile))
	}
	f.Fuzz(func(t *testing.T, world uint8, tool uint16, raw []byte) {
		sw := ws[int(world)%len(ws)]
		tl := sw.w.Tools[int(tool)%len(sw.w.Tools)]
		args, ok := decodeArguments(raw)
		if !ok {
			return // herd serve answers a protocol error: no call happens
		}
		for _, profile := range []*engine.FaultProfile{nil, sw.w.Profile("hostile")} {
			s := sw.base.NewSession(7, profile)
			before := s.StateJSON()
			res := s.Call(tl.Name, args)
			checkAnswer(t, sw.name, tl.Name, &res)
			if res.Err != nil && !res.Committed && !bytes.Equal(s.StateJSON(), before) {
				t.Fatalf("%s %s: a refused call (%s) changed the state", sw.name, tl.Name, res.Err.Code)
			}
			again := sw.base.NewSession(7, profile)
			res2 := again.Call(tl.Name, cloneArgs(t, raw))
			if !bytes.Equal(answerJSON(t, &res), answerJSON(t, &res2)) || !bytes.Equal(s.StateJSON(), again.StateJSON()) {
				t.Fatalf("%s %s: the same call on a fresh session answered differently:\n%s\n%s", sw.name, tl.Name, answerJSON(t, &res), answerJSON(t, &res2))
			}
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatalf("%s %s: snapshot after the call: %v", sw.name, tl.Name, err)
			}
			restored := sw.base.NewSession(8, profile)
			if err := restored.Restore(snap); err != nil {
				t.Fatalf("%s %s: restoring the snapshot: %v", sw.name, tl.Name, err)
			}
			if !bytes.Equal(restored.StateJSON(), s.StateJSON()) {
				t.Fatalf("%s %s: the restored session's state differs", sw.name, tl.Name)
			}
			if _, err := s.CheckInvariants(); err != nil {
				t.Fatalf("%s %s: checking invariants: %v", sw.name, tl.Name, err)
			}
		}
	})
}

// decodeArguments reads raw as herd serve reads a call's arguments:
// absent or null is no arguments, an object is the arguments, anything
// else is refused before any call.
func decodeArguments(raw []byte) (map[string]any, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return map[string]any{}, true
	}
	if raw[0] != '{' {
		return nil, false
	}
	var args map[string]any
	if err := json.Unmarshal(raw, &args); err != nil {
		return nil, false
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, true
}

// cloneArgs decodes raw again: the journal keeps the map a call was given.
func cloneArgs(t *testing.T, raw []byte) map[string]any {
	args, ok := decodeArguments(raw)
	if !ok {
		t.Fatal("arguments decoded once do not decode twice")
	}
	return args
}

// checkAnswer: a tool error has a code and a message; a result encodes
// as JSON.
func checkAnswer(t *testing.T, world, tool string, res *engine.Result) {
	t.Helper()
	if res.Err != nil {
		if res.Err.Code == "" || res.Err.Message == "" {
			t.Fatalf("%s %s: a tool error without a code or message: %+v", world, tool, res.Err)
		}
		return
	}
	if _, err := json.Marshal(res.Value()); err != nil {
		t.Fatalf("%s %s: the result does not encode as JSON: %v", world, tool, err)
	}
}

// answerJSON is what a client would be told: the error, or the result.
func answerJSON(t *testing.T, res *engine.Result) []byte {
	t.Helper()
	var v any = res.Value()
	if res.Err != nil {
		v = map[string]any{"code": res.Err.Code, "message": res.Err.Message, "retry_after": res.Err.RetryAfter.String()}
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding the answer: %v", err)
	}
	return b
}
