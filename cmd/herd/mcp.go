package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/herdmcp"
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
)

// mcpOptions are herd mcp's flags.
type mcpOptions struct {
	worlds       []string
	descriptions []string
	servers      []string
	resultsDir   string
	maxAgents    int
	maxRunTime   time.Duration
	maxRuns      int
	workers      int
	http         string
	allowRemote  bool
	token        string
	logLevel     string
	tokenSet     bool
}

// Environment variables that configure herd mcp where a client's
// configuration makes flags awkward; a flag wins over its variable.
const (
	mcpWorldsEnv       = "HERD_MCP_WORLDS"       // comma-separated world references
	mcpDescriptionsEnv = "HERD_MCP_DESCRIPTIONS" // comma-separated [NAME=]PATH
	mcpResultsEnv      = "HERD_MCP_RESULTS_DIR"
)

func newMCPCmd(s *streams) *cobra.Command {
	o := &mcpOptions{}
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Serve herd itself as an MCP server: run swarms, lint and compare wordings from an agent's chat",
		Long: `Serve herd's own commands as MCP tools, so that a coding agent (Claude Code,
Cursor, any MCP client) can list worlds, lint descriptions, run swarms, compare
two wordings, explain a persona's choice and read saved results from a chat.

What the tools may touch is fixed here, never by a tool argument: the worlds
(--world, default every built-in), the descriptions files (--descriptions), the
folder results are written to and read from (--results-dir), and the caps on
agents, run time and runs at once. A request over a cap is refused with a
message naming the flag that raises it. Every run reports its seed and the
exact herd swarm command that reproduces it.

Over stdio (the default) stdout carries only MCP; logs go to stderr. With
--http, MCP is served at http://ADDR/mcp, loopback only unless --allow-remote,
with herd serve's Host/Origin checks and optional bearer token. See docs/mcp.md.`,
		Example: `  herd mcp --world mock:crm
  herd mcp --world mock:crm --world ./my.yaml --descriptions mine=./mine.yaml --results-dir ./herd-results
  herd mcp --http 127.0.0.1:8940 --max-agents 20000
  claude mcp add herd -- herd mcp --world mock:crm`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			o.tokenSet = f.Changed("token")
			if !f.Changed("world") {
				o.worlds = splitEnv(mcpWorldsEnv)
			}
			if !f.Changed("descriptions") {
				o.descriptions = splitEnv(mcpDescriptionsEnv)
			}
			if !f.Changed("results-dir") {
				if dir := os.Getenv(mcpResultsEnv); dir != "" {
					o.resultsDir = dir
				}
			}
			return runMCP(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&o.worlds, "world", nil, "a world the tools may use: mock:NAME or a world file (repeatable; default: every built-in; or $"+mcpWorldsEnv+")")
	f.StringArrayVar(&o.descriptions, "descriptions", nil, "a descriptions file the tools may use, as NAME=PATH or PATH (named after the file) (repeatable; or $"+mcpDescriptionsEnv+")")
	f.StringArrayVar(&o.servers, "server", nil, "an external MCP server lint_server may list and lint, as NAME=TARGET: mcp+stdio:COMMAND ARGS… or a loopback http:// URL (repeatable)")
	f.StringVar(&o.resultsDir, "results-dir", defaultResultsDir(), "the folder runs are saved to, and the only one results are read from (or $"+mcpResultsEnv+")")
	f.IntVar(&o.maxAgents, "max-agents", herdmcp.DefaultMaxAgents, "refuse a run of more agents than this")
	f.DurationVar(&o.maxRunTime, "max-run-time", herdmcp.DefaultMaxRunTime, "stop a run still going after this long (its finished episodes are kept, marked partial)")
	f.IntVar(&o.maxRuns, "max-runs", herdmcp.DefaultMaxRuns, "runs going at once; one more is refused")
	f.IntVar(&o.workers, "workers", 0, "worker goroutines per run (default: GOMAXPROCS)")
	f.StringVar(&o.http, "http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8940, :0 for any free port) instead of stdio")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback address and non-loopback Host/Origin headers (use with --token)")
	f.StringVar(&o.token, "token", "", "require Authorization: Bearer TOKEN over HTTP (default: $"+tokenEnv+")")
	f.StringVar(&o.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	return cmd
}

// defaultResultsDir is the user's cache folder's herd/mcp-results, or
// ./herd-results when the system names no cache folder.
func defaultResultsDir() string {
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "herd", "mcp-results")
	}
	return "herd-results"
}

// splitEnv is a comma-separated environment variable's items.
func splitEnv(name string) []string {
	var out []string
	for _, part := range strings.Split(os.Getenv(name), ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// config turns the flags into the server's configuration.
func (o *mcpOptions) config() (herdmcp.Config, error) {
	cfg := herdmcp.Config{Worlds: o.worlds, ResultsDir: o.resultsDir, MaxAgents: o.maxAgents, MaxRunTime: o.maxRunTime,
		MaxRuns: o.maxRuns, Workers: o.workers,
		Caps: herdmcp.CapNames{MaxAgents: "--max-agents", MaxRunTime: "--max-run-time", MaxRuns: "--max-runs",
			Worlds: "--world", Descriptions: "--descriptions", Servers: "--server"},
		Commands: herdmcp.Commands{Swarm: swarmCommandLine, Replay: replayCommand}}
	if o.maxAgents < 1 || o.maxAgents > swarm.MaxAgents {
		return cfg, usageErrf("--max-agents: must be between 1 and %d, got %d", swarm.MaxAgents, o.maxAgents)
	}
	if o.maxRunTime <= 0 {
		return cfg, usageErrf("--max-run-time: must be positive, got %s", o.maxRunTime)
	}
	if o.maxRuns < 1 {
		return cfg, usageErrf("--max-runs: must be at least 1, got %d", o.maxRuns)
	}
	if o.workers < 0 || o.workers > swarm.MaxWorkers {
		return cfg, usageErrf("--workers: must be between 1 and %d, got %d", swarm.MaxWorkers, o.workers)
	}
	if strings.TrimSpace(o.resultsDir) == "" {
		return cfg, usageErrf("--results-dir: must not be empty")
	}
	for _, d := range o.descriptions {
		nf, err := herdmcp.ParseNamedFile(d)
		if err != nil {
			return cfg, usageErrf("--descriptions: %v", err)
		}
		if _, err := os.Stat(nf.Path); err != nil {
			return cfg, usageErrf("--descriptions: %v", err)
		}
		cfg.Descriptions = append(cfg.Descriptions, nf)
	}
	for _, sv := range o.servers {
		name, spec, ok := strings.Cut(sv, "=")
		if !ok {
			return cfg, usageErrf("--server %q: want NAME=TARGET, e.g. notes=mcp+stdio:node server.js", sv)
		}
		if err := checkLintTarget(spec); err != nil {
			return cfg, usageErrf("--server %s: %v", name, err)
		}
		cfg.Servers = append(cfg.Servers, herdmcp.NamedFile{Name: strings.TrimSpace(name), Path: strings.TrimSpace(spec)})
	}
	cfg.ListServerTools = listServerTools
	return cfg, nil
}

// checkLintTarget accepts an MCP server herd can reach to list its tools:
// a command over stdio, or an http:// URL on this machine (herd mcp has
// no --allow-host: a chat never aims herd at another machine).
func checkLintTarget(spec string) error {
	ts, err := target.Parse(spec)
	if err != nil {
		return err
	}
	switch ts.Kind {
	case target.KindStdio:
		return nil
	case target.KindHTTP:
		return target.CheckHost(ts.URL, nil)
	}
	return fmt.Errorf("%q is not an MCP server: want mcp+stdio:COMMAND ARGS… or an http:// URL", spec)
}

// listServerTools reaches a configured server (the loopback rule of herd
// swarm applies) and describes its tools to the linter, as herd swarm
// does for the servers it tests.
func listServerTools(ctx context.Context, spec string) (string, []lint.Tool, error) {
	ts, err := target.Parse(spec)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	reached, err := swarm.Reach(ctx, ts, target.Options{CallTimeout: target.DefaultCallTimeout, MaxConns: 1}, serve.StartLocalWorld)
	if err != nil {
		return "", nil, err
	}
	defer reached.Close()
	ext := reached.ExternalTarget()
	defer ext.Close()
	server, tools, err := ext.Server(ctx)
	if err != nil {
		return "", nil, err
	}
	name := ts.Raw
	if server != nil && server.Name != "" {
		name = server.Name
	}
	return name, lintTools(tools), nil
}

// swarmCommandLine is the herd swarm line of a run the MCP server makes:
// the same function renders it as for herd swarm itself, so the line
// reproduces the run exactly.
func swarmCommandLine(spec swarm.ReplaySpec, variants []string) string {
	o := &swarmCmdOptions{targetArg: spec.World, transport: transportOptions{callTimeout: target.DefaultCallTimeout}}
	o.goals, o.mix, o.personas, o.descriptions = spec.Goals, spec.Mix, spec.Personas, spec.Descriptions
	rs := runSettings{Settings: swarm.Settings{World: spec.World, Variants: variants, Faults: spec.Faults}, agents: spec.Agents}
	return commandLine(o, rs, spec.Seed)
}

// runMCP serves herd as an MCP server with the options as parsed (tests
// call it without cobra).
func runMCP(ctx context.Context, s *streams, o *mcpOptions) error {
	level, ok := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[o.logLevel]
	if !ok {
		return usageErrf("--log-level: want debug, info, warn or error, got %q", o.logLevel)
	}
	log := slog.New(slog.NewTextHandler(s.err, &slog.HandlerOptions{Level: level})).With("cmd", "mcp")
	cfg, err := o.config()
	if err != nil {
		return err
	}
	token := o.token
	if !o.tokenSet {
		token = os.Getenv(tokenEnv)
	}
	if o.tokenSet && strings.TrimSpace(o.token) == "" {
		return usageErrf("--token: must not be empty")
	}
	var httpAddr string
	if o.http != "" {
		if httpAddr, err = serve.CheckListenAddr(o.http, o.allowRemote); err != nil {
			return listenAddrErr("http", err)
		}
	} else if o.allowRemote || o.tokenSet {
		return usageErrf("--allow-remote and --token are for --http; over stdio only the client that started herd mcp talks to it")
	}
	srv, err := herdmcp.New(cfg, log)
	if err != nil {
		return usageErr(err)
	}
	log.Info("herd mcp", "worlds", srv.Worlds(), "results", srv.ResultsDir(), "max_agents", o.maxAgents)
	if httpAddr == "" {
		if err := srv.ServeStdio(ctx, s.in, s.out); err != nil {
			return codeErr(exitUnreachable, err)
		}
		return nil
	}
	ln, err := net.Listen("tcp", httpAddr)
	if err != nil {
		return usageErrf("--http: %v", err)
	}
	if o.allowRemote && token == "" {
		log.Warn("--allow-remote without --token: anyone who can reach this address can run swarms here")
	}
	url := "http://" + ln.Addr().String() + herdmcp.MCPPath
	// The URL on stdout is for scripts; everything else goes to stderr.
	fmt.Fprintln(s.out, url)
	log.Info("serving over Streamable HTTP", "mcp", url)
	hs := &http.Server{Handler: srv.Handler(herdmcp.HTTPOptions{Token: token, AllowRemote: o.allowRemote}),
		ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err := <-errc:
		return codeErr(exitUnreachable, fmt.Errorf("serving %s: %w", ln.Addr(), err))
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(shutdown); err != nil {
		_ = hs.Close()
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return codeErr(exitUnreachable, err)
	}
	log.Info("stopped")
	return nil
}
