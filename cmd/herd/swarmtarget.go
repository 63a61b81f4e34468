package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
	"github.com/herd-sh/herd/worlds"
)

// transportOptions are herd swarm's flags for a target reached over a real
// transport: which hosts may be loaded, how agents arrive, the limits.
type transportOptions struct {
	worldFile   string
	rate        float64
	duration    time.Duration
	arrival     string
	maxInFlight int
	allowHosts  []string
	callTimeout time.Duration
	token       string
	allowWrites bool
}

// defaultInFlight is the agents at once over a transport when neither
// --max-in-flight nor --workers says: a network round trip leaves a core
// idle, so more agents than cores keep the target busy.
const defaultInFlight = 16

func (o *transportOptions) addFlags(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&o.worldFile, "world", "", "the world file a served herd target runs (default: the built-in world it names)")
	f.Float64Var(&o.rate, "rate", 0, "start this many agents a second (over a transport; default: as fast as --max-in-flight allows)")
	f.DurationVar(&o.duration, "duration", 0, "stop starting agents after this long (over a transport); those running finish")
	f.StringVar(&o.arrival, "arrival", "", "arrival profile: constant (the default, at --rate), ramp:FROM-TO (agents a second, over --duration), spike or spike:PEAK")
	f.IntVar(&o.maxInFlight, "max-in-flight", 0, fmt.Sprintf("most agents running at once over a transport (default: --workers, or %d)", defaultInFlight))
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "allow this non-loopback target host (repeatable); herd loads only this machine otherwise")
	f.DurationVar(&o.callTimeout, "call-timeout", target.DefaultCallTimeout, "longest one call may take over a transport before it counts as a timeout")
	f.StringVar(&o.token, "token", "", "bearer token for an HTTP target (default: $"+tokenEnv+")")
	f.BoolVar(&o.allowWrites, "allow-writes", false, "external servers: also call tools that may write (never without this flag)")
}

// transportOnlyFlags are the flags only a target over MCP uses. Given to
// an in-process run they would be ignored — and written into its
// reproducing and replay commands, which herd replay would then refuse.
var transportOnlyFlags = []string{"rate", "duration", "arrival", "max-in-flight", "call-timeout", "allow-host", "token"}

// transportLoad checks the flags that depend on the kind of target, before
// anything is contacted: it returns the Load of a run over a transport
// (nil for an in-process run) and sets o.agents for a duration-bound one.
func (o *swarmCmdOptions) transportLoad(cmd *cobra.Command, spec target.Spec) (*swarm.Load, error) {
	if cmd.Flags().Changed("world") && (spec.Kind == target.KindInProcess || spec.Kind == target.KindServe) {
		return nil, usageErrf("--world: %s names its world already; --world says which world a running herd server (http://… or mcp+stdio:…) serves", spec.Raw)
	}
	if spec.Kind != target.KindInProcess {
		load, agents, err := o.loadConfig(cmd)
		if err != nil {
			return nil, err
		}
		o.agents = agents
		return load, nil
	}
	for _, name := range transportOnlyFlags {
		if cmd.Flags().Changed(name) {
			return nil, usageErrf("--%s: flags for a target over MCP need a real transport, and %s runs in-process, on virtual time (try serve:%s)", name, spec.Raw, spec.Raw)
		}
	}
	return nil, nil
}

// loadConfig checks the load flags and returns the run's Load and the
// number of agents it plans.
func (o *swarmCmdOptions) loadConfig(cmd *cobra.Command) (*swarm.Load, int, error) {
	t := &o.transport
	agents := o.agents
	switch {
	case t.rate < 0 || math.IsNaN(t.rate) || t.rate > swarm.MaxRate:
		return nil, 0, usageErrf("--rate: must be between 0 and %d agents a second, got %g", swarm.MaxRate, t.rate)
	case t.duration < 0 || t.duration > swarm.MaxDuration:
		return nil, 0, usageErrf("--duration: must be between 0 and %s, got %s", swarm.MaxDuration, t.duration)
	case cmd.Flags().Changed("max-in-flight") && (t.maxInFlight < 1 || t.maxInFlight > swarm.MaxInFlight):
		return nil, 0, usageErrf("--max-in-flight: must be between 1 and %d, got %d", swarm.MaxInFlight, t.maxInFlight)
	case t.callTimeout <= 0 || t.callTimeout > time.Hour:
		return nil, 0, usageErrf("--call-timeout: must be between 0 and 1h, got %s", t.callTimeout)
	}
	l := &swarm.Load{Duration: t.duration, MaxInFlight: t.maxInFlight}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = defaultInFlight
		if cmd.Flags().Changed("workers") {
			l.MaxInFlight = o.workers
		}
	}
	var pacer *swarm.ProfilePacer
	if t.rate > 0 || t.arrival != "" {
		p, err := swarm.ParseArrival(t.arrival, t.rate, t.duration)
		if err != nil {
			return nil, 0, usageErr(err)
		}
		if peak := peakRate(p, t.duration); peak > swarm.MaxRate {
			return nil, 0, usageErrf("--arrival: peaks at %g agents a second, above the cap of %d", peak, swarm.MaxRate)
		}
		pacer, l.Pacer = p, p
	}
	if !cmd.Flags().Changed("agents") && t.duration > 0 {
		// A duration-bound run starts as many agents as fit in it.
		if pacer != nil {
			agents = int(math.Ceil(pacer.Hits(t.duration) - 1e-9))
		} else {
			agents = swarm.MaxLoadAgents
		}
		// --max-agents caps these too: the user never typed an --agents
		// it could be measured against.
		agents = min(max(agents, 1), swarm.MaxLoadAgents, o.maxAgents)
	}
	return l, agents, nil
}

// peakRate is the highest rate a profile reaches within d.
func peakRate(p swarm.Pacer, d time.Duration) float64 {
	if d <= 0 {
		return p.Rate(0)
	}
	peak := p.Rate(d - 1)
	for k := range 100 {
		peak = max(peak, p.Rate(d*time.Duration(k)/100))
	}
	return peak
}

// servedTarget is a herd world reached over a transport, before the run's
// configuration is known: what the server said about itself and how to
// make the run's targets from it.
type servedTarget struct {
	spec  target.Spec
	hc    *http.Client
	info  *control.WorldDoc // HTTP and stdio: the served world
	stdio *target.Stdio     // stdio: the first process
}

// close ends the first stdio process, unless a target took it over.
func (st *servedTarget) close() {
	if st.stdio != nil {
		_ = st.stdio.Close()
	}
}

// prepareTarget refuses hosts that are not allowed, and asks a running
// server what it is. It sets o.world to the world reference the run's
// configuration resolves. external is true for an MCP server that is not a
// herd world (no control plane).
func (o *swarmCmdOptions) prepareTarget(ctx context.Context, cmd *cobra.Command, spec target.Spec) (st *servedTarget, external bool, err error) {
	st = &servedTarget{spec: spec}
	if spec.Kind == target.KindInProcess {
		o.world = spec.World
		return st, false, nil
	}
	token := o.transport.token
	if !cmd.Flags().Changed("token") {
		token = os.Getenv(tokenEnv)
	}
	st.hc = target.NewHTTPClient(target.Options{AllowHosts: o.transport.allowHosts, Token: token, MaxConns: max(o.transport.maxInFlight, o.workers, defaultInFlight)})
	switch spec.Kind {
	case target.KindServe:
		o.world = spec.World
		return st, false, nil
	case target.KindHTTP:
		if err := target.CheckHost(spec.URL, o.transport.allowHosts); err != nil {
			return nil, false, usageErr(err)
		}
		info, err := target.ProbeHTTP(ctx, spec.URL, st.hc)
		if err != nil {
			return nil, false, codeErr(exitUnreachable, err)
		}
		if info == nil {
			return st, true, nil
		}
		st.info = info
	case target.KindStdio:
		s, err := target.StartStdio(ctx, spec.Command, st.hc, o.targetOptions())
		if err != nil {
			return nil, false, codeErr(exitUnreachable, err)
		}
		st.stdio = s
		if !s.IsHerd() {
			return st, true, nil
		}
		if s.Control() == nil {
			s.Close()
			return nil, false, usageErrf("%s: herd serve over stdio needs its control plane to judge end states: add --control 127.0.0.1:0 to the command", spec.Raw)
		}
		info, err := s.Control().World(ctx)
		if err != nil {
			s.Close()
			return nil, false, codeErr(exitUnreachable, err)
		}
		st.info = &info
	}
	// A served herd world: run the world it serves.
	o.world = o.transport.worldFile
	if o.world == "" {
		o.world = worlds.Prefix + st.info.World
	}
	if !cmd.Flags().Changed("faults") {
		o.faults = st.info.Faults
	}
	if len(o.variants) == 0 {
		o.variants = []string{st.info.Variant}
	}
	return st, false, nil
}

func (o *swarmCmdOptions) targetOptions() target.Options {
	return target.Options{AllowHosts: o.transport.allowHosts, CallTimeout: o.transport.callTimeout,
		MaxConns: max(o.transport.maxInFlight, defaultInFlight)}
}

// targets makes the run's targets, one per variant, now that the world,
// seed, variants and fault profile are known. close ends them all (the
// first stdio process is st.close's).
func (st *servedTarget) targets(ctx context.Context, o *swarmCmdOptions, cfg *swarm.Config) (close func(), err error) {
	var made []*target.Served
	close = func() {
		for _, t := range made {
			_ = t.Close()
		}
	}
	defer func() {
		if err != nil {
			close()
		}
	}()
	variants := cfg.Variants
	opts := o.targetOptions()
	opts.MaxConns = cfg.Load.MaxInFlight
	switch st.spec.Kind {
	case target.KindServe:
		for _, v := range variants {
			t, err := swarm.ServeLocal(cfg.World, cfg.Seed, v, cfg.Profile.Name, st.hc, opts)
			if err != nil {
				return close, usageErr(err)
			}
			made = append(made, t)
		}
	case target.KindHTTP, target.KindStdio:
		if len(variants) > 1 {
			return close, usageErrf("--variant: %s shows one variant (%s); use serve:%s to compare variants", st.spec.Raw, st.info.Variant, o.world)
		}
		if err := target.CheckWorld(st.spec.Raw, *st.info, cfg.World, variants[0]); err != nil {
			return close, usageErr(err)
		}
		if cfg.Profile.Name != st.info.Faults {
			if st.spec.Kind == target.KindStdio {
				return close, usageErrf("--faults: the command serves faults %s; put --faults %s in the command instead", st.info.Faults, cfg.Profile.Name)
			}
			// Asked for explicitly: switch the server (every session on it).
			if err := control.NewClient(control.URL(st.spec.URL), st.hc).SetFaults(ctx, cfg.Profile.Name); err != nil {
				return close, codeErr(exitUnreachable, err)
			}
		}
		var t *target.Served
		if st.spec.Kind == target.KindHTTP {
			t = target.HerdHTTP(st.spec.URL, cfg.World, cfg.Profile.Name, st.hc, opts)
		} else {
			if t, err = st.stdio.Served(st.spec.Raw, cfg.World, cfg.Profile.Name); err != nil {
				return close, usageErr(err)
			}
		}
		made = append(made, t)
	}
	cfg.Targets = made
	cfg.TargetName = st.spec.Raw
	return close, nil
}
