// Package report holds herd's results document — the one versioned JSON file
// a run produces — and everything that reads it: derived rates with
// confidence intervals, thresholds and verdicts, merge of shards, diff of two
// runs, and the renderers (terminal, JSON, Markdown, HTML, JUnit, badge).
//
// Every renderer reads only the document, so a report rendered later from a
// saved run.json is the same as the one printed at the end of the run.
package report

import (
	"math"

	"github.com/herd-sh/herd/report/stats"
)

// Schema is the value of the document's "schema" field. A JSON file without
// it is not a herd results document.
const Schema = "herd.results"

// Version is the document version this herd writes and reads. A document
// with a higher version was written by a newer herd and is refused rather
// than misread.
const Version = 1

// Outcome severities, as declared by a goal's outcome classes.
const (
	SeverityOK      = "ok"
	SeverityFailed  = "failed"
	SeverityHarmful = "harmful"
)

// Results is the whole document. Everything except Timing is deterministic:
// byte-identical for the same world, flags and seed whatever the worker count
// or sharding (see Normalize for the canonical order).
type Results struct {
	Schema     string           `json:"schema"`
	Version    int              `json:"version"`
	Run        Run              `json:"run"`
	Partial    bool             `json:"partial"`  // interrupted: counts are of finished episodes only
	Episodes   int              `json:"episodes"` // finished episodes (agents × variants)
	Counts     []Count          `json:"counts"`   // sorted by goal, persona, variant, class; no zero rows
	Classes    []ClassInfo      `json:"classes"`  // every outcome class per goal, in world order
	Paired     []Paired         `json:"paired,omitempty"`
	Invariants []InvariantCount `json:"invariants,omitempty"`
	Faults     []FaultTally     `json:"faults,omitempty"`
	Confusions []Confusion      `json:"confusions,omitempty"`
	Traces     []Trace          `json:"traces,omitempty"`  // ≤ TracesPerClass lowest agents per goal×variant×class
	Flipped    []Flip           `json:"flipped,omitempty"` // ≤ FlipsPerPair lowest agents per goal×variant pair
	Lint       []LintFinding    `json:"lint,omitempty"`
	LintTokens []LintTokens     `json:"lint_tokens,omitempty"` // per variant: what the tool definitions cost a model
	// Trials are the repeated trials of each task (goal × persona ×
	// variant × target); PassK is derived from them on every write
	// (passk.go).
	Trials     []Trial   `json:"trials,omitempty"`
	PassK      []PassK   `json:"pass_k,omitempty"`
	Thresholds []Verdict `json:"thresholds,omitempty"`
	Rates      *Rates    `json:"rates,omitempty"`  // derived from counts and paired on every write; never read
	Timing     *Timing   `json:"timing,omitempty"` // not deterministic
}

// Run is the run's metadata: enough to reproduce it.
type Run struct {
	HerdVersion string     `json:"herd_version"`
	World       WorldRef   `json:"world"`
	Target      string     `json:"target"` // "in-process", "mcp+stdio:…", "http://…"
	Variants    []string   `json:"variants"`
	Faults      string     `json:"faults"` // fault profile
	Mix         []MixEntry `json:"mix"`
	Goals       []string   `json:"goals"`
	Seed        uint64     `json:"seed"`
	Agents      int        `json:"agents"`          // agents in the whole run, not the shard
	Shard       *Shard     `json:"shard,omitempty"` // absent when unsharded and after merge
	Command     string     `json:"command"`         // the reproducing command line, without output flags
	// Model is the language model that played the episodes in place of
	// scripted personas (absent for a persona run).
	Model *ModelRun `json:"model,omitempty"`
}

// ModelRun is the language model a run's episodes were played by. It
// holds nothing secret: never the key, never the endpoint's address.
type ModelRun struct {
	Name string `json:"name"` // the model as the endpoint names it
	// Endpoint is the kind of endpoint: "openai-chat-completions" (the
	// OpenAI-compatible chat completions wire format with tool calling).
	Endpoint string `json:"endpoint"`
	// Cassette is the sha256 of the cassette the exchanges were recorded
	// to or replayed from ("" for a live run with none): a replay of that
	// file gives this document again, byte for byte.
	Cassette     string   `json:"cassette,omitempty"`
	Temperature  *float64 `json:"temperature,omitempty"`
	MaxSteps     int      `json:"max_steps"`
	Requests     int64    `json:"requests"`      // chat completions asked for
	PromptTokens int64    `json:"prompt_tokens"` // as the endpoint reported them
	OutputTokens int64    `json:"output_tokens"`
}

// WorldRef identifies the world a run used.
type WorldRef struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Hash    string `json:"hash"`   // sha256 hex of the world file
	Source  string `json:"source"` // "mock:crm" or a path
}

// MixEntry is one persona of the population.
type MixEntry struct {
	Persona string  `json:"persona"`
	Weight  float64 `json:"weight"`
	Agents  int     `json:"agents"` // exact number of agents with this persona in the whole run
}

// Shard says which part of a run a document holds.
type Shard struct {
	Index int `json:"index"` // 0-based
	Count int `json:"count"`
}

// Count is the number of episodes of one goal × persona × variant that ended
// in one outcome class.
type Count struct {
	Goal     string `json:"goal"`
	Persona  string `json:"persona"`
	Variant  string `json:"variant"`
	Class    string `json:"class"`
	Severity string `json:"severity"` // ok | failed | harmful
	N        int    `json:"n"`
}

// ClassInfo is one outcome class of a goal, as the world declares it.
type ClassInfo struct {
	Goal     string `json:"goal"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
}

// Paired counts the same agents under variants A and B for one goal and one
// outcome class. Class may also be a severity name ("harmful", "failed",
// "ok") that is not a class of the goal: then it counts agents with any
// outcome of that severity.
type Paired struct {
	Goal    string `json:"goal"`
	Class   string `json:"class"`
	A       string `json:"a"`
	B       string `json:"b"`
	Both    int    `json:"both"`
	OnlyA   int    `json:"only_a"`
	OnlyB   int    `json:"only_b"`
	Neither int    `json:"neither"`
}

// N is the number of agents the row covers.
func (p Paired) N() int { return p.Both + p.OnlyA + p.OnlyB + p.Neither }

// InvariantCount is the number of episodes under one variant that left the
// world violating one invariant.
type InvariantCount struct {
	Name    string `json:"name"`
	Variant string `json:"variant"`
	N       int    `json:"n"`
}

// FaultTally counts injected faults per variant × tool × fault kind, and what
// became of the episodes that met them.
type FaultTally struct {
	Variant    string `json:"variant"`
	Tool       string `json:"tool"`
	Kind       string `json:"kind"`
	Injected   int    `json:"injected"`   // faults injected
	Recovered  int    `json:"recovered"`  // episodes that still reached an ok outcome after this fault
	Duplicated int    `json:"duplicated"` // side effects applied twice
}

// Confusion counts episodes that called the write tool Called where the
// goal's ok outcome needs Meant.
type Confusion struct {
	Goal    string `json:"goal"`
	Variant string `json:"variant"`
	Meant   string `json:"meant"`
	Called  string `json:"called"`
	N       int    `json:"n"`
}

// Trace is one sampled agent's episode, step by step.
type Trace struct {
	Agent    int    `json:"agent"`
	Seed     uint64 `json:"seed"`
	Goal     string `json:"goal"`
	Persona  string `json:"persona"`
	Variant  string `json:"variant"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
	Replay   string `json:"replay"` // e.g. "herd replay mock:crm --seed 42 --agent 17 --variant ambiguous"
	Steps    []Step `json:"steps"`
	// WorldDiff: records created, changed or deleted outside the goal's
	// target (worlddiff.go).
	WorldDiff []DiffEntry `json:"world_diff,omitempty"`
}

// Step is one thing an agent did.
type Step struct {
	Kind   string         `json:"kind"` // look, act, retry, verify, wait, give_up
	Tool   string         `json:"tool,omitempty"`
	Args   map[string]any `json:"args,omitempty"`
	Scores []ToolScore    `json:"scores,omitempty"` // the reader model's scores for this choice
	Result string         `json:"result"`           // "ok", "error: locked — …", "fault: timeout_after_commit"
	// Read is what the agent made of what it read after choosing: advice
	// it followed, or an error message that sent it to another tool.
	Read string `json:"read,omitempty"`
	At   string `json:"at"` // virtual time offset, "+1.204s"
}

// ToolScore is the reader model's score and choice probability for a tool.
type ToolScore struct {
	Tool  string  `json:"tool"`
	Score float64 `json:"score"`
	P     float64 `json:"p"`
}

// Flip is an agent whose outcome differs between two variants. From holds
// exactly one entry (variant A → its class) and To one (variant B → its
// class), A before B in the run's variant order.
type Flip struct {
	Agent   int               `json:"agent"`
	Goal    string            `json:"goal"`
	Persona string            `json:"persona"`
	From    map[string]string `json:"from"`
	To      map[string]string `json:"to"`
	Replay  string            `json:"replay"`
}

// LintFinding is one remark of the description linter about a tool.
type LintFinding struct {
	Tool      string `json:"tool"`
	Variant   string `json:"variant"`
	Dimension string `json:"dimension"`
	Level     string `json:"level"` // error | warning | info
	Message   string `json:"message"`
	Fix       string `json:"fix"`
}

// Verdict is one threshold judged against the run.
type Verdict struct {
	Threshold string         `json:"threshold"` // as given: "harmful<5%", "hide_contact:destroyed_data<1%"
	Metric    string         `json:"metric"`
	Goal      string         `json:"goal,omitempty"` // a goal, or a tool for latency metrics
	Variant   string         `json:"variant,omitempty"`
	Value     float64        `json:"value"` // a fraction for rates, milliseconds for latency
	CI        stats.Interval `json:"ci"`    // 95%, {"lo","hi"}
	N         int            `json:"n"`     // episodes (rates) or calls (latency) the value rests on
	Limit     float64        `json:"limit"`
	Op        string         `json:"op"`     // "<" or ">"
	Result    string         `json:"result"` // READY | NOT READY | INCONCLUSIVE
	Note      string         `json:"note,omitempty"`
}

// Timing holds everything that depends on the machine and the moment.
type Timing struct {
	Started        string             `json:"started"` // RFC 3339
	Seconds        float64            `json:"seconds"` // wall time of the run
	EpisodesPerSec float64            `json:"episodes_per_sec"`
	Workers        int                `json:"workers"`
	GOMAXPROCS     int                `json:"gomaxprocs"`
	Host           string             `json:"host"`
	Latency        []LatencyHistogram `json:"latency,omitempty"`   // per tool, plus "all"
	InFlight       []Sample           `json:"in_flight,omitempty"` // in-flight calls over time (load runs)
	Calls          []CallClass        `json:"calls,omitempty"`     // calls per tool by how they ended (runs over a transport)
	Ceiling        *Ceiling           `json:"ceiling,omitempty"`   // a ceiling search's curve (ceiling.go)

	// Latency split by how calls ended, over every tool: those answered
	// with a result (ok) and the others (errors, timeouts; cancelled calls
	// are in neither). Warm-up calls are in no latency histogram.
	LatencyOK    *LatencyHistogram `json:"latency_ok,omitempty"`
	LatencyError *LatencyHistogram `json:"latency_error,omitempty"`
	WarmupCalls  int64             `json:"warmup_calls,omitempty"` // calls counted in calls but not timed: each connection's first few
	// Stopped says why a run against an MCP server that is not a herd
	// world ended: one of the Stop values.
	Stopped string       `json:"stopped,omitempty"`
	Server  *ServerStats `json:"server,omitempty"` // an MCP server that is not a herd world
}

// Why a run against an external server stopped (Timing.Stopped).
const (
	StopFinished       = "finished"        // every planned agent ran
	StopDuration       = "duration"        // the load's duration passed
	StopInterrupted    = "interrupted"     // a signal stopped it
	StopHung           = "server_hung"     // the server stopped answering every call
	StopProcessDied    = "process_died"    // a stdio server process exited
	StopConnectionLost = "connection_lost" // an HTTP server dropped the connection
	StopUnusable       = "unusable"        // nothing it answered was usable
)

// StopReasons are the values of Timing.Stopped.
var StopReasons = []string{StopFinished, StopDuration, StopInterrupted, StopHung, StopProcessDied, StopConnectionLost, StopUnusable}

// ServerStats is what a run measured of an MCP server that is not a herd
// world, besides its answers.
type ServerStats struct {
	// Processes is the size of a stdio server's pool: processes started
	// and initialized before the clock, shared by every agent (0 over
	// HTTP).
	Processes int `json:"processes,omitempty"`
	// NonJSONLines counts the stdout lines of a stdio server that were not
	// JSON-RPC messages (a banner, a log line), skipped; NonJSONSample
	// holds the first few, cut short.
	NonJSONLines  int64    `json:"non_json_lines"`
	NonJSONSample []string `json:"non_json_sample,omitempty"`
	// ProcessStats are each process's memory and CPU time at the end of
	// the run (Linux only; absent elsewhere).
	ProcessStats []ProcessStat `json:"process_stats,omitempty"`
	// Skipped are the tools the run did not call, and why.
	Skipped []SkippedTool `json:"skipped,omitempty"`
}

// ProcessStat is one stdio server process (with its children) at the end
// of a run: resident memory now and at its peak, and CPU time used.
type ProcessStat struct {
	PID        int     `json:"pid"`
	RSSKB      int64   `json:"rss_kb"`
	PeakRSSKB  int64   `json:"peak_rss_kb"`
	CPUSeconds float64 `json:"cpu_seconds"`
}

// SkippedTool is a tool a run against an external server did not call.
type SkippedTool struct {
	Tool   string `json:"tool"`
	Reason string `json:"reason"` // one of the Skip values
}

// Why a tool was not called (SkippedTool.Reason).
const (
	SkipWrites    = "may_write"  // not read-only, and writes were not allowed
	SkipOpenWorld = "open_world" // may reach outside the server, which was not allowed
	SkipFiltered  = "filtered"   // left out by the run's tool patterns
)

// CallClass is N calls of a tool over a transport that ended in Class: ok,
// tool_error (per Code, the error code the answer named, "" if none),
// protocol_error, transport_error, timeout, malformed or cancelled. Sorted
// by tool, then class in that order, then code.
type CallClass struct {
	Tool  string `json:"tool"`
	Class string `json:"class"`
	Code  string `json:"code,omitempty"`
	N     int64  `json:"n"`
}

// AllTools is the Tool of the latency histogram over every call.
const AllTools = "all"

// LatencyHistogram is an HDR histogram of call latencies for one tool.
type LatencyHistogram struct {
	Tool string `json:"tool"`
	Bars []Bar  `json:"bars"` // ascending value_us, one bar per distinct value
}

// Calls is the number of calls the histogram holds.
func (h LatencyHistogram) Calls() int64 {
	var n int64
	for _, b := range h.Bars {
		n = addCount(n, b.Count)
	}
	return n
}

// addCount is a + b for counts, saturating at the int64 bounds instead of
// wrapping: a document that was never validated (or a bug) shows a huge
// number, never a negative one or a panic. Validate keeps every count of a
// document read from a file far below the bound.
func addCount(a, b int64) int64 {
	s := a + b
	switch {
	case b > 0 && s < a:
		return math.MaxInt64
	case b < 0 && s > a:
		return math.MinInt64
	}
	return s
}

// Bar is Count calls that took ValueUS microseconds (an HDR bucket's value).
type Bar struct {
	ValueUS int64 `json:"value_us"`
	Count   int64 `json:"count"`
}

// Sample is the number of calls in flight T seconds after the run started.
type Sample struct {
	T        float64 `json:"t"`
	InFlight int     `json:"in_flight"`
}
