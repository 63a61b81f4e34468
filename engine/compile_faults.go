package engine

import (
	"math"
	"time"
)

// Fault profiles: per-tool errors, latency, timeouts.

func (c *compiler) compileFaults() {
	w := c.w
	none := &FaultProfile{Name: NoFaults, Builtin: true, byTool: make([]*ToolFaults, len(w.Tools))}
	w.Profiles = append(w.Profiles, none)
	w.profileByName[NoFaults] = none
	for _, e := range c.spec.Faults {
		c.checkName("fault profile", e.Name, e.Pos)
		if e.Name == NoFaults {
			c.errorf(e.Pos, "faults: %q is built in (no faults) and cannot be redefined", NoFaults)
			continue
		}
		p := &FaultProfile{Name: e.Name, byTool: make([]*ToolFaults, len(w.Tools))}
		var def *ToolFaults
		if e.Value.Default != nil {
			def = c.compileToolFaults("faults "+e.Name+": default", *e.Value.Default, nil)
		}
		for i, t := range w.Tools {
			if def != nil {
				p.byTool[i] = def.applicableTo(t)
			}
		}
		if def != nil {
			c.checkDefaultDrift(e.Name, *e.Value.Default)
		}
		for _, te := range e.Value.Tools {
			t := w.toolByName[te.Name]
			if t == nil {
				c.errorf(te.Pos, "faults %s: unknown tool %q", e.Name, te.Name)
				continue
			}
			tf := c.compileToolFaults("faults "+e.Name+": "+te.Name, te.Value, t)
			if tf != nil && def != nil && te.Value.Latency == nil {
				tf.Latency = def.Latency
			}
			p.byTool[t.index] = tf
		}
		p.noteQuiet()
		w.Profiles = append(w.Profiles, p)
		w.profileByName[p.Name] = p
	}
	for _, name := range []string{"realistic", "hostile"} {
		if w.profileByName[name] == nil {
			p := builtinProfile(w, name)
			w.Profiles = append(w.Profiles, p)
			w.profileByName[name] = p
		}
	}
}

// compileToolFaults compiles one tool's faults (t nil: a profile's default,
// whose quiet kinds apply to the tools they fit).
func (c *compiler) compileToolFaults(where string, s toolFaultSpec, t *Tool) *ToolFaults {
	tf := &ToolFaults{}
	if s.Latency != nil {
		l := s.Latency
		tf.Latency.Median = c.duration(l.Median, where+": latency median")
		tf.Latency.P99 = c.duration(l.P99, where+": latency p99")
		tf.Latency.Fixed = c.duration(l.Fixed, where+": latency fixed")
		tf.Latency.Min = c.duration(l.Min, where+": latency min")
		tf.Latency.Max = c.duration(l.Max, where+": latency max")
		kinds := 0
		if l.Median.Src != "" || l.P99.Src != "" {
			kinds++
			if tf.Latency.Median <= 0 || tf.Latency.P99 < tf.Latency.Median {
				c.errorf(l.Pos, "%s: latency needs median > 0 and p99 ≥ median", where)
			}
		}
		if l.Fixed.Src != "" {
			kinds++
		}
		if l.Min.Src != "" || l.Max.Src != "" {
			kinds++
			if tf.Latency.Max < tf.Latency.Min || tf.Latency.Max <= 0 {
				c.errorf(l.Pos, "%s: latency needs max > 0 and max ≥ min", where)
			}
		}
		if kinds != 1 {
			c.errorf(l.Pos, "%s: latency is one of {median, p99}, {fixed} or {min, max}", where)
		}
	}
	tf.timeout = c.duration(s.Timeout, where+": timeout")
	sum := 0.0
	for _, es := range s.Errors {
		if !es.Kind.IsSet {
			c.errorf(es.Pos, "%s: fault needs a \"kind\"", where)
			continue
		}
		c.checkName("fault kind", es.Kind.Raw, es.Kind.Pos)
		if !es.P.IsSet {
			c.errorf(es.Pos, "%s: fault %s needs a probability \"p\"", where, es.Kind.Raw)
			continue
		}
		p := c.number(es.P, where+": p")
		if p == nil {
			continue
		}
		if *p < 0 {
			c.errorf(es.P.Pos, "%s: probability of %s is negative (%v)", where, es.Kind.Raw, *p)
			continue
		}
		if *p > 1 {
			c.errorf(es.P.Pos, "%s: probability of %s is above 1 (%v)", where, es.Kind.Raw, *p)
			continue
		}
		sum += *p
		fe := FaultError{Kind: es.Kind.Raw, P: *p, Message: es.Message}
		fe.RetryAfter = c.duration(es.RetryAfter, where+": retry_after")
		if es.Kind.Raw == CodeRateLimited && fe.RetryAfter == 0 {
			fe.RetryAfter = time.Second
		}
		if es.RetryAfter.Src != "" && es.Kind.Raw != CodeRateLimited {
			c.errorf(es.RetryAfter.Pos, "%s: retry_after applies only to rate_limited", where)
		}
		if !c.quietFault(where, es, &fe, t) {
			continue
		}
		tf.Errors = append(tf.Errors, fe)
	}
	if sum > 1+1e-9 {
		c.errorf(s.Pos, "%s: fault probabilities sum to %v, more than 1", where, math.Round(sum*1e6)/1e6)
	}
	tf.finish()
	return tf
}

// quietFault checks a quiet fault's own keys (lag, field, rename) and,
// for a tool's own faults, that the kind can happen to the tool. false:
// the fault is refused.
func (c *compiler) quietFault(where string, es faultErrorSpec, fe *FaultError, t *Tool) bool {
	kind := es.Kind.Raw
	ok := true
	if es.Lag.Src != "" && kind != FaultStaleRead {
		c.errorf(es.Lag.Pos, "%s: lag applies only to stale_read", where)
		ok = false
	}
	if (es.Field.IsSet || es.Rename.IsSet) && kind != FaultSchemaDrift {
		pos := es.Field.Pos
		if !es.Field.IsSet {
			pos = es.Rename.Pos
		}
		c.errorf(pos, "%s: field and rename apply only to schema_drift", where)
		ok = false
	}
	switch kind {
	case FaultStaleRead:
		fe.Lag = c.duration(es.Lag, where+": lag")
		if fe.Lag <= 0 {
			c.errorf(es.Pos, "%s: stale_read needs a lag > 0 (how far behind the answer is, such as 2s)", where)
			ok = false
		}
	case FaultSchemaDrift:
		fe.Field, fe.Rename = es.Field.Raw, es.Rename.Raw
		if fe.Field == "" {
			c.errorf(es.Pos, "%s: schema_drift needs a \"field\" (the result field renamed or left out)", where)
			ok = false
		}
		if es.Rename.IsSet {
			c.checkName("renamed field", fe.Rename, es.Rename.Pos)
			if fe.Rename == fe.Field {
				c.errorf(es.Rename.Pos, "%s: schema_drift renames %s to itself", where, fe.Field)
				ok = false
			}
		}
	}
	if ok && t != nil && quietKind(kind) {
		if why := notApplicable(kind, t, fe.Field); why != "" {
			c.errorf(es.Kind.Pos, "%s: %s", where, why)
			ok = false
		}
	}
	return ok
}

// checkDefaultDrift refuses a default schema_drift that no tool of the
// world can show: its field is on none of the records the tools return.
func (c *compiler) checkDefaultDrift(profile string, s toolFaultSpec) {
	for _, es := range s.Errors {
		if es.Kind.Raw != FaultSchemaDrift || !es.Field.IsSet {
			continue
		}
		fits := false
		for _, t := range c.w.Tools {
			fits = fits || notApplicable(FaultSchemaDrift, t, es.Field.Raw) == ""
		}
		if !fits {
			c.errorf(es.Field.Pos, "faults %s: default: schema_drift: no tool returns records with a field %q", profile, es.Field.Raw)
		}
	}
}

func (c *compiler) duration(d Duration, what string) time.Duration {
	if d.Src == "" {
		return 0
	}
	v, err := time.ParseDuration(d.Src)
	if err != nil || v < 0 {
		c.errorf(d.Pos, "%s: %q is not a duration such as 40ms or 2s", what, d.Src)
		return 0
	}
	if v > time.Hour {
		c.errorf(d.Pos, "%s: %s is longer than an hour", what, d.Src)
		return 0
	}
	return v
}
