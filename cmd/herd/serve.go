package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/internal/field"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/worlds"
)

// serveOptions are herd serve's flags.
type serveOptions struct {
	world        string
	seed         uint64
	faults       string
	variant      string
	http         string
	allowRemote  bool
	token        string
	control      string
	maxSessions  int
	idleTimeout  time.Duration
	journalLimit int
	maxFaultWait time.Duration
	logLevel     string
	cpuProfile   string // hidden --cpuprofile FILE
	// seedSet and tokenSet record whether --seed and --token were given:
	// --seed 0 is not the world's seed, and an empty --token is an error
	// where no --token reads $HERD_TOKEN.
	seedSet, tokenSet bool
	// httpSet and controlSet record whether --http and --control were
	// given: an empty address is a mistake (an unset variable in a
	// script), not a request for stdio or for no control plane.
	httpSet, controlSet bool
}

// tokenEnv supplies --token when the flag is not given: a token on the
// command line is visible to every user of the machine in ps.
const tokenEnv = "HERD_TOKEN"

func newServeCmd(s *streams) *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve WORLD",
		Short: "Serve a world as a real MCP server (stdio or Streamable HTTP) with a control plane",
		Long: `Serve a world (mock:crm, … or a world file) as an MCP server. Each MCP session
gets its own copy of the seeded world; tool errors and injected faults come back
as tool results with isError, faults really wait, and a control plane (HTTP,
under /control) resets sessions, reads their end state and journal, snapshots
and restores them, and switches fault profiles — so a test in any language can
drive a real agent against the world and assert on what it did.

Over stdio (the default) stdout carries only MCP; logs go to stderr. With
--http, MCP is served at http://ADDR/mcp and the control plane at
http://ADDR/control, and the MCP URL is printed on stdout.

Only loopback addresses are served unless --allow-remote; requests whose Host
or Origin is not loopback are refused (DNS-rebinding protection). --token
(or HERD_TOKEN) requires "Authorization: Bearer TOKEN" on /mcp and /control.
See docs/serve.md.`,
		Example: `  herd serve mock:crm
  herd serve mock:crm --http 127.0.0.1:8931 --faults hostile
  herd serve mock:shop --control 127.0.0.1:8932 --seed 7 --variant ambiguous
  claude mcp add crm -- herd serve mock:crm`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.world = args[0]
			o.seedSet, o.tokenSet = cmd.Flags().Changed("seed"), cmd.Flags().Changed("token")
			o.httpSet, o.controlSet = cmd.Flags().Changed("http"), cmd.Flags().Changed("control")
			return runServe(cmd.Context(), s, o)
		},
	}
	f := cmd.Flags()
	f.Uint64Var(&o.seed, "seed", 0, "seed of the world's records (default: the world's seed)")
	f.StringVar(&o.faults, "faults", engine.NoFaults, "fault profile: none, realistic, hostile, or one the world defines (switchable at run time via POST /control/faults)")
	f.StringVar(&o.variant, "variant", "", "tool description variant (default: the world's first)")
	f.StringVar(&o.http, "http", "", "serve Streamable HTTP on ADDR (e.g. 127.0.0.1:8931, :0 for any free port) instead of stdio")
	f.BoolVar(&o.allowRemote, "allow-remote", false, "allow a non-loopback address and non-loopback Host/Origin headers (use with --token)")
	f.StringVar(&o.token, "token", "", "require Authorization: Bearer TOKEN on /mcp and /control (default: $"+tokenEnv+")")
	f.StringVar(&o.control, "control", "", "also serve the control plane alone on ADDR (with stdio, the only way to reach it)")
	f.IntVar(&o.maxSessions, "max-sessions", serve.DefaultMaxSessions, "most MCP sessions served at once; at the limit the one idle the longest makes room; as many ended ones stay readable")
	f.DurationVar(&o.idleTimeout, "idle-timeout", serve.DefaultIdleTimeout, "close an HTTP session with no request for this long (its world stays readable); 0: never")
	f.IntVar(&o.journalLimit, "journal-limit", serve.DefaultJournalLimit, "calls a session's journal keeps, the latest (totals count all); 0: all, and memory grows with every call")
	f.DurationVar(&o.maxFaultWait, "max-fault-wait", serve.DefaultMaxFaultWait, "longest real wait for one call (latency or timeout); 0: never wait")
	f.StringVar(&o.logLevel, "log-level", "info", "stderr log level: debug, info, warn or error")
	addCPUProfileFlag(cmd, &o.cpuProfile)
	return cmd
}

// runServe serves the world with the options as parsed (tests call it
// without cobra).
func runServe(ctx context.Context, s *streams, o *serveOptions) error {
	for _, a := range []struct {
		flag, addr string
		set        bool
	}{{"http", o.http, o.httpSet}, {"control", o.control, o.controlSet}} {
		if a.set && strings.TrimSpace(a.addr) == "" {
			return usageErrf("--%s: the address is empty; give HOST:PORT (e.g. 127.0.0.1:8931, or 127.0.0.1:0 for any free port)", a.flag)
		}
	}
	opts, err := o.serverOptions(s)
	if err != nil {
		return err
	}
	stopProfile, err := startCPUProfile(o.cpuProfile, s.err)
	if err != nil {
		return err
	}
	defer stopProfile()
	var httpAddr, controlAddr string
	if o.http != "" {
		if httpAddr, err = serve.CheckListenAddr(o.http, o.allowRemote); err != nil {
			return listenAddrErr("http", err)
		}
	}
	if o.control != "" {
		if controlAddr, err = serve.CheckListenAddr(o.control, o.allowRemote); err != nil {
			return listenAddrErr("control", err)
		}
	}
	// Listen before announcing anything, so a busy port is a clear error
	// and a printed URL is always live; and before the server is built, so
	// that it can tell every client where its control plane is.
	var httpLn, controlLn net.Listener
	if httpAddr != "" {
		if httpLn, err = net.Listen("tcp", httpAddr); err != nil {
			return usageErrf("--http: %v", err)
		}
		opts.ControlURL = "http://" + httpLn.Addr().String() + control.Path
	}
	if controlAddr != "" {
		if controlLn, err = net.Listen("tcp", controlAddr); err != nil {
			if httpLn != nil {
				httpLn.Close()
			}
			return usageErrf("--control: %v", err)
		}
		opts.ControlURL = "http://" + controlLn.Addr().String() + control.Path
	}
	setGCTarget() // as herd swarm: GOGC, when set, wins
	srv, err := serve.New(opts)
	if err != nil {
		for _, ln := range []net.Listener{httpLn, controlLn} {
			if ln != nil {
				ln.Close()
			}
		}
		return usageErr(err)
	}
	defer srv.Close()
	log := opts.Logger
	if o.allowRemote && opts.Token == "" {
		log.Warn("--allow-remote without --token: anyone who can reach this address can use and reset the world")
	}

	w := srv.World()
	desc := fmt.Sprintf("world %s (seed %d, variant %s, faults %s)", w.Name, opts.Seed, srv.Variant(), opts.Faults)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// Serving: an interrupt shuts the server down cleanly (exit 0); while
	// it was starting, it exited at once.
	defer swarm.Running(ctx)()
	errc := make(chan error, 2)
	running := 0
	if controlLn != nil {
		running++
		log.Info("control plane listening", "url", "http://"+controlLn.Addr().String()+"/control")
		go func() { errc <- srv.ServeListener(ctx, controlLn, srv.ControlHandler()) }()
	}
	if httpLn != nil {
		base := "http://" + httpLn.Addr().String()
		// The URL on stdout is for scripts (a test fixture reads one line);
		// everything else goes to stderr.
		fmt.Fprintln(s.out, base+control.MCPPath)
		log.Info("serving "+desc+" over Streamable HTTP", "mcp", base+control.MCPPath, "control", base+"/control")
		running++
		go func() { errc <- srv.ServeListener(ctx, httpLn, srv.Handler()) }()
	} else {
		log.Info("serving " + desc + " over stdio")
		running++
		go func() {
			err := srv.ServeStdio(ctx, s.in, s.out)
			// The client closed stdin: that is the end of a stdio server,
			// and of its control plane.
			cancel()
			errc <- err
		}()
	}
	var first error
	for range running {
		if err := <-errc; err != nil && first == nil {
			first = err
			cancel()
		}
	}
	srv.Close()
	if first != nil {
		return codeErr(exitUnreachable, first)
	}
	log.Info("stopped")
	return nil
}

// listenAddrErr is a refused --http or --control address; a non-loopback
// one says which flags allow it.
func listenAddrErr(flag string, err error) error {
	if fe, ok := field.As(err); ok && fe.Field == "AllowRemote" {
		return usageErrf("--%s: %v: allow it with --allow-remote (and --token)", flag, fe.Err)
	}
	return usageErrf("--%s: %v", flag, err)
}

// serverOptions checks the flags and builds the server's options.
func (o *serveOptions) serverOptions(s *streams) (serve.Options, error) {
	var opts serve.Options
	level, ok := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[o.logLevel]
	if !ok {
		return opts, usageErrf("--log-level: want debug, info, warn or error, got %q", o.logLevel)
	}
	if o.maxSessions < 1 {
		return opts, usageErrf("--max-sessions: must be at least 1, got %d", o.maxSessions)
	}
	if o.idleTimeout < 0 {
		return opts, usageErrf("--idle-timeout: must not be negative, got %s", o.idleTimeout)
	}
	if o.journalLimit < 0 {
		return opts, usageErrf("--journal-limit: must not be negative, got %d", o.journalLimit)
	}
	if o.maxFaultWait < 0 {
		return opts, usageErrf("--max-fault-wait: must not be negative, got %s", o.maxFaultWait)
	}
	w, err := worlds.Resolve(o.world)
	if err != nil {
		return opts, usageErr(err)
	}
	opts.World = w
	opts.Seed = w.DefaultSeed
	if o.seedSet {
		opts.Seed = o.seed
	}
	if _, err := faultProfile(w, o.faults); err != nil {
		return opts, err
	}
	opts.Faults = o.faults
	if o.variant != "" && !w.HasVariant(o.variant) {
		return opts, usageErrf("--variant: world %s has no variant %q (it has %s)", w.Name, o.variant, strings.Join(w.Variants, ", "))
	}
	opts.Variant = o.variant
	opts.Token = o.token
	if !o.tokenSet {
		opts.Token = os.Getenv(tokenEnv)
	}
	if o.tokenSet && strings.TrimSpace(o.token) == "" {
		return opts, usageErrf("--token: must not be empty")
	}
	opts.AllowRemote = o.allowRemote
	opts.MaxSessions = o.maxSessions
	opts.IdleTimeout = o.idleTimeout
	if o.idleTimeout == 0 {
		opts.IdleTimeout = -1 // never
	}
	opts.JournalLimit = o.journalLimit
	if o.journalLimit == 0 {
		opts.JournalLimit = -1 // all
	}
	opts.MaxFaultWait = o.maxFaultWait
	if o.maxFaultWait == 0 {
		opts.MaxFaultWait = -1 // never wait
	}
	opts.Logger = slog.New(slog.NewTextHandler(s.err, &slog.HandlerOptions{Level: level})).With("cmd", "serve")
	return opts, nil
}
