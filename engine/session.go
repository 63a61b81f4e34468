package engine

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"cel.dev/cel-go/common/types"
)

// Base is a world's seeded state: immutable after Seed returns, shared by
// every session built on it.
type Base struct {
	world *World
	seed  uint64
	recs  [][]*Record      // per type, in id order
	index []map[string]int // per type: id → position in recs
	// goal candidates are computed once per base (they only read it).
	candidates [][]*Record
	// search holds, per search tool (by tool index), the lower-cased text
	// of every seeded record's search fields in one string: a search is a
	// few strings.Index calls over it instead of a case fold per record.
	search []*searchBlob
	// hits caches searchHits: agents of one goal search for the same few
	// strings, and a search over every seeded record's text was a sixth
	// of an episode's time. A search's hits depend only on the base, the
	// tool and the query, so the cache cannot change a result. It is
	// bounded (hitCacheMax entries, queries of hitCacheQueryMax bytes at
	// most) so that a client sending endless distinct queries to herd
	// serve cannot grow it without limit; past the bound searches are
	// simply not cached.
	hits     sync.Map // hitKey → bitset
	hitCount atomic.Int64
}

const (
	hitCacheMax      = 16384
	hitCacheQueryMax = 256
)

type hitKey struct {
	tool  int
	query string
}

// searchBlob is the seeded records' search text, back to back. Record i's
// text is blob[starts[i]:starts[i+1]-1]; each ends with a separator byte
// that no query contains, so a match never spans two records.
type searchBlob struct {
	blob   string
	starts []int
}

const searchSep = '\x01'

func newSearchBlob(texts []string) *searchBlob {
	var b strings.Builder
	starts := make([]int, len(texts)+1)
	for i, t := range texts {
		starts[i] = b.Len()
		b.WriteString(t)
		b.WriteByte(searchSep)
	}
	starts[len(texts)] = b.Len()
	return &searchBlob{blob: b.String(), starts: starts}
}

// bitset marks seeded record positions.
type bitset []uint64

func (b bitset) has(i int) bool { return i/64 < len(b) && b[i/64]&(1<<(i%64)) != 0 }

// searchHits marks the seeded records whose search text contains query.
// The bitset is shared between callers: it must not be modified.
func (b *Base) searchHits(t *Tool, query string) bitset {
	if len(query) > hitCacheQueryMax {
		return b.scanHits(t, query)
	}
	k := hitKey{t.index, query}
	if h, ok := b.hits.Load(k); ok {
		return h.(bitset)
	}
	h := b.scanHits(t, query)
	if b.hitCount.Load() < hitCacheMax {
		if _, loaded := b.hits.LoadOrStore(k, h); !loaded {
			b.hitCount.Add(1)
		}
	}
	return h
}

// scanHits is searchHits without the cache.
func (b *Base) scanHits(t *Tool, query string) bitset {
	sb := b.search[t.index]
	hits := make(bitset, (len(sb.starts)+63)/64)
	if strings.IndexByte(query, searchSep) >= 0 {
		return hits
	}
	from := 0
	for {
		i := strings.Index(sb.blob[from:], query)
		if i < 0 {
			return hits
		}
		pos := from + i
		// The record holding pos: the last start ≤ pos.
		r := sort.SearchInts(sb.starts, pos+1) - 1
		hits[r/64] |= 1 << (r % 64)
		from = sb.starts[r+1] // next record
		if from >= len(sb.blob) {
			return hits
		}
	}
}

// World returns the world this base was seeded from.
func (b *Base) World() *World { return b.world }

// Seed returns the seed this base was built with.
func (b *Base) Seed() uint64 { return b.seed }

// Records returns the seeded records of a type, in id order. The slice must
// not be modified.
func (b *Base) Records(t *RecordType) []*Record { return b.recs[t.index] }

// recKey addresses a record across types.
type recKey struct {
	t  int
	id string
}

// Session is one agent's (or one MCP client's) view of the world: the base
// plus a copy-on-write overlay of its own changes. A session is used by one
// goroutine at a time.
type Session struct {
	base    *Base
	key     uint64
	profile *FaultProfile

	overlay map[recKey]*Record // nil value: deleted
	created []recKey           // creation order
	nextID  []int              // per type; nil until the first create

	calls      uint64
	elapsed    time.Duration
	journal    []JournalEntry // a ring once jlimit is reached: the oldest entry is at jhead
	jhead      int
	jlimit     int // entries kept at most; 0: all
	totals     JournalTotals
	watch      watchedTarget // a goal's target, for its last state (see lastState)
	idem       map[string]Result
	retryUntil map[int]time.Duration // tool index → virtual time the rate limit lifts
	ignoredRA  int
	errCounts  map[string]int

	// shared marks the maps and counters this session shares with a fork
	// (or its parent): the first write to one copies it. Slices need no
	// mark: Fork clips their capacity, so an append copies by itself.
	shared sharedParts

	concurrent pendingConcurrent // spec nil: no other actor
	// watched is the target of the attempt begun in the session;
	// watchedRead says a successful call returned it (read_target): the
	// end state cannot show what a read returned, so the session notes it.
	watched     *Record
	watchedRead bool
	recView     recordsView
	act         activation // scratch for one call's rule evaluations

	// The quiet faults' books (quietfaults.go): the writes a stale read
	// may undo, what stale reads showed, and the writes that put a stale
	// value back over a newer one.
	history         []historyEntry
	staleSeen       map[recKey]*Record
	staleOverwrites int
	// The goal's call patterns (minefields, refusals) and their counts.
	patterns       []*CallPattern
	minefieldCalls int
	refusals       int
	refusalCommits int
}

// sharedParts is a set of Session parts shared after a Fork.
type sharedParts uint8

const (
	sharedOverlay sharedParts = 1 << iota
	sharedNextID
	sharedIdem
	sharedRetry
	sharedErrCounts
	sharedJournal // only once the journal is a full ring, written in place
	sharedStale
	sharedAll = sharedOverlay | sharedNextID | sharedIdem | sharedRetry | sharedErrCounts | sharedJournal | sharedStale
)

// own makes the session's copy of part its own before a write to it.
func (s *Session) own(part sharedParts) {
	if s.shared&part == 0 {
		return
	}
	s.shared &^= part
	switch part {
	case sharedOverlay:
		s.overlay = maps.Clone(s.overlay)
	case sharedNextID:
		s.nextID = slices.Clone(s.nextID)
	case sharedIdem:
		s.idem = maps.Clone(s.idem)
	case sharedRetry:
		s.retryUntil = maps.Clone(s.retryUntil)
	case sharedErrCounts:
		s.errCounts = maps.Clone(s.errCounts)
	case sharedJournal:
		s.journal = slices.Clone(s.journal)
	case sharedStale:
		s.staleSeen = maps.Clone(s.staleSeen)
	}
}

// NewSession starts a session on the base with no changes. key separates
// the session's dice from every other session's; profile may be nil (no
// faults). It costs one allocation: the overlay is made on the first write.
func (b *Base) NewSession(key uint64, profile *FaultProfile) *Session {
	s := &Session{base: b, key: key, profile: profile}
	s.recView.s = s
	return s
}

// Key returns the session key.
func (s *Session) Key() uint64 { return s.key }

// Base returns the base the session was started on.
func (s *Session) Base() *Base { return s.base }

// World returns the session's world.
func (s *Session) World() *World { return s.base.world }

// Profile returns the active fault profile (nil: none).
func (s *Session) Profile() *FaultProfile { return s.profile }

// SetProfile switches the fault profile for later calls.
func (s *Session) SetProfile(p *FaultProfile) { s.profile = p }

// Fork returns an independent copy of the session under a new key: same
// changes, clock, call count, journal and idempotency keys. Nothing is
// copied up front: the two sessions share their overlay and bookkeeping
// until one of them writes, which then copies the part it writes (records
// themselves are immutable and always shared). So a fork costs one
// allocation, however many changes the session has made.
func (s *Session) Fork(key uint64) *Session {
	s.shared = sharedAll
	s.created = slices.Clip(s.created)
	s.journal = slices.Clip(s.journal)
	s.history = slices.Clip(s.history)
	f := new(Session)
	*f = *s
	f.key = key
	f.recView.s = f
	f.act = activation{}
	return f
}

// Reset drops every change, the journal and the clock: the session is as
// new, on the same base and key (and journal limit).
func (s *Session) Reset() {
	*s = Session{base: s.base, key: s.key, profile: s.profile, jlimit: s.jlimit}
	s.recView.s = s
}

// Now returns the session's virtual time.
func (s *Session) Now() time.Time { return s.base.world.Epoch.Add(s.elapsed) }

// Elapsed returns virtual time since the session started.
func (s *Session) Elapsed() time.Duration { return s.elapsed }

// Sleep advances the virtual clock (an agent waiting out a retry-after).
func (s *Session) Sleep(d time.Duration) {
	if d > 0 {
		s.elapsed += d
	}
}

// Calls returns how many calls the session has made.
func (s *Session) Calls() int { return int(s.calls) }

// Get returns the current record of type t with id, or nil.
func (s *Session) Get(t *RecordType, id string) *Record {
	if s.overlay != nil {
		if r, ok := s.overlay[recKey{t.index, id}]; ok {
			return r
		}
	}
	if i, ok := s.base.index[t.index][id]; ok {
		return s.base.recs[t.index][i]
	}
	return nil
}

// Lookup is Get by type name; nil when either is unknown.
func (s *Session) Lookup(typeName, id string) *Record {
	t := s.base.world.Type(typeName)
	if t == nil {
		return nil
	}
	return s.Get(t, id)
}

// List returns the current records of a type in id order.
func (s *Session) List(t *RecordType) []*Record {
	base := s.base.recs[t.index]
	if s.overlay == nil {
		return base
	}
	out := make([]*Record, 0, len(base)+len(s.created))
	for _, r := range base {
		if o, ok := s.overlay[recKey{t.index, r.id}]; ok {
			if o != nil {
				out = append(out, o)
			}
			continue
		}
		out = append(out, r)
	}
	for _, k := range s.created {
		if k.t != t.index {
			continue
		}
		if r := s.overlay[k]; r != nil {
			out = append(out, r)
		}
	}
	return out
}

// each calls fn for every current record of t in id order, without
// building a slice.
func (s *Session) each(t *RecordType, fn func(*Record) bool) {
	s.eachIndexed(t, func(_ int, r *Record) bool { return fn(r) })
}

// eachIndexed is each with the record's position in the base (-1 for a
// record the base does not have, or whose base version was overwritten).
// The overlay is usually a handful of records, so rather than look every
// base record up in it, the overlay's ids of this type are collected first
// and only those are compared.
func (s *Session) eachIndexed(t *RecordType, fn func(int, *Record) bool) {
	var mine [8]recKey
	touched := mine[:0]
	useMap := false
	for k := range s.overlay {
		if k.t != t.index {
			continue
		}
		if len(touched) == len(mine) {
			useMap = true
			break
		}
		touched = append(touched, k)
	}
	for i, r := range s.base.recs[t.index] {
		switch {
		case useMap:
			if o, ok := s.overlay[recKey{t.index, r.id}]; ok {
				if o == nil {
					continue
				}
				r, i = o, -1
			}
		case len(touched) > 0:
			for _, k := range touched {
				if k.id == r.id {
					if r = s.overlay[k]; r == nil {
						break
					}
					i = -1
					break
				}
			}
			if r == nil {
				continue
			}
		}
		if !fn(i, r) {
			return
		}
	}
	for _, k := range s.created {
		if k.t != t.index {
			continue
		}
		if r := s.overlay[k]; r != nil && !fn(-1, r) {
			return
		}
	}
}

// put stores a record in the overlay.
func (s *Session) put(r *Record) {
	s.own(sharedOverlay)
	if s.overlay == nil {
		s.overlay = make(map[recKey]*Record, 4)
	}
	s.overlay[recKey{r.typ.index, r.id}] = r
}

// remove deletes a record in the overlay.
func (s *Session) remove(t *RecordType, id string) {
	s.own(sharedOverlay)
	if s.overlay == nil {
		s.overlay = make(map[recKey]*Record, 4)
	}
	s.overlay[recKey{t.index, id}] = nil
}

// addCreated notes a record created in this session, in creation order.
func (s *Session) addCreated(k recKey) { s.created = append(s.created, k) }

// newID returns the next id of type t in this session.
func (s *Session) newID(t *RecordType) string {
	s.own(sharedNextID)
	if s.nextID == nil {
		s.nextID = s.base.firstIDs()
	}
	n := s.nextID[t.index]
	s.nextID[t.index]++
	return formatID(t.idField.Prefix, n)
}

// newRecordWithDefaults makes a new record of t with the session's next
// id and every field default: what a create tool or a create effect starts
// from before its arguments and rules fill it in.
func (s *Session) newRecordWithDefaults(t *RecordType) *Record {
	r := newRecord(t, s.newID(t))
	r.vals[t.idField.Index] = types.String(r.id)
	for _, f := range t.Fields {
		if f.defaultVal != nil {
			r.vals[f.Index] = f.defaultVal
		}
	}
	return r
}

// firstIDs are the id counters of a session that has created nothing: per
// type, the number after the seeded records'.
func (b *Base) firstIDs() []int {
	next := make([]int, len(b.recs))
	for i, recs := range b.recs {
		next[i] = len(recs) + 1
	}
	return next
}

// Change is one record a session created, updated or deleted.
type Change struct {
	Type   *RecordType
	ID     string
	Before *Record // nil when created
	After  *Record // nil when deleted
}

// Changes lists what the session changed relative to its base, by type then
// id. A record written back to its base value is not a change; a record
// created and then deleted in the same session is not either.
func (s *Session) Changes() []Change {
	if len(s.overlay) == 0 {
		return nil
	}
	out := make([]Change, 0, len(s.overlay))
	for k, r := range s.overlay {
		t := s.base.world.Types[k.t]
		var before *Record
		if i, ok := s.base.index[k.t][k.id]; ok {
			before = s.base.recs[k.t][i]
		}
		switch {
		case before == nil && r == nil:
			continue
		case before != nil && r != nil && before.sameAs(r):
			continue
		}
		out = append(out, Change{Type: t, ID: k.id, Before: before, After: r})
	}
	slices.SortFunc(out, func(a, b Change) int {
		if a.Type.index != b.Type.index {
			return a.Type.index - b.Type.index
		}
		if idLess(a.ID, b.ID) {
			return -1
		}
		if a.ID == b.ID {
			return 0
		}
		return 1
	})
	return out
}

// idLess orders ids as seeding numbered them: shorter first, then bytes.
func idLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// ErrorCounts returns how many times each error code was returned to the
// session's caller (faults included).
func (s *Session) ErrorCounts() map[string]int { return s.errCounts }

// IgnoredRetryAfter counts calls made to a tool before its retry-after passed.
func (s *Session) IgnoredRetryAfter() int { return s.ignoredRA }
