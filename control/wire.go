// Package control is herd's control plane protocol: the paths, the JSON
// documents a served world's control plane (docs/serve.md) and its tool
// calls' _meta carry, and a client. The server (package serve) answers
// them; the swarm's served targets and herdtest read them. A client depends
// on this protocol, never on the server.
package control

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/herd-sh/herd/engine"
)

// Paths a herd server answers on, on one host.
const (
	// MCPPath is where Streamable HTTP is served.
	MCPPath = "/mcp"
	// Path is the root of the control plane.
	Path = "/control"
)

// Capability is the key under the experimental capabilities of a herd
// server's initialize result where it says where its control plane listens
// ({"url": "http://HOST:PORT/control"}, Announce): how a client that started
// herd serve over stdio with --control finds it, whatever the log level.
const Capability = "sh.herd/control"

// Announce is the value under Capability.
type Announce struct {
	URL string `json:"url"`
}

// ResetMeta is the _meta key by which a tool call resets its session before
// it runs: the control plane's reset (POST /control/sessions/{id}/reset),
// carried by the episode's first call instead of a request of its own. A
// driver that starts thousands of short episodes a second (herd swarm over
// MCP) saves a round trip per episode; the call then runs on the reset
// session exactly as if the reset had come first (docs/serve.md).
const ResetMeta = "sh.herd/reset"

// MetaReset is what a call's _meta[ResetMeta] holds: the reset body, with
// the 64-bit numbers as decimal strings — JSON numbers lose them past 2^53
// in most decoders, the MCP SDKs' among them.
type MetaReset struct {
	Seed          string `json:"seed,omitempty"`
	Key           string `json:"key,omitempty"`
	Goal          string `json:"goal,omitempty"`
	Rnd           string `json:"rnd,omitempty"`
	ReturnJournal bool   `json:"return_journal,omitempty"`
}

// MetaResetAnswer is what the call's result carries in _meta[ResetMeta]:
// the session as reset, the goal's target, and, with return_journal, the
// calls of the journal the reset dropped — each a GET …/journal line
// without latency_ms and result, which a driver replaying the calls does
// not read and which are most of a journal's bytes.
type MetaResetAnswer struct {
	Session string               `json:"session"`
	Seed    string               `json:"seed"`
	Key     string               `json:"key"`
	Goal    string               `json:"goal,omitempty"`
	Target  string               `json:"target,omitempty"`
	Journal []engine.JournalCall `json:"journal,omitzero"`
	// JournalDropped counts the calls before Journal's first that the
	// session's journal limit dropped: a replay of an episode needs none.
	JournalDropped int `json:"journal_dropped,omitempty"`
}

// WorldDoc is the world:// resource (and GET /control/world): what the world
// is and which tools it has, as the server shows them.
type WorldDoc struct {
	World       string        `json:"world"`
	Version     int           `json:"version"`
	Hash        string        `json:"hash"`
	Description string        `json:"description"`
	Seed        uint64        `json:"seed"`
	Variant     string        `json:"variant"`
	Variants    []string      `json:"variants"`
	Faults      string        `json:"faults"`
	Profiles    []string      `json:"profiles"`
	ErrorCodes  []string      `json:"error_codes"`
	Tools       []ToolDoc     `json:"tools"`
	Resources   []string      `json:"resources"`
	Sessions    *SessionCount `json:"sessions,omitempty"` // GET /control/world only
}

// ToolDoc is a tool as world://NAME lists it, and as herd inspect shows it
// (which adds params and errors): its kind, the record it works on, the
// chosen variant's description and the annotations.
type ToolDoc struct {
	Name        string             `json:"name"`
	Kind        string             `json:"kind"`
	Record      string             `json:"record,omitempty"`
	Description string             `json:"description"`
	Annotations engine.Annotations `json:"annotations"`
}

// SessionCount is how many MCP sessions are live and how many world
// sessions the control plane keeps readable.
type SessionCount struct {
	Live int `json:"live"`
	Kept int `json:"kept"`
	// Evicted counts live sessions the server closed to make room for a new
	// one at its session limit (the one idle the longest each time);
	// TimedOut those it closed after the idle timeout.
	Evicted  int `json:"evicted"`
	TimedOut int `json:"timed_out"`
}

// Runtime is GET /control/runtime: what a long run watches on the server
// (bench/soak.sh samples it) — tool calls served since it started, its
// goroutines and heap.
type Runtime struct {
	Calls      int64        `json:"calls"`
	Goroutines int          `json:"goroutines"`
	HeapBytes  uint64       `json:"heap_bytes"` // live and not yet collected
	GCs        uint32       `json:"gcs"`
	Sessions   SessionCount `json:"sessions"`
}

// JournalInfo is how much of a session's journal the server holds: a
// session keeps its latest Limit calls (0: all), and counts every call.
// Calls = Kept + Dropped; GET …/journal answers the Kept ones, and says
// how many were dropped in its JournalDroppedHeader.
type JournalInfo struct {
	engine.JournalTotals
	Limit int `json:"limit"`
}

// JournalDroppedHeader is the header of GET …/journal answers saying how
// many older calls the session's journal limit dropped (absent from a herd
// too old to drop any).
const JournalDroppedHeader = "Herd-Journal-Dropped"

// SessionInfo describes one world session, as GET /control/sessions lists it.
type SessionInfo struct {
	ID      string    `json:"id"`
	Key     uint64    `json:"key"`
	Seed    uint64    `json:"seed"`
	Calls   int       `json:"calls"`
	Profile string    `json:"profile"`
	Created time.Time `json:"created"`
	Closed  bool      `json:"closed"` // the MCP session ended; its world stays readable
	// Ended says why a closed session ended: "closed" (by the client, or
	// the server stopping), "idle" (the idle timeout), "evicted" (to make
	// room for a new session at the session limit). Empty while live.
	Ended      string       `json:"ended,omitempty"`
	LastActive time.Time    `json:"last_active"` // when its latest request began or ended
	Journal    *JournalInfo `json:"journal,omitempty"`
}

// Reset is the body of POST /control/sessions/{id}/reset, as a driver that
// starts an episode sends it: every field set.
type Reset struct {
	Seed uint64 `json:"seed"`
	Key  uint64 `json:"key"`
	Goal string `json:"goal,omitempty"`
	Rnd  uint64 `json:"rnd"`
	// ReturnJournal asks for the journal the reset drops (ResetAnswer.Journal).
	ReturnJournal bool `json:"return_journal,omitempty"`
}

// Meta is r as a tool call's _meta[ResetMeta] carries it.
func (r Reset) Meta() MetaReset {
	return MetaReset{
		Seed: strconv.FormatUint(r.Seed, 10), Key: strconv.FormatUint(r.Key, 10),
		Goal: r.Goal, Rnd: strconv.FormatUint(r.Rnd, 10), ReturnJournal: r.ReturnJournal,
	}
}

// ResetAnswer is what a reset answers: the session and the attempt begun.
type ResetAnswer struct {
	ID     string `json:"id"`
	Key    uint64 `json:"key"`
	Seed   uint64 `json:"seed"`
	Goal   string `json:"goal"`
	Target string `json:"target"`
	// Journal is the session's journal before the reset, a line a value
	// (with Reset.ReturnJournal; nil from a herd too old to send it).
	Journal []json.RawMessage `json:"journal"`
	// JournalDropped counts the calls before Journal's first that the
	// session's journal limit dropped.
	JournalDropped int `json:"journal_dropped,omitempty"`
}
