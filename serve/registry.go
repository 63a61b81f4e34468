package serve

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// errTooManySessions refuses a new MCP session when MaxSessions are live
// and none of them is idle.
var errTooManySessions = errors.New("too many sessions")

// Why a live session ended, as the control plane says it (SessionInfo.Ended).
const (
	endClosed  = "closed"  // the client ended it (DELETE, stdin closed) or the server stopped
	endIdle    = "idle"    // it sent nothing for the idle timeout
	endEvicted = "evicted" // the longest idle, closed to make room for a new session
)

// registry maps MCP sessions to world sessions and keeps what the control
// plane needs: the sessions in creation order, the current fault profile and
// one seeded base per seed.
//
// Lock order: registry.mu before worldSession.mu; calls take only the
// session's own lock.
type registry struct {
	bases        *baseCache
	max          int    // live MCP sessions at once
	seed         uint64 // the seed new sessions start on
	journalLimit int    // journal entries a live session keeps (0: all)
	endedLimit   int    // journal entries an ended session keeps
	log          *slog.Logger

	mu       sync.Mutex
	profile  *engine.FaultProfile
	byMCP    map[*mcp.ServerSession]*worldSession
	byID     map[string]*worldSession
	order    []*worldSession // creation order; ended ones are dropped oldest first
	nextKey  uint64
	live     int
	pending  int    // new HTTP sessions being set up (see reserve)
	evicted  int    // sessions closed to make room for a new one
	timedOut int    // sessions closed by the idle timeout
	ends     uint64 // sessions ended so far: numbers them in the order they ended
}

func newRegistry(bases *baseCache, seed uint64, profile *engine.FaultProfile, max, journalLimit int, log *slog.Logger) *registry {
	return &registry{
		bases: bases, max: max, seed: seed, profile: profile, journalLimit: journalLimit, log: log,
		byMCP: map[*mcp.ServerSession]*worldSession{},
		byID:  map[string]*worldSession{},
	}
}

// reservation is a slot held for a session an HTTP request is about to
// open. The session takes it over when it registers; otherwise the request
// gives it back when it ends.
type reservation struct{ taken bool }

type reservationKey struct{}

func withReservation(ctx context.Context, r *reservation) context.Context {
	return context.WithValue(ctx, reservationKey{}, r)
}

// reserve holds a slot for a session about to be opened, so that concurrent
// initialize requests cannot overshoot max. At max, the live HTTP session
// idle the longest is closed to make room (returned as evicted, for the
// caller to close outside the lock); nil when every live session has a
// request in flight.
func (r *registry) reserve(now time.Time) (res *reservation, evicted *worldSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live+r.pending >= r.max {
		if evicted = r.evictIdlestLocked(now); evicted == nil {
			return nil, nil
		}
	}
	r.pending++
	return &reservation{}, evicted
}

// release gives back a reservation no session took.
func (r *registry) release(res *reservation) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !res.taken {
		res.taken = true
		r.pending--
	}
}

// forMCP returns the world session of an MCP session, creating it on first
// use. name is used when the transport has no session id of its own. A
// session the server ended (idle, evicted) gets an error, not a new world.
func (r *registry) forMCP(ctx context.Context, ss *mcp.ServerSession, name string, now time.Time) (ws *worldSession, isNew bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ws := r.byMCP[ss]; ws != nil {
		if reason := ws.endReason(); reason != "" {
			return nil, false, fmt.Errorf("session %s has ended (%s)", ws.id, reason)
		}
		return ws, false, nil
	}
	// A session opened over HTTP holds a reservation (made before its
	// request reached the SDK) and takes it over; other transports (stdio,
	// in-memory) are one connection each and are checked here.
	res, _ := ctx.Value(reservationKey{}).(*reservation)
	if res != nil && !res.taken {
		res.taken = true
		r.pending--
	} else if r.live+r.pending >= r.max {
		return nil, false, errTooManySessions
	}
	base, err := r.bases.get(r.seed)
	if err != nil {
		return nil, false, err
	}
	r.nextKey++
	key := r.nextKey
	id := ss.ID()
	if id == "" {
		id = name
	}
	if id == "" || r.byID[id] != nil {
		id = "session-" + strconv.FormatUint(key, 10)
	}
	ws = newWorldSession(id, key, base.NewSession(key, r.profile), now, r.journalLimit)
	// Only a session opened over HTTP may be timed out or evicted: a stdio
	// (or in-memory) session is its client's own connection, idle or not.
	if res != nil {
		ws.ss = ss
	}
	r.byMCP[ss] = ws
	r.byID[id] = ws
	r.order = append(r.order, ws)
	r.live++
	return ws, true, nil
}

// closeMCP marks an MCP session's world as closed, unless the server ended
// it already: it stays readable through the control plane (its end state,
// totals and the tail of its journal) until max newer ended sessions push it
// out. It returns the world session (nil when ss had none).
func (r *registry) closeMCP(ss *mcp.ServerSession) *worldSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := r.byMCP[ss]
	if ws == nil {
		return nil
	}
	delete(r.byMCP, ss)
	if ws.endReason() == "" {
		r.endLocked(ws, endClosed)
	}
	return ws
}

// endLocked ends a live session for reason. Must be called with mu held.
func (r *registry) endLocked(ws *worldSession, reason string) {
	ws.end(reason, r.endedLimit)
	r.ends++
	ws.endSeq = r.ends
	r.live--
	switch reason {
	case endEvicted:
		r.evicted++
	case endIdle:
		r.timedOut++
	}
	r.evictClosed()
}

// evictIdlestLocked ends the live HTTP session whose last request ended
// longest ago among those with no request in flight, and returns it (nil
// when there is none). Must be called with mu held.
func (r *registry) evictIdlestLocked(now time.Time) *worldSession {
	var victim *worldSession
	for _, ws := range r.order {
		if ws.ss == nil || ws.endReason() != "" || ws.inflight.Load() > 0 {
			continue
		}
		if victim == nil || ws.lastActive.Load() < victim.lastActive.Load() {
			victim = ws
		}
	}
	if victim == nil {
		return nil
	}
	r.endLocked(victim, endEvicted)
	r.log.Info("session evicted to make room", "session", victim.id, "idle", now.Sub(time.Unix(0, victim.lastActive.Load())).Round(time.Millisecond), "max", r.max)
	return victim
}

// idleSince ends every live HTTP session with no request in flight whose
// last request ended before cutoff, and returns them for the caller to close.
func (r *registry) idleSince(cutoff time.Time) []*worldSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []*worldSession
	for _, ws := range r.order {
		if ws.ss == nil || ws.endReason() != "" || ws.inflight.Load() > 0 || ws.lastActive.Load() >= cutoff.UnixNano() {
			continue
		}
		out = append(out, ws)
	}
	for _, ws := range out {
		r.endLocked(ws, endIdle)
	}
	return out
}

// evictClosed drops the ended sessions beyond max that ended first (not
// the first created: a session kept for hours that has just ended is the
// one a test is about to read). Must be called with mu held.
func (r *registry) evictClosed() {
	var ended []*worldSession
	for _, ws := range r.order {
		if ws.closed.Load() {
			ended = append(ended, ws)
		}
	}
	if len(ended) <= r.max {
		return
	}
	slices.SortFunc(ended, func(a, b *worldSession) int { return cmp.Compare(a.endSeq, b.endSeq) })
	drop := make(map[*worldSession]bool, len(ended)-r.max)
	for _, ws := range ended[:len(ended)-r.max] {
		drop[ws] = true
		delete(r.byID, ws.id)
	}
	kept := r.order[:0]
	for _, ws := range r.order {
		if !drop[ws] {
			kept = append(kept, ws)
		}
	}
	clear(r.order[len(kept):])
	r.order = kept
}

// lookup finds a session by id; "latest" names the newest session.
func (r *registry) lookup(id string) *worldSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	if id == "latest" {
		if len(r.order) == 0 {
			return nil
		}
		return r.order[len(r.order)-1]
	}
	return r.byID[id]
}

// list returns the sessions in creation order.
func (r *registry) list() []*worldSession {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*worldSession(nil), r.order...)
}

// setProfile switches the fault profile of every session and of new ones.
func (r *registry) setProfile(p *engine.FaultProfile) {
	r.mu.Lock()
	r.profile = p
	sessions := append([]*worldSession(nil), r.order...)
	r.mu.Unlock()
	// A session created after the unlock already got p; one created before
	// is in the list.
	for _, ws := range sessions {
		ws.setProfile(p)
	}
}

// currentProfile returns the profile new sessions start with.
func (r *registry) currentProfile() *engine.FaultProfile {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.profile
}

// counts returns how many MCP sessions are live, how many are kept, and
// how many the server ended (evicted, timed out).
func (r *registry) counts() control.SessionCount {
	r.mu.Lock()
	defer r.mu.Unlock()
	return control.SessionCount{Live: r.live, Kept: len(r.order), Evicted: r.evicted, TimedOut: r.timedOut}
}

// baseCache seeds each seed's base once: seeding walks every record, and a
// base is immutable, so sessions on the same seed share it.
type baseCache struct {
	world *engine.World

	mu    sync.Mutex
	bases map[uint64]*engine.Base
}

// maxCachedBases bounds the cache: a control plane that resets to a new
// seed on every test must not grow memory without end.
const maxCachedBases = 64

func newBaseCache(w *engine.World) *baseCache {
	return &baseCache{world: w, bases: map[uint64]*engine.Base{}}
}

func (c *baseCache) get(seed uint64) (*engine.Base, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b := c.bases[seed]; b != nil {
		return b, nil
	}
	b, err := c.world.Seed(seed)
	if err != nil {
		return nil, fmt.Errorf("world %s: seed %d: %w", c.world.Name, seed, err)
	}
	if len(c.bases) >= maxCachedBases {
		// Sessions keep their own base alive; dropping the cache entry only
		// means the next reset to that seed seeds it again.
		clear(c.bases)
	}
	c.bases[seed] = b
	return b, nil
}
