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
}

// SessionInfo describes one world session, as GET /control/sessions lists it.
type SessionInfo struct {
	ID      string    `json:"id"`
	Key     uint64    `json:"key"`
	Seed    uint64    `json:"seed"`
	Calls   int       `json:"calls"`
	Profile string    `json:"profile"`
	Created time.Time `json:"created"`
	Closed  bool      `json:"closed"` // the MCP session ended; its world stays readable
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
}
