package engine

import (
	"fmt"
	"time"

	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
)

// The quiet faults (silent_noop, stale_read, partial_write, schema_drift)
// need more than an error code: which tools they can happen to, the
// session's recent history (a stale read answers from it) and a way to
// change what a result shows without changing what the engine keeps.

// notApplicable says why a quiet fault kind cannot happen to tool t ("" when
// it can): a read cannot be a silent no-op, a tool that writes one record
// cannot write half of it, a drifting field must be one the tool returns.
func notApplicable(kind string, t *Tool, field string) string {
	switch kind {
	case FaultSilentNoop:
		if !t.Writes() {
			return "silent_noop applies only to tools that write"
		}
	case FaultPartialWrite:
		if writesRecords(t) < 2 {
			return "partial_write applies only to tools whose effects write two or more records"
		}
	case FaultStaleRead:
		if t.Kind != KindGet && t.Kind != KindList {
			return "stale_read applies only to get and list tools"
		}
	case FaultSchemaDrift:
		if t.Record == nil || t.Kind == KindDelete {
			return "schema_drift applies only to tools that return records"
		}
		if t.Record.Field(field) == nil {
			return fmt.Sprintf("schema_drift: %s returns %s records, which have no field %q", t.Name, t.Record.Name, field)
		}
	}
	return ""
}

// writesRecords counts the records a successful call of t writes, as far as
// its kind and effects say: the target (its own kind, or set effects on it)
// plus every record a create, update or delete effect names.
func writesRecords(t *Tool) int {
	n := 0
	target := t.Kind == KindCreate || t.Kind == KindUpdate || t.Kind == KindDelete
	for _, ef := range t.effects {
		switch {
		case ef.kind == effectSet, ef.self:
			target = true
		default:
			n++
		}
	}
	if target {
		n++
	}
	return n
}

// quietKind reports whether kind is one of the quiet fault kinds.
func quietKind(kind string) bool {
	switch kind {
	case FaultSilentNoop, FaultStaleRead, FaultPartialWrite, FaultSchemaDrift:
		return true
	}
	return false
}

// applicableTo returns the faults of f that can happen to t: f itself when
// all can, else a copy without the others (a profile's default applies a
// stale read to the reads and a silent no-op to the writes).
func (f *ToolFaults) applicableTo(t *Tool) *ToolFaults {
	keep := f.Errors[:0:0]
	dropped := false
	for _, e := range f.Errors {
		if quietKind(e.Kind) && notApplicable(e.Kind, t, e.Field) != "" {
			dropped = true
			continue
		}
		keep = append(keep, e)
	}
	if !dropped {
		return f
	}
	c := &ToolFaults{Latency: f.Latency, Errors: keep, timeout: f.timeout}
	c.finish()
	return c
}

// historyEntry is one record's state before a write changed it: what a
// stale read answers with while the write is younger than the lag.
type historyEntry struct {
	at     time.Duration // virtual time of the write
	key    recKey
	before *Record // nil: the record did not exist
}

// keepsHistory reports whether the session must remember its writes: only
// a profile with a stale read needs them.
func (s *Session) keepsHistory() bool { return s.profile != nil && s.profile.staleReads }

// noteWrite remembers the state a write is about to replace.
func (s *Session) noteWrite(k recKey) {
	if !s.keepsHistory() {
		return
	}
	s.history = append(s.history, historyEntry{at: s.elapsed, key: k, before: s.Get(s.base.world.Types[k.t], k.id)})
}

// staleView is the session as it was lag ago: a copy whose overlay has
// every younger write undone. It is only read, then dropped.
func (s *Session) staleView(lag time.Duration) *Session {
	cutoff := s.elapsed - lag
	first := len(s.history)
	for first > 0 && s.history[first-1].at > cutoff {
		first--
	}
	v := new(Session)
	*v = *s
	v.recView.s = v
	v.act = activation{}
	if first == len(s.history) {
		return v
	}
	v.overlay = make(map[recKey]*Record, len(s.overlay))
	for k, r := range s.overlay {
		v.overlay[k] = r
	}
	// The oldest younger write's before is the state at the cutoff.
	for i := len(s.history) - 1; i >= first; i-- {
		h := s.history[i]
		v.overlay[h.key] = h.before
	}
	v.shared = 0
	return v
}

// noteReads remembers what a stale read showed of each record, when it
// differs from the current state; a fresh read of the record forgets it.
// A later write that puts a shown stale value back over a newer one is a
// stale overwrite.
func (s *Session) noteReads(res *Result, stale bool) {
	if !stale && len(s.staleSeen) == 0 {
		return
	}
	note := func(r *Record) {
		if r == nil {
			return
		}
		k := recKey{r.typ.index, r.id}
		if !stale {
			if _, ok := s.staleSeen[k]; ok {
				s.own(sharedStale)
				delete(s.staleSeen, k)
			}
			return
		}
		if cur := s.Get(r.typ, r.id); cur != nil && !cur.sameAs(r) {
			s.own(sharedStale)
			if s.staleSeen == nil {
				s.staleSeen = map[recKey]*Record{}
			}
			s.staleSeen[k] = r
		}
	}
	note(res.Record)
	for _, r := range res.Records {
		note(r)
	}
}

// countStaleOverwrite checks a write about to replace cur with next: a field
// set to the value a stale read showed, over a current value that differs
// from it, is a stale overwrite (the newer value is lost).
func (s *Session) countStaleOverwrite(k recKey, next *Record) {
	stale := s.staleSeen[k]
	if stale == nil || next == nil {
		return
	}
	cur := s.Get(next.typ, next.id)
	if cur == nil {
		return
	}
	for i, v := range next.vals {
		sv, cv := stale.vals[i], cur.vals[i]
		if v == nil || sv == nil || cv == nil {
			continue
		}
		if v.Equal(sv) == types.True && cv.Equal(sv) != types.True {
			s.staleOverwrites++
			break
		}
	}
	s.own(sharedStale)
	delete(s.staleSeen, k)
}

// StaleOverwrites counts writes that put back a value a stale read had
// shown, over a newer one.
func (s *Session) StaleOverwrites() int { return s.staleOverwrites }

// drift applies a schema_drift to what the result shows: the records it
// returns lose the field (the caller's Go view), and Value renames it.
func (res *Result) drift(fe *FaultError) {
	res.drifted = fe
	res.origRecord, res.origRecords = res.Record, res.Records
	strip := func(r *Record) *Record {
		if r == nil {
			return nil
		}
		f := r.typ.Field(fe.Field)
		if f == nil || r.vals[f.Index] == nil {
			return r
		}
		c := r.clone()
		c.vals[f.Index] = nil
		return c
	}
	res.Record = strip(res.Record)
	if res.Records != nil {
		out := make([]*Record, len(res.Records))
		for i, r := range res.Records {
			out[i] = strip(r)
		}
		res.Records = out
	}
}

// driftedMap is a record's JSON map as a drifted result shows it.
func (res *Result) driftedMap(orig *Record) map[string]any {
	m := orig.Map()
	fe := res.drifted
	if v, ok := m[fe.Field]; ok {
		delete(m, fe.Field)
		if fe.Rename != "" {
			m[fe.Rename] = v
		}
	}
	return m
}

// trueRecord is the record a result really carries (before any drift):
// what the engine's own books keep.
func (res *Result) trueRecord() *Record {
	if res.drifted != nil {
		return res.origRecord
	}
	return res.Record
}

// showsState reports whether the result's record is the record's state in
// the session: a silent no-op shows what was not written, a stale read
// what is no longer so.
func (res *Result) showsState() bool {
	return res.Fault != FaultSilentNoop && res.Fault != FaultStaleRead
}

// matchPatterns counts a call that matches a minefield pattern of the
// goal, and reports whether it matches a refusal pattern. av is nil when
// the arguments were refused: only patterns without a where match then.
func (s *Session) matchPatterns(t *Tool, av *argValues) (refusal bool) {
	for _, p := range s.patterns {
		if p.Tool != t {
			continue
		}
		if p.where != nil {
			if av == nil || s.watched == nil {
				continue
			}
			act := &activation{args: av, more: patternVars{target: s.watched}}
			ok, err := p.where.evalBool(act)
			if err != nil || !ok {
				continue // a pattern that cannot be judged marks nothing
			}
		}
		if p.Minefield {
			s.minefieldCalls++
		}
		refusal = refusal || p.Refusal
	}
	return refusal
}

// patternVars are the names a call pattern's where sees besides args.
type patternVars struct{ target *Record }

func (p patternVars) resolve(name string) ref.Val {
	if name == "target" {
		return p.target
	}
	return nil
}

// MinefieldCalls counts the calls that matched a minefield of the goal.
func (s *Session) MinefieldCalls() int { return s.minefieldCalls }
