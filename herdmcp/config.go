// Package herdmcp is herd itself as an MCP server: tools that list and
// describe worlds, lint their descriptions, run swarms, compare two
// wordings, explain a persona's choice and read saved results, for a
// coding agent working from a chat.
//
// What the tools may touch is fixed by Config, never by a tool argument:
// the worlds and descriptions files a tool names are picked by name from
// the configured lists, results are written only into the configured
// folder, and agents and run time are bounded by configured caps. A tool
// argument is never a URL, a host or a file path.
//
// The package sits beside cmd: it drives the same library calls the
// commands do (swarm.NewPlan, report.Terminal, lint.Lint, …) in-process.
// Words of the command line (the reproducing "herd swarm …" line) are
// rendered by the caller through Config.Commands, so that flag words stay
// in cmd and the line is exactly the one herd swarm records.
package herdmcp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

// Defaults for Config fields left at zero.
const (
	DefaultMaxAgents  = 100_000
	DefaultMaxRunTime = 10 * time.Minute
	DefaultMaxRuns    = 1
)

// Config is what the server may use. Its caller (the herd mcp command)
// fills it from flags and the environment; tools only choose within it.
type Config struct {
	// Worlds are the world references tools may use ("mock:crm", a world
	// file path). Empty: every built-in world.
	Worlds []string
	// Descriptions are the descriptions files tools may use, by name.
	Descriptions []NamedFile
	// Servers are the external MCP servers whose tool lists lint_server
	// may lint, by name (Path holds the target, e.g. mcp+stdio:node
	// server.js or a loopback http:// URL). ListServerTools reaches one;
	// the caller checks each target when it configures it.
	Servers         []NamedFile
	ListServerTools func(ctx context.Context, target string) (server string, tools []lint.Tool, err error)
	// ResultsDir is the folder every run's results document is written
	// to, and the only folder results are read from. Required.
	ResultsDir string
	// MaxAgents caps a run's agents (zero: DefaultMaxAgents; never above
	// swarm.MaxAgents).
	MaxAgents int
	// MaxRunTime caps a run's wall time: a run still going then is
	// stopped and reported partial (zero: DefaultMaxRunTime).
	MaxRunTime time.Duration
	// MaxRuns caps the runs going at once (zero: DefaultMaxRuns); one
	// more is refused rather than queued, so a client is never left
	// waiting without a word.
	MaxRuns int
	// Workers is the worker goroutines a run uses (zero: GOMAXPROCS).
	Workers int
	// Caps names the configuration settings behind the caps, as the
	// user sets them (a flag, an environment variable), so that a refusal
	// says how to raise the cap. Empty fields read as the field names.
	Caps CapNames
	// Commands render the command lines an answer reports (the run's
	// reproducing line, each trace's replay line). Required.
	Commands Commands
}

// NamedFile is a configured file, by the name tools know it by.
type NamedFile struct {
	Name string
	Path string
}

// CapNames are how the user sets each cap (e.g. "--max-agents").
type CapNames struct {
	MaxAgents, MaxRunTime, MaxRuns, Worlds, Descriptions, Servers string
}

// Commands render command lines for a run, so that an answer can say
// exactly how to run it again.
type Commands struct {
	// Swarm is the line that reproduces a run: spec as for a replay (no
	// agent, no variant) and the variants as the request gave them (none:
	// the world's first).
	Swarm func(spec swarm.ReplaySpec, variants []string) string
	// Replay is the line that replays one agent (swarm.Config.ReplayCommand).
	Replay func(swarm.ReplaySpec) string
}

// nameRE is what a descriptions file's name may be: a word tools can say
// without it reading as a path.
var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// ParseNamedFile reads NAME=PATH, or PATH alone (its name is then the file
// name without its extension: mine.yaml is "mine").
func ParseNamedFile(s string) (NamedFile, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok {
		path = s
		name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	name, path = strings.TrimSpace(name), strings.TrimSpace(path)
	if path == "" {
		return NamedFile{}, fmt.Errorf("%q: no file (want NAME=PATH or PATH)", s)
	}
	if !nameRE.MatchString(name) || strings.Contains(name, "..") {
		return NamedFile{}, fmt.Errorf("%q: name %q must be letters, digits, '.', '_' or '-' (at most 64), e.g. mine=%s", s, name, path)
	}
	return NamedFile{Name: name, Path: path}, nil
}

// catalogue is the configuration resolved once: the worlds compiled, the
// caps with their defaults.
type catalogue struct {
	worlds       []configuredWorld
	descriptions []NamedFile
	servers      []NamedFile
	listTools    func(ctx context.Context, target string) (string, []lint.Tool, error)
	resultsDir   string
	maxAgents    int
	maxRunTime   time.Duration
	maxRuns      int
	workers      int
	caps         CapNames
	commands     Commands
}

// configuredWorld is one world tools may use: its reference as configured
// and the world compiled.
type configuredWorld struct {
	ref   string
	world *engine.World
}

// resolve checks the configuration, applies defaults and compiles the
// worlds, so that a bad world file is refused when the server starts, not
// on the first call.
func (c Config) resolve() (*catalogue, error) {
	cat := &catalogue{resultsDir: c.ResultsDir, maxAgents: c.MaxAgents, maxRunTime: c.MaxRunTime,
		maxRuns: c.MaxRuns, workers: c.Workers, caps: c.Caps, commands: c.Commands, listTools: c.ListServerTools}
	if cat.resultsDir == "" {
		return nil, errors.New("ResultsDir: no results folder")
	}
	if c.Commands.Swarm == nil || c.Commands.Replay == nil {
		return nil, errors.New("Commands: both command renderers are needed (every answer reports its replay command)")
	}
	switch {
	case cat.maxAgents == 0:
		cat.maxAgents = DefaultMaxAgents
	case cat.maxAgents < 1 || cat.maxAgents > swarm.MaxAgents:
		return nil, fmt.Errorf("MaxAgents: must be between 1 and %d, got %d", swarm.MaxAgents, cat.maxAgents)
	}
	switch {
	case cat.maxRunTime == 0:
		cat.maxRunTime = DefaultMaxRunTime
	case cat.maxRunTime < 0:
		return nil, fmt.Errorf("MaxRunTime: must not be negative, got %s", cat.maxRunTime)
	}
	switch {
	case cat.maxRuns == 0:
		cat.maxRuns = DefaultMaxRuns
	case cat.maxRuns < 0:
		return nil, fmt.Errorf("MaxRuns: must not be negative, got %d", cat.maxRuns)
	}
	if cat.workers < 0 || cat.workers > swarm.MaxWorkers {
		return nil, fmt.Errorf("Workers: must be between 0 and %d, got %d", swarm.MaxWorkers, cat.workers)
	}
	refs := c.Worlds
	if len(refs) == 0 {
		refs = worlds.Names()
	}
	seen := map[string]string{}
	for _, ref := range refs {
		w, err := worlds.Resolve(ref)
		if err != nil {
			return nil, fmt.Errorf("world %s: %w", ref, err)
		}
		if prev, dup := seen[w.Name]; dup {
			return nil, fmt.Errorf("world %s: its name %q is %s's too; tools name worlds by name, so each must be unique", ref, w.Name, prev)
		}
		seen[w.Name] = ref
		cat.worlds = append(cat.worlds, configuredWorld{ref: ref, world: w})
	}
	names := map[string]bool{}
	for _, d := range c.Descriptions {
		if !nameRE.MatchString(d.Name) {
			return nil, fmt.Errorf("descriptions %s: name %q must be letters, digits, '.', '_' or '-'", d.Path, d.Name)
		}
		if names[d.Name] {
			return nil, fmt.Errorf("descriptions %s: name %q given twice", d.Path, d.Name)
		}
		names[d.Name] = true
		cat.descriptions = append(cat.descriptions, d)
	}
	if len(c.Servers) > 0 && c.ListServerTools == nil {
		return nil, errors.New("ListServerTools: servers are configured, and nothing to reach them with")
	}
	servers := map[string]bool{}
	for _, sv := range c.Servers {
		if !nameRE.MatchString(sv.Name) || servers[sv.Name] {
			return nil, fmt.Errorf("server %s: name %q must be unique, and letters, digits, '.', '_' or '-'", sv.Path, sv.Name)
		}
		servers[sv.Name] = true
		cat.servers = append(cat.servers, sv)
	}
	cat.caps = cat.caps.orFields()
	return cat, nil
}

// orFields fills the names left empty with the Config field names.
func (n CapNames) orFields() CapNames {
	or := func(s, d string) string {
		if s == "" {
			return d
		}
		return s
	}
	return CapNames{MaxAgents: or(n.MaxAgents, "MaxAgents"), MaxRunTime: or(n.MaxRunTime, "MaxRunTime"),
		MaxRuns: or(n.MaxRuns, "MaxRuns"), Worlds: or(n.Worlds, "Worlds"), Descriptions: or(n.Descriptions, "Descriptions"),
		Servers: or(n.Servers, "Servers")}
}

// world finds a configured world by its name ("crm") or its reference as
// configured ("mock:crm"); any other is an error that lists the worlds
// configured and how to add one.
func (c *catalogue) world(name string) (configuredWorld, error) {
	name = strings.TrimSpace(name)
	for _, cw := range c.worlds {
		if cw.world.Name == name || cw.ref == name {
			return cw, nil
		}
	}
	if name == "" {
		return configuredWorld{}, fmt.Errorf("world: not given; the configured worlds are %s", c.worldList())
	}
	return configuredWorld{}, fmt.Errorf("world %q is not configured; the configured worlds are %s (the server's %s setting decides which)", name, c.worldList(), c.caps.Worlds)
}

// worldList is "crm (mock:crm), shop (mock:shop)".
func (c *catalogue) worldList() string {
	parts := make([]string, len(c.worlds))
	for i, cw := range c.worlds {
		parts[i] = cw.world.Name
		if cw.ref != cw.world.Name {
			parts[i] += " (" + cw.ref + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// descriptionsFile finds a configured descriptions file by name ("" is
// none).
func (c *catalogue) descriptionsFile(name string) (NamedFile, error) {
	if name == "" {
		return NamedFile{}, nil
	}
	for _, d := range c.descriptions {
		if d.Name == name {
			return d, nil
		}
	}
	if len(c.descriptions) == 0 {
		return NamedFile{}, fmt.Errorf("descriptions %q is not configured; none is (the server's %s setting adds one)", name, c.caps.Descriptions)
	}
	names := make([]string, len(c.descriptions))
	for i, d := range c.descriptions {
		names[i] = d.Name
	}
	return NamedFile{}, fmt.Errorf("descriptions %q is not configured; the configured ones are %s (the server's %s setting decides which)", name, strings.Join(names, ", "), c.caps.Descriptions)
}

// server finds a configured external server by name.
func (c *catalogue) server(name string) (NamedFile, error) {
	for _, sv := range c.servers {
		if sv.Name == name {
			return sv, nil
		}
	}
	if len(c.servers) == 0 {
		return NamedFile{}, fmt.Errorf("server %q is not configured; none is (the server's %s setting adds one)", name, c.caps.Servers)
	}
	names := make([]string, len(c.servers))
	for i, sv := range c.servers {
		names[i] = sv.Name
	}
	return NamedFile{}, fmt.Errorf("server %q is not configured; the configured ones are %s (the server's %s setting decides which)", name, strings.Join(names, ", "), c.caps.Servers)
}
