package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// JournalEntry is one call as the session saw it.
type JournalEntry struct {
	Seq    int
	Tool   string
	Args   map[string]any
	At     time.Duration // virtual time since the session started, when the call began
	Result Result
}

// Journal returns the calls the session's journal holds, in order: every
// call, or with a journal limit (SetJournalLimit) the latest ones. The slice
// must not be modified.
func (s *Session) Journal() []JournalEntry {
	if s.jhead == 0 {
		return s.journal
	}
	// A ring that has wrapped: the oldest entry is at jhead.
	out := make([]JournalEntry, 0, len(s.journal))
	out = append(out, s.journal[s.jhead:]...)
	return append(out, s.journal[:s.jhead]...)
}

// eachEntry calls fn for every entry the journal holds, oldest first,
// without building a slice.
func (s *Session) eachEntry(fn func(*JournalEntry) error) error {
	n := len(s.journal)
	for i := range n {
		if err := fn(&s.journal[(s.jhead+i)%n]); err != nil {
			return err
		}
	}
	return nil
}

// JournalTotals counts every call recorded since the session started (or
// was reset or restored), whether or not its journal entry is still held:
// what a long-lived session's books say once its journal keeps only the
// latest calls.
type JournalTotals struct {
	Calls     int `json:"calls"`     // calls recorded
	Kept      int `json:"kept"`      // entries the journal holds
	Dropped   int `json:"dropped"`   // the oldest entries the journal limit let go
	Errors    int `json:"errors"`    // calls that failed (faults included)
	Faults    int `json:"faults"`    // calls that met an injected fault
	Committed int `json:"committed"` // calls whose write took effect
}

// JournalTotals returns the session's running totals.
func (s *Session) JournalTotals() JournalTotals {
	t := s.totals
	t.Kept = len(s.journal)
	t.Calls = t.Kept + t.Dropped
	return t
}

// SetJournalLimit keeps at most n journal entries from now on, the latest
// ones, dropping the oldest as calls come (n ≤ 0: no limit, the default).
// A journal longer than n is cut to its last n entries at once. The totals
// still count every call.
//
// Why a ring: a session that is never reset (a served session a client keeps
// for hours) would otherwise hold every call it ever made, results included.
// In-process episodes are a handful of calls and keep the whole journal.
func (s *Session) SetJournalLimit(n int) {
	if n < 0 {
		n = 0
	}
	s.jlimit = n
	if n == 0 {
		if s.jhead != 0 {
			s.journal, s.jhead = s.Journal(), 0
			s.shared &^= sharedJournal
		}
		return
	}
	if len(s.journal) <= n && s.jhead == 0 {
		return
	}
	all := s.Journal()
	if len(all) > n {
		s.totals.Dropped += len(all) - n
		all = all[len(all)-n:]
	}
	// A fresh array: the old one (maybe shared with a fork) is let go.
	s.journal, s.jhead = append(make([]JournalEntry, 0, n), all...), 0
	s.shared &^= sharedJournal
}

// JournalLimit returns the journal limit (0: none).
func (s *Session) JournalLimit() int { return s.jlimit }

// appendJournal adds an entry, overwriting the oldest once the journal
// holds its limit.
func (s *Session) appendJournal(e JournalEntry) {
	r := &e.Result
	if r.Err != nil {
		s.totals.Errors++
	}
	if r.Fault != "" {
		s.totals.Faults++
	}
	if r.Committed {
		s.totals.Committed++
	}
	if s.jlimit == 0 || len(s.journal) < s.jlimit {
		s.journal = append(s.journal, e)
		return
	}
	// Full: overwrite in place, so the array is this session's own first
	// (after a Fork the two sessions share it).
	s.own(sharedJournal)
	s.journal[s.jhead] = e
	s.jhead = (s.jhead + 1) % len(s.journal)
	s.totals.Dropped++
}

// JournalCall is one journal line without the call's latency and result:
// what a driver that replays the calls needs, a fraction of the bytes (a
// served session's reset answers with them, docs/serve.md).
type JournalCall struct {
	Seq        int            `json:"seq"`
	Tool       string         `json:"tool"`
	Args       map[string]any `json:"args"`
	AtMS       float64        `json:"at_ms"`
	OK         bool           `json:"ok"`
	Fault      string         `json:"fault,omitempty"`
	Committed  bool           `json:"committed"`
	Replayed   bool           `json:"replayed,omitempty"`
	Error      *ToolError     `json:"error,omitempty"`
	RetryAfter float64        `json:"retry_after_ms,omitempty"`
}

// Call is the entry as a JournalCall.
func (e *JournalEntry) Call() JournalCall {
	c := JournalCall{Seq: e.Seq, Tool: e.Tool, Args: e.Args, AtMS: ms(e.At),
		OK: e.Result.OK(), Fault: e.Result.Fault, Committed: e.Result.Committed, Replayed: e.Result.Replayed, Error: e.Result.Err}
	if c.Args == nil {
		c.Args = map[string]any{}
	}
	if e.Result.Err != nil {
		c.RetryAfter = ms(e.Result.Err.RetryAfter)
	}
	return c
}

// JournalCalls returns the journal's calls without their results.
func (s *Session) JournalCalls() []JournalCall {
	calls := make([]JournalCall, 0, len(s.journal))
	_ = s.eachEntry(func(e *JournalEntry) error {
		calls = append(calls, e.Call())
		return nil
	})
	return calls
}

// journalLine is the NDJSON shape of one entry.
type journalLine struct {
	JournalCall
	LatencyMS float64 `json:"latency_ms"`
	Result    any     `json:"result,omitempty"`
}

// WriteJournal writes the journal as NDJSON, one call per line.
func (s *Session) WriteJournal(w io.Writer) error {
	enc := json.NewEncoder(w)
	return s.eachEntry(func(e *JournalEntry) error {
		l := journalLine{JournalCall: e.Call(), LatencyMS: ms(e.Result.Latency)}
		if e.Result.Err == nil {
			l.Result = e.Result.Value()
		}
		return enc.Encode(l)
	})
}

func ms(d time.Duration) float64 { return math.Round(float64(d)/1e3) / 1e3 }

// SnapshotVersion is the version of the snapshot format.
const SnapshotVersion = 1

// snapshot is the JSON shape of a session's state.
type snapshot struct {
	Version   int                          `json:"version"`
	World     string                       `json:"world"`
	WorldHash string                       `json:"world_hash"`
	Seed      uint64                       `json:"seed"`
	Key       uint64                       `json:"key"`
	Calls     uint64                       `json:"calls"`
	ElapsedNS int64                        `json:"elapsed_ns"`
	NextID    []int                        `json:"next_id,omitempty"`
	Records   map[string][]json.RawMessage `json:"records"`
}

// StateJSON returns the session's current records as canonical JSON: types
// in world order, records in id order, fields in declaration order. Equal
// states give equal bytes.
func (s *Session) StateJSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"world":`)
	b.WriteString(strconv.Quote(s.base.world.Name))
	b.WriteString(`,"seed":`)
	b.WriteString(strconv.FormatUint(s.base.seed, 10))
	b.WriteString(`,"records":{`)
	for i, t := range s.base.world.Types {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Quote(t.Name))
		b.WriteString(":[")
		first := true
		s.each(t, func(r *Record) bool {
			if !first {
				b.WriteByte(',')
			}
			first = false
			r.appendJSON(&b)
			return true
		})
		b.WriteByte(']')
	}
	b.WriteString("}}")
	return b.Bytes()
}

// ChangesJSON returns what the session changed relative to its base as
// canonical JSON: {"world", "seed", "changes": [{"type", "id", "before",
// "after"}, …]} in type then id order, a record as StateJSON writes it, a
// created record's before and a deleted one's after null. Two sessions of
// the same base hold equal states exactly when their ChangesJSON are equal
// bytes — and it costs what the session changed, not the whole world.
func (s *Session) ChangesJSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"world":`)
	b.WriteString(strconv.Quote(s.base.world.Name))
	b.WriteString(`,"seed":`)
	b.WriteString(strconv.FormatUint(s.base.seed, 10))
	b.WriteString(`,"changes":[`)
	record := func(r *Record) {
		if r == nil {
			b.WriteString("null")
			return
		}
		r.appendJSON(&b)
	}
	for i, c := range s.Changes() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":`)
		b.WriteString(strconv.Quote(c.Type.Name))
		b.WriteString(`,"id":`)
		b.WriteString(strconv.Quote(c.ID))
		b.WriteString(`,"before":`)
		record(c.Before)
		b.WriteString(`,"after":`)
		record(c.After)
		b.WriteByte('}')
	}
	b.WriteString("]}")
	return b.Bytes()
}

// Snapshot saves the session (state, clock, id counters) as versioned JSON.
func (s *Session) Snapshot() ([]byte, error) {
	snap := snapshot{Version: SnapshotVersion, World: s.base.world.Name, WorldHash: s.base.world.Hash,
		Seed: s.base.seed, Key: s.key, Calls: s.calls, ElapsedNS: int64(s.elapsed), NextID: s.nextID,
		Records: map[string][]json.RawMessage{}}
	for _, t := range s.base.world.Types {
		recs := []json.RawMessage{}
		s.each(t, func(r *Record) bool {
			j, _ := r.MarshalJSON()
			recs = append(recs, j)
			return true
		})
		snap.Records[t.Name] = recs
	}
	return json.Marshal(snap)
}

// Restore replaces the session's state with a snapshot taken from a session
// of the same world and seed: its records, id counters, virtual clock, call
// count and key. The journal, idempotency keys and rate limits are cleared.
// On error the session is unchanged.
func (s *Session) Restore(data []byte) error {
	var snap snapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&snap); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	w := s.base.world
	switch {
	case snap.Version != SnapshotVersion:
		return fmt.Errorf("snapshot: version %d, this herd reads version %d", snap.Version, SnapshotVersion)
	case snap.World != w.Name || (snap.WorldHash != "" && snap.WorldHash != w.Hash):
		return fmt.Errorf("snapshot: taken from world %s (%.12s), not %s (%.12s)", snap.World, snap.WorldHash, w.Name, w.Hash)
	case snap.Seed != s.base.seed:
		return fmt.Errorf("snapshot: taken at seed %d, this session's base has seed %d", snap.Seed, s.base.seed)
	case snap.ElapsedNS < 0:
		return fmt.Errorf("snapshot: elapsed_ns is %d; a session's clock never runs backwards", snap.ElapsedNS)
	}
	// The restored session takes the snapshot's key along with its call
	// count, so that its later dice are the ones the original session would
	// have thrown: a restore continues the same story.
	fresh := &Session{base: s.base, key: snap.Key, profile: s.profile, calls: snap.Calls, elapsed: time.Duration(snap.ElapsedNS), jlimit: s.jlimit}
	fresh.recView.s = fresh
	if len(snap.NextID) > 0 {
		if len(snap.NextID) != len(w.Types) {
			return fmt.Errorf("snapshot: next_id has %d entries for %d types", len(snap.NextID), len(w.Types))
		}
		fresh.nextID = append([]int(nil), snap.NextID...)
	}
	for name := range snap.Records {
		if w.Type(name) == nil {
			return fmt.Errorf("snapshot: unknown record type %q", name)
		}
	}
	for _, t := range w.Types {
		seen := map[string]bool{}
		for i, raw := range snap.Records[t.Name] {
			r, err := t.DecodeRecord(raw)
			if err != nil {
				return fmt.Errorf("snapshot: %s[%d]: %w", t.Name, i, err)
			}
			if seen[r.id] {
				return fmt.Errorf("snapshot: %s %s appears twice", t.Name, r.id)
			}
			seen[r.id] = true
			if bi, ok := s.base.index[t.index][r.id]; ok {
				if !s.base.recs[t.index][bi].sameAs(r) {
					fresh.put(r)
				}
				continue
			}
			fresh.put(r)
			fresh.addCreated(recKey{t.index, r.id})
		}
		for _, r := range s.base.recs[t.index] {
			if !seen[r.id] {
				fresh.remove(t, r.id)
			}
		}
	}
	// created must be in id order so listings match the snapshot's order.
	sort.SliceStable(fresh.created, func(i, j int) bool {
		a, b := fresh.created[i], fresh.created[j]
		if a.t != b.t {
			return a.t < b.t
		}
		return idLess(a.id, b.id)
	})
	if err := fresh.restoreNextID(len(snap.NextID) > 0); err != nil {
		return err
	}
	*s = *fresh
	s.recView.s = s
	return nil
}

// restoreNextID makes sure a create after the restore cannot number a
// record the snapshot already holds (and so overwrite it): next_id, when the
// snapshot gives it, must lie beyond every numbered id of its type; when it
// does not, it is derived from the ids the snapshot's records take.
func (s *Session) restoreNextID(given bool) error {
	b := s.base
	taken := make([]int, len(b.recs)) // per type: the highest id number in use
	for i, recs := range b.recs {
		taken[i] = len(recs) // seeding numbered them 1…count
	}
	for _, k := range s.created {
		if n, ok := idNumber(b.world.Types[k.t], k.id); ok && n > taken[k.t] {
			taken[k.t] = n
		}
	}
	for i, t := range b.world.Types {
		switch {
		case given && s.nextID[i] <= taken[i]:
			return fmt.Errorf("snapshot: next_id[%d] is %d, but %s ids up to %s are taken", i, s.nextID[i], t.Name, formatID(t.idField.Prefix, taken[i]))
		case !given && taken[i] > len(b.recs[i]):
			if s.nextID == nil {
				s.nextID = b.firstIDs()
			}
			s.nextID[i] = taken[i] + 1
		}
	}
	return nil
}

// idNumber is the number formatID gave id, if it is one of its ids.
func idNumber(t *RecordType, id string) (int, bool) {
	digits, ok := strings.CutPrefix(id, t.idField.Prefix)
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(digits)
	if err != nil || n < 1 || formatID(t.idField.Prefix, n) != id {
		return 0, false
	}
	return n, true
}

// BaseSnapshot saves the seeded base state (a fresh session's snapshot).
func (b *Base) Snapshot() ([]byte, error) { return b.NewSession(0, nil).Snapshot() }
