package serve

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

// errTooManySessions refuses a new MCP session when MaxSessions are live.
var errTooManySessions = errors.New("too many sessions")

// registry maps MCP sessions to world sessions and keeps what the control
// plane needs: the sessions in creation order, the current fault profile and
// one seeded base per seed.
//
// Lock order: registry.mu before worldSession.mu; calls take only the
// session's own lock.
type registry struct {
	bases *baseCache
	max   int    // live MCP sessions at once
	seed  uint64 // the seed new sessions start on

	mu      sync.Mutex
	profile *engine.FaultProfile
	byMCP   map[*mcp.ServerSession]*worldSession
	byID    map[string]*worldSession
	order   []*worldSession // creation order; closed ones are dropped oldest first
	nextKey uint64
	live    int
	pending int // new HTTP sessions being set up (see reserve)
}

func newRegistry(bases *baseCache, seed uint64, profile *engine.FaultProfile, max int) *registry {
	return &registry{
		bases: bases, max: max, seed: seed, profile: profile,
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
// initialize requests cannot overshoot max; nil when there is no room.
func (r *registry) reserve() *reservation {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.live+r.pending >= r.max {
		return nil
	}
	r.pending++
	return &reservation{}
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
// use. name is used when the transport has no session id of its own.
func (r *registry) forMCP(ctx context.Context, ss *mcp.ServerSession, name string, now time.Time) (ws *worldSession, isNew bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if ws := r.byMCP[ss]; ws != nil {
		return ws, false, nil
	}
	// A session opened over HTTP holds a reservation (made before its
	// request reached the SDK) and takes it over; other transports (stdio,
	// in-memory) are one connection each and are checked here.
	if res, _ := ctx.Value(reservationKey{}).(*reservation); res != nil && !res.taken {
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
	ws = newWorldSession(id, key, base.NewSession(key, r.profile), now)
	r.byMCP[ss] = ws
	r.byID[id] = ws
	r.order = append(r.order, ws)
	r.live++
	return ws, true, nil
}

// closeMCP marks an MCP session's world as closed: it stays readable through
// the control plane until max newer closed sessions push it out.
func (r *registry) closeMCP(ss *mcp.ServerSession) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ws := r.byMCP[ss]
	if ws == nil {
		return
	}
	delete(r.byMCP, ss)
	ws.closed.Store(true)
	r.live--
	r.evictClosed()
}

// evictClosed drops the oldest closed sessions beyond max. Must be called
// with mu held.
func (r *registry) evictClosed() {
	closed := 0
	for _, ws := range r.order {
		if ws.closed.Load() {
			closed++
		}
	}
	if closed <= r.max {
		return
	}
	drop := closed - r.max
	kept := r.order[:0]
	for _, ws := range r.order {
		if drop > 0 && ws.closed.Load() {
			delete(r.byID, ws.id)
			drop--
			continue
		}
		kept = append(kept, ws)
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

// counts returns how many MCP sessions are live and how many are kept.
func (r *registry) counts() (live, kept int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.live, len(r.order)
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
