package personas

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// WritePack writes personas as a pack file that ParsePack reads back to
// the same personas: every trait spelled out (no like:), each persona's
// weight when it has one, so that the pack alone sets a run's mix.
// comment lines, when given, head the file.
func WritePack(w io.Writer, name, description string, comment []string, ps []*Persona) error {
	var b strings.Builder
	for _, c := range comment {
		fmt.Fprintf(&b, "# %s\n", c)
	}
	fmt.Fprintf(&b, "pack: %s\n", strconv.Quote(name))
	if description != "" {
		fmt.Fprintf(&b, "description: %s\n", strconv.Quote(description))
	}
	b.WriteString("personas:\n")
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range ps {
		t := p.Traits
		fmt.Fprintf(&b, "  %s:\n", p.Name)
		if p.Description != "" {
			fmt.Fprintf(&b, "    description: %s\n", strconv.Quote(p.Description))
		}
		if p.Weight > 0 {
			fmt.Fprintf(&b, "    weight: %s\n", num(p.Weight))
		}
		for _, kv := range []struct {
			k string
			v float64
		}{{"attention", t.Attention}, {"caution", t.Caution}, {"literalness", t.Literalness}, {"noise", t.Noise},
			{"verify", t.Verify}, {"explore", t.Explore}, {"hostility", t.Hostility}, {"credulity", t.Credulity},
			{"order_bias", t.OrderBias}} {
			fmt.Fprintf(&b, "    %s: %s\n", kv.k, num(kv.v))
		}
		fmt.Fprintf(&b, "    patience: %d\n", t.Patience)
		r := t.Retry
		fmt.Fprintf(&b, "    retry: {mode: %s, max_attempts: %d, idempotency_keys: %t, ignore_key_advice: %t, honor_retry_after: %t}\n",
			r.Mode, r.MaxAttempts, r.IdempotencyKeys, r.IgnoreKeyAdvice, r.HonorRetryAfter)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
