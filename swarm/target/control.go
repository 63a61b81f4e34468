package target

import (
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// metaResetAnswer is a result's _meta[control.ResetMeta], read.
type metaResetAnswer struct {
	Goal, Target string
	Journal      []servedCall
}

// readMetaReset reads the answer to the reset asked in a call's _meta from
// the result's _meta (as the SDK decoded it), checking it is that reset's.
func readMetaReset(meta mcp.Meta, asked *control.Reset) (metaResetAnswer, error) {
	var a metaResetAnswer
	v, ok := meta[control.ResetMeta]
	if !ok {
		return a, fmt.Errorf("the answer has no _meta %q (is this herd too old to reset with a call?)", control.ResetMeta)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return a, fmt.Errorf("_meta %q: want an object, got %T", control.ResetMeta, v)
	}
	str := func(name string) string { s, _ := m[name].(string); return s }
	seed, key := str("seed"), str("key")
	if seed != strconv.FormatUint(asked.Seed, 10) || key != strconv.FormatUint(asked.Key, 10) {
		return a, fmt.Errorf("_meta %q: asked for seed %d key %d, got seed %q key %q", control.ResetMeta, asked.Seed, asked.Key, seed, key)
	}
	a.Goal, a.Target = str("goal"), str("target")
	if asked.ReturnJournal {
		j, ok := m["journal"]
		if !ok {
			return a, fmt.Errorf("_meta %q: no journal in the answer", control.ResetMeta)
		}
		var err error
		if a.Journal, err = callsFromMeta(j); err != nil {
			return a, fmt.Errorf("_meta %q: %w", control.ResetMeta, err)
		}
	}
	return a, nil
}
