package personas

import (
	"time"

	"github.com/herd-sh/herd/engine"
)

// Episode is one agent with one persona attempting one goal in a fresh
// session. Run is a pure function of it (and the model's world and
// variant): the same Episode always gives the same Outcome and Trace.
type Episode struct {
	Base    *engine.Base
	Profile *engine.FaultProfile // nil = none
	Persona *Persona
	Goal    *engine.Goal
	// Seed is the agent's seed: every choice of the agent comes from
	// dice seeded by it, and it is the engine session's key.
	Seed  uint64
	Trace bool // record the full trace
	// Remote, when set, is a world served elsewhere (over MCP) that the
	// agent's calls go to instead of an in-process session of Base. Base
	// must be the served world's base (same world, same seed): the end
	// state is judged on a local session of it.
	Remote Remote
}

// Outcome is how an episode ended.
type Outcome struct {
	Class      string // the engine's verdict on the end state
	Severity   engine.Severity
	Violations []engine.Violation
	Calls      int
	Faults     []FaultEvent // every injected fault the agent met, in order
	Recovered  bool         // met at least one fault and still ended ok
	// Duplicated counts side effects applied twice: a write that committed
	// more than once for one intended action (a timeout after commit, then
	// a retry that committed again).
	Duplicated int
	Meant      string // the tool an ideal reader chooses for the goal
	Called     string // the first write tool the agent called, "" when none
	// IgnoredRetryAfter counts calls made before a rate limit's retry-after
	// had passed (the engine's count).
	IgnoredRetryAfter int
	// InvalidArgs counts calls the engine refused as invalid_argument.
	InvalidArgs int
	// Hostile counts calls the agent sent with malformed or boundary
	// arguments on purpose.
	Hostile int
	// Claimed: the agent went through the goal without stopping and
	// reported it done (what the state says may differ: an unverified
	// success). Declined: it refused because no tool does what the goal
	// asks.
	Claimed, Declined bool
	// Target is the id of the goal's target record: agents that share a
	// persona, a goal and a target are repeated trials of one task.
	Target string
	Trace  *Trace // when Episode.Trace
}

// FaultEvent is one injected fault the agent met.
type FaultEvent struct {
	Tool string `json:"tool"`
	Kind string `json:"kind"`
}

// Trace is the story of one episode: what the agent was told, and every
// step with the reader model's scores where it chose.
type Trace struct {
	Persona string         `json:"persona"`
	Goal    string         `json:"goal"`
	Variant string         `json:"variant"`
	Intent  string         `json:"intent"`
	Target  string         `json:"target"`
	Knows   map[string]any `json:"knows"`
	Steps   []Step         `json:"steps"`
	// WorldDiff is what the episode created, changed or deleted outside
	// its goal's target (AppWorld's collateral-damage check), by type then
	// id, at most maxWorldDiff entries.
	WorldDiff []DiffEntry `json:"world_diff,omitempty"`
}

// DiffEntry is one record an episode created, changed or deleted outside
// its goal's target.
type DiffEntry struct {
	Type   string   `json:"type"`
	ID     string   `json:"id"`
	Change string   `json:"change"`           // created, updated or deleted
	Fields []string `json:"fields,omitempty"` // updated: the fields that differ, in declaration order
}

// maxWorldDiff bounds a trace's world diff: an episode is a handful of
// calls, and a trace stays readable.
const maxWorldDiff = 32

// worldDiff lists the session's changes outside the target.
func worldDiff(s *engine.Session, target *engine.Record) []DiffEntry {
	var out []DiffEntry
	for _, c := range s.Changes() {
		if c.Type == target.RecordType() && c.ID == target.ID() {
			continue
		}
		if len(out) == maxWorldDiff {
			break
		}
		e := DiffEntry{Type: c.Type.Name, ID: c.ID}
		switch {
		case c.Before == nil:
			e.Change = "created"
		case c.After == nil:
			e.Change = "deleted"
		default:
			e.Change = "updated"
			for _, f := range c.Type.Fields {
				if c.Before.Has(f.Name) != c.After.Has(f.Name) || c.Before.String(f.Name) != c.After.String(f.Name) {
					e.Fields = append(e.Fields, f.Name)
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// Step is one thing the agent did.
type Step struct {
	Kind   string         `json:"kind"` // look, act, retry, wait, verify, give_up
	Tool   string         `json:"tool,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	Scores []ToolScore    `json:"scores,omitempty"` // every candidate, where the agent chose a tool
	Result string         `json:"result"`           // "ok", "error: locked — …", "fault: timeout_after_commit"
	// Read is what the agent made of what it read after choosing: advice
	// in a description it followed ("passes idempotency_key: …") or an
	// error message that sent it to another tool.
	Read string        `json:"read,omitempty"`
	At   time.Duration `json:"at"` // virtual time since the episode began
}

// ToolScore is one candidate of a choice: the reader model's score and the
// probability it was chosen with.
type ToolScore struct {
	Tool  string  `json:"tool"`
	Score float64 `json:"score"`
	P     float64 `json:"p"`
}

// Step kinds.
const (
	StepLook   = "look"
	StepAct    = "act"
	StepRetry  = "retry"
	StepWait   = "wait"
	StepVerify = "verify"
	StepGiveUp = "give_up"
)
