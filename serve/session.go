package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// worldSession is one MCP session's world: an engine session plus what the
// control plane shows about it. The engine's Session is single-goroutine, so
// every use goes through mu; a client that sends calls concurrently gets
// them applied one at a time, in the order they take the lock (which the
// journal records).
type worldSession struct {
	id      string // the MCP session id ("stdio" over stdio)
	key     uint64 // engine session key: separates this session's dice (changed by reset, under mu)
	created time.Time

	mu   sync.Mutex
	sess *engine.Session

	// journalLimit is the journal entries the engine session keeps (under
	// mu: an ended session keeps fewer).
	journalLimit int

	// lastEnd is the real time (UnixNano) the latest call's answer was
	// ready; the real time a client waits between calls moves the virtual
	// clock (see alignClock).
	lastEnd atomic.Int64
	closed  atomic.Bool

	// ss is the MCP session over HTTP, which the server may end when it is
	// idle (nil over stdio and in-memory transports: never ended by the
	// server). inflight counts its requests being handled and lastActive is
	// when the latest one began or ended (UnixNano): what the idle timeout
	// and eviction read.
	ss         *mcp.ServerSession
	inflight   atomic.Int32
	lastActive atomic.Int64
	ended      atomic.Pointer[string] // nil while live; then why it ended
	endSeq     uint64                 // the order it ended in (under registry.mu)

	// logLevel is the level the client set with logging/setLevel (nil: none
	// yet, so nothing is sent to it; see tellClient).
	logLevel atomic.Pointer[slog.Level]
}

func newWorldSession(id string, key uint64, sess *engine.Session, now time.Time, journalLimit int) *worldSession {
	sess.SetJournalLimit(journalLimit)
	ws := &worldSession{id: id, key: key, created: now, sess: sess, journalLimit: journalLimit}
	ws.lastEnd.Store(now.UnixNano())
	ws.lastActive.Store(now.UnixNano())
	return ws
}

// begin and done bracket one MCP request of the session.
func (ws *worldSession) begin(now time.Time) {
	ws.inflight.Add(1)
	ws.lastActive.Store(now.UnixNano())
}

func (ws *worldSession) done(now time.Time) {
	ws.lastActive.Store(now.UnixNano())
	ws.inflight.Add(-1)
}

// endReason is why the session ended ("" while it is live).
func (ws *worldSession) endReason() string {
	if p := ws.ended.Load(); p != nil {
		return *p
	}
	return ""
}

// end marks the session ended for reason and cuts its journal to the last
// keep entries: an ended session is kept as its end state, its totals and
// the tail of its journal.
func (ws *worldSession) end(reason string, keep int) {
	ws.ended.CompareAndSwap(nil, &reason)
	ws.closed.Store(true)
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.journalLimit = keep
	ws.sess.SetJournalLimit(keep)
}

// call runs one tool call on the engine session, after moving the virtual
// clock forward by the real time the client waited since the last answer.
func (ws *worldSession) call(tool string, args map[string]any, now time.Time) engine.Result {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.callLocked(tool, args, now)
}

// resetAndCall resets the session as p plans, then makes the call, with no
// other call or reset of the session between them: the call runs on the
// session as reset (a tool call carrying _meta control.ResetMeta).
func (ws *worldSession) resetAndCall(p resetPlan, now time.Time, tool string, args map[string]any) (resetDone, engine.Result, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	done, err := ws.resetLocked(p, now)
	if err != nil {
		return done, engine.Result{}, err
	}
	return done, ws.callLocked(tool, args, now), nil
}

func (ws *worldSession) callLocked(tool string, args map[string]any, now time.Time) engine.Result {
	ws.alignClock(now)
	return ws.sess.Call(tool, args)
}

// alignClock advances the session's virtual clock by the real time since the
// previous call's answer, rounded up to a whole millisecond so that every
// call starts on a millisecond boundary.
//
// Why: in-process agents wait out a retry-after with Session.Sleep; a real
// client over MCP waits for real. Without this, a client that honours
// retry-after would still find the tool rate-limited (virtual time would
// only have moved by the latencies) and be counted as ignoring it. Why whole
// milliseconds: the journal's at_ms then says exactly when each call began,
// so replaying the journal in-process (Sleep(at - Elapsed()), then Call)
// reproduces the session byte for byte.
//
// Must be called with mu held.
func (ws *worldSession) alignClock(now time.Time) {
	gap := time.Duration(now.UnixNano() - ws.lastEnd.Load())
	if gap < 0 {
		gap = 0 // another call of this session ended after this one started
	}
	el := ws.sess.Elapsed()
	target := ceilMillisecond(el + gap)
	ws.sess.Sleep(target - el)
}

// markAnswered records when a call's answer was ready (after its real wait).
// Calls of one session may overlap, so keep the latest.
func (ws *worldSession) markAnswered(now time.Time) {
	n := now.UnixNano()
	for {
		old := ws.lastEnd.Load()
		if n <= old || ws.lastEnd.CompareAndSwap(old, n) {
			return
		}
	}
}

func ceilMillisecond(d time.Duration) time.Duration {
	if r := d % time.Millisecond; r != 0 {
		return d + time.Millisecond - r
	}
	return d
}

func (ws *worldSession) info() control.SessionInfo {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.infoLocked()
}

func (ws *worldSession) infoLocked() control.SessionInfo {
	return control.SessionInfo{
		ID:         ws.id,
		Key:        ws.key,
		Seed:       ws.sess.Base().Seed(),
		Calls:      ws.sess.Calls(),
		Profile:    engine.ProfileName(ws.sess.Profile()),
		Created:    ws.created,
		Closed:     ws.closed.Load(),
		Ended:      ws.endReason(),
		LastActive: time.Unix(0, ws.lastActive.Load()).UTC(),
		Journal:    &control.JournalInfo{JournalTotals: ws.sess.JournalTotals(), Limit: ws.journalLimit},
	}
}

// state returns the session's records as canonical JSON.
func (ws *worldSession) state() []byte {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.sess.StateJSON()
}

// changes returns what the session changed, as canonical JSON.
func (ws *worldSession) changes() []byte {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.sess.ChangesJSON()
}

// journal returns the calls the session's journal holds as NDJSON, and how
// many older ones its journal limit dropped.
func (ws *worldSession) journal() ([]byte, int, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	var b bytes.Buffer
	if err := ws.sess.WriteJournal(&b); err != nil {
		return nil, 0, err
	}
	return b.Bytes(), ws.sess.JournalTotals().Dropped, nil
}

// invariants checks the world's invariants on what the session changed.
func (ws *worldSession) invariants() ([]engine.Violation, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.sess.CheckInvariants()
}

// snapshot saves the session.
func (ws *worldSession) snapshot() ([]byte, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.sess.Snapshot()
}

// resetPlan is a reset checked against the world (Server.planReset): a
// nil base or key keeps the session's own.
type resetPlan struct {
	base *engine.Base
	key  *uint64
	goal *engine.Goal // nil: no attempt begun
	rnd  uint64
}

// resetDone is what a reset did: the attempt begun, the session it
// replaced, and the session's info right after it.
type resetDone struct {
	attempt *engine.Attempt
	old     *engine.Session
	info    control.SessionInfo
}

// reset replaces the session with a fresh one as p plans (same fault
// profile): no changes, an empty journal, the clock at zero. With a goal,
// the goal's attempt is begun on it (rnd picks the target), so its other
// actor, if it has one, writes during the session as it would in-process.
// On error the session is unchanged. The session it replaced is reached by
// no call any more: its journal is the one the reset drops, whole, with no
// call landing between reading it and the reset.
func (ws *worldSession) reset(p resetPlan, now time.Time) (resetDone, error) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	return ws.resetLocked(p, now)
}

func (ws *worldSession) resetLocked(p resetPlan, now time.Time) (resetDone, error) {
	base, key := p.base, ws.key
	if base == nil {
		base = ws.sess.Base()
	}
	if p.key != nil {
		key = *p.key
	}
	fresh := base.NewSession(key, ws.sess.Profile())
	fresh.SetJournalLimit(ws.journalLimit)
	var done resetDone
	if p.goal != nil {
		var err error
		if done.attempt, err = p.goal.Begin(fresh, p.rnd); err != nil {
			return done, fmt.Errorf("goal: %w", err)
		}
	}
	done.old = ws.sess
	ws.sess, ws.key = fresh, key
	ws.lastEnd.Store(now.UnixNano())
	done.info = ws.infoLocked()
	return done, nil
}

// restore replaces the session's state with a snapshot. baseFor supplies the
// base for the snapshot's seed, so a snapshot taken after a reset to another
// seed restores onto the right records.
func (ws *worldSession) restore(data []byte, baseFor func(seed uint64) (*engine.Base, error), now time.Time) error {
	var head struct {
		Seed *uint64 `json:"seed"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if head.Seed == nil {
		return fmt.Errorf("snapshot: no \"seed\" field; send the body GET .../snapshot returned")
	}
	base, err := baseFor(*head.Seed)
	if err != nil {
		return err
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	fresh := base.NewSession(ws.key, ws.sess.Profile())
	fresh.SetJournalLimit(ws.journalLimit)
	if err := fresh.Restore(data); err != nil {
		return err
	}
	ws.sess = fresh
	ws.lastEnd.Store(now.UnixNano())
	return nil
}

// setProfile switches the fault profile for the session's later calls.
func (ws *worldSession) setProfile(p *engine.FaultProfile) {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	ws.sess.SetProfile(p)
}
