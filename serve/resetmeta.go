package serve

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/herd-sh/herd/engine"
)

// ResetMeta is the _meta key by which a tool call resets its session before
// it runs: the control plane's reset (POST /control/sessions/{id}/reset),
// carried by the episode's first call instead of a request of its own. A
// driver that starts thousands of short episodes a second (herd swarm over
// MCP) saves a round trip per episode; the call then runs on the reset
// session exactly as if the reset had come first (docs/serve.md).
const ResetMeta = "sh.herd/reset"

// MetaReset is what a call's _meta[ResetMeta] holds: the reset body, with
// the 64-bit numbers as decimal strings — JSON numbers lose them past 2^53
// in most decoders, the MCP SDKs' among them.
type MetaReset struct {
	Seed          string `json:"seed,omitempty"`
	Key           string `json:"key,omitempty"`
	Goal          string `json:"goal,omitempty"`
	Rnd           string `json:"rnd,omitempty"`
	ReturnJournal bool   `json:"return_journal,omitempty"`
}

// MetaResetAnswer is what the call's result carries in _meta[ResetMeta]:
// the session as reset, the goal's target, and, with return_journal, the
// calls of the journal the reset dropped — each a GET …/journal line
// without latency_ms and result, which a driver replaying the calls does
// not read and which are most of a journal's bytes.
type MetaResetAnswer struct {
	Session string               `json:"session"`
	Seed    string               `json:"seed"`
	Key     string               `json:"key"`
	Goal    string               `json:"goal,omitempty"`
	Target  string               `json:"target,omitempty"`
	Journal []engine.JournalCall `json:"journal,omitzero"`
}

// parseMetaReset reads _meta[ResetMeta] as the SDK decoded it (a JSON
// object into a map). Unknown fields are refused, like the control plane's.
func parseMetaReset(v any) (resetBody, error) {
	var body resetBody
	m, ok := v.(map[string]any)
	if !ok {
		return body, fmt.Errorf("want an object {\"seed\", \"key\", \"goal\", \"rnd\", \"return_journal\"}, got %T", v)
	}
	number := func(name string) (*uint64, error) {
		raw, ok := m[name]
		if !ok {
			return nil, nil
		}
		s, ok := raw.(string)
		if !ok {
			return nil, fmt.Errorf("%s: want an unsigned integer as a decimal string (\"42\"), got %T", name, raw)
		}
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: want an unsigned integer as a decimal string, got %q", name, s)
		}
		return &n, nil
	}
	for _, name := range slices.Sorted(maps.Keys(m)) { // the same error first every time
		raw := m[name]
		var err error
		switch name {
		case "seed":
			body.Seed, err = number(name)
		case "key":
			body.Key, err = number(name)
		case "rnd":
			body.Rnd, err = number(name)
		case "goal":
			s, ok := raw.(string)
			if !ok {
				err = fmt.Errorf("goal: want a string, got %T", raw)
			}
			body.Goal = s
		case "return_journal":
			b, ok := raw.(bool)
			if !ok {
				err = fmt.Errorf("return_journal: want true or false, got %T", raw)
			}
			body.ReturnJournal = b
		default:
			err = fmt.Errorf("unknown field %q", name)
		}
		if err != nil {
			return body, err
		}
	}
	return body, nil
}

// metaAnswer is the result's _meta[ResetMeta] for a reset's answer; old is
// the session the reset replaced.
func metaAnswer(ans resetAnswer, old *engine.Session, withJournal bool) MetaResetAnswer {
	a := MetaResetAnswer{
		Session: ans.ID,
		Seed:    strconv.FormatUint(ans.Seed, 10),
		Key:     strconv.FormatUint(ans.Key, 10),
		Goal:    ans.Goal,
		Target:  ans.Target,
	}
	if withJournal {
		a.Journal = old.JournalCalls()
	}
	return a
}
