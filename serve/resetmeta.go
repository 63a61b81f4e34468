package serve

import (
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// parseMetaReset reads _meta[control.ResetMeta] as the SDK decoded it (a JSON
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

// metaAnswer is the result's _meta[control.ResetMeta] for a reset's answer; old is
// the session the reset replaced.
func metaAnswer(ans resetAnswer, old *engine.Session, withJournal bool) control.MetaResetAnswer {
	a := control.MetaResetAnswer{
		Session: ans.ID,
		Seed:    strconv.FormatUint(ans.Seed, 10),
		Key:     strconv.FormatUint(ans.Key, 10),
		Goal:    ans.Goal,
		Target:  ans.Target,
	}
	if withJournal {
		a.Journal = old.JournalCalls()
		a.JournalDropped = old.JournalTotals().Dropped
	}
	return a
}
