// Package calibrate measures how well herd's scripted personas stand in
// for a real agent (a language model, say). Given that agent's episodes on
// a world, it plays every persona on the same world, variants and goals,
// and reports per goal and variant the agent's outcome distribution beside
// each persona's, the persona mix that best explains the agent (maximum
// likelihood, with bootstrap intervals, and a goodness-of-fit test that
// says when no mix does), first-choice agreement (Cohen's κ on the same
// episodes) and whether each variant effect keeps its direction and size.
//
// Episodes come from an episodes file: one line per finished episode, as
// `herd swarm --episodes FILE` writes it for a model run or a persona run.
package calibrate

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/herd-sh/herd/internal/boundedio"
	"github.com/herd-sh/herd/personas"
)

// FileVersion is the episodes file's format.
const FileVersion = 1

// MaxEpisodes bounds an episodes file (a log is kept in memory to be
// written sorted, and read whole to be calibrated).
const MaxEpisodes = 1_000_000

// MaxFileBytes bounds an episodes file read.
const MaxFileBytes = 256 << 20

// Header is the first line of an episodes file: the run the episodes are
// of, enough to play personas on the same world, seed, faults, variants
// and goals.
type Header struct {
	Version int `json:"herd_episodes"`
	// World is how the run named its world (mock:crm or a path) and the
	// sha256 of the world file, checked when the file is calibrated.
	World     string   `json:"world"`
	WorldHash string   `json:"world_hash"`
	Seed      uint64   `json:"seed"`
	Agents    int      `json:"agents"`
	Faults    string   `json:"faults"`
	Variants  []string `json:"variants"`
	Goals     []string `json:"goals"`
	// Descriptions is the descriptions file the run read ("" for none).
	Descriptions string `json:"descriptions,omitempty"`
	// Player is who played: a model's name, or "personas".
	Player string `json:"player"`
}

// Episode is one finished episode.
type Episode struct {
	Agent    int    `json:"agent"`
	Seed     uint64 `json:"seed"`
	Variant  string `json:"variant"`
	Goal     string `json:"goal"`
	Persona  string `json:"persona"`
	Class    string `json:"class"`
	Severity string `json:"severity"`
	// First is the first write tool called ("" when none was): the
	// agent's first choice for the goal.
	First string `json:"first"`
	Calls int    `json:"calls"`
}

// Log collects the episodes of a run as they finish (it is a
// swarm.Observer) and writes them sorted by agent and variant, so that the
// same run writes the same bytes whatever the worker count.
type Log struct {
	h        Header
	variants map[string]int
	mu       sync.Mutex
	eps      []Episode
	over     bool
	seedOf   func(agent int) uint64
}

// NewLog starts a log of the run h describes; seedOf is an agent's seed.
func NewLog(h Header, seedOf func(agent int) uint64) *Log {
	h.Version = FileVersion
	l := &Log{h: h, seedOf: seedOf, variants: map[string]int{}}
	for i, v := range h.Variants {
		l.variants[v] = i
	}
	return l
}

// EpisodeDone records one episode (called concurrently).
func (l *Log) EpisodeDone(agent int, variant string, o personas.Outcome) {
	e := Episode{Agent: agent, Seed: l.seedOf(agent), Variant: variant, Class: o.Class, Severity: string(o.Severity),
		First: o.Called, Calls: o.Calls}
	if o.Trace != nil {
		e.Goal, e.Persona = o.Trace.Goal, o.Trace.Persona
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.eps) >= MaxEpisodes {
		l.over = true
		return
	}
	l.eps = append(l.eps, e)
}

// ErrTooMany is a log of more episodes than MaxEpisodes.
var ErrTooMany = fmt.Errorf("more than %d episodes: an episodes file holds at most that many", MaxEpisodes)

// WriteTo writes the header and the episodes, one JSON object a line.
func (l *Log) WriteTo(w io.Writer) (int64, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.over {
		return 0, ErrTooMany
	}
	slices.SortFunc(l.eps, func(a, b Episode) int {
		return cmp.Or(cmp.Compare(a.Agent, b.Agent), cmp.Compare(l.variants[a.Variant], l.variants[b.Variant]))
	})
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	if err := enc.Encode(l.h); err != nil {
		return 0, err
	}
	for _, e := range l.eps {
		if err := enc.Encode(e); err != nil {
			return 0, err
		}
	}
	return buf.WriteTo(w)
}

// File is an episodes file read back.
type File struct {
	Header   Header
	Episodes []Episode
}

// ReadFile reads an episodes file, bounded in size and count; errors say
// the line.
func ReadFile(path string) (*File, error) {
	data, err := boundedio.ReadFile(path, MaxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("episodes: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("episodes %s: %w", path, err)
	}
	return f, nil
}

// Parse reads an episodes file's bytes.
func Parse(data []byte) (*File, error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	f := &File{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if line == 1 {
			if err := dec.Decode(&f.Header); err != nil {
				return nil, fmt.Errorf("line 1: not an episodes header: %v", err)
			}
			if f.Header.Version != FileVersion {
				return nil, fmt.Errorf("line 1: episodes format %d, this herd reads %d", f.Header.Version, FileVersion)
			}
			if len(f.Header.Variants) == 0 {
				return nil, errors.New("line 1: no variants")
			}
			continue
		}
		var e Episode
		if err := dec.Decode(&e); err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		if !slices.Contains(f.Header.Variants, e.Variant) {
			return nil, fmt.Errorf("line %d: variant %q is not one of the run's (%v)", line, e.Variant, f.Header.Variants)
		}
		if e.Goal == "" || e.Class == "" {
			return nil, fmt.Errorf("line %d: an episode needs its goal and class", line)
		}
		if len(f.Episodes) >= MaxEpisodes {
			return nil, ErrTooMany
		}
		f.Episodes = append(f.Episodes, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("line %d: %v", line+1, err)
	}
	if line == 0 {
		return nil, errors.New("empty: no header line")
	}
	if len(f.Episodes) == 0 {
		return nil, errors.New("no episodes")
	}
	return f, nil
}
