package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
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
	maxResponse int64
	findCeiling string // a bound: step the rate up until it fails (ceiling.go)
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
	f.StringVar(&o.arrival, "arrival", "", "arrival profile: constant (the default, at --rate), ramp:FROM-TO (agents a second, over --duration), spike or spike:PEAK, churn or churn:SHARE (constant, and SHARE of starts also open a session, read on it and drop it unended; default 0.5)")
	f.IntVar(&o.maxInFlight, "max-in-flight", 0, fmt.Sprintf("most agents running at once over a transport (default: --workers, or %d)", defaultInFlight))
	f.StringArrayVar(&o.allowHosts, "allow-host", nil, "allow this non-loopback target host (repeatable); herd loads only this machine otherwise")
	f.DurationVar(&o.callTimeout, "call-timeout", target.DefaultCallTimeout, "longest one call may take over a transport before it counts as a timeout")
	f.Int64Var(&o.maxResponse, "max-response-bytes", target.DefaultMaxResponseBytes, "largest answer an HTTP target may send (a response body, or one SSE event); a larger one fails the call as a transport error")
	f.StringVar(&o.token, "token", "", "bearer token for an HTTP target (default: $"+tokenEnv+")")
	f.BoolVar(&o.allowWrites, "allow-writes", false, "external servers: also call tools that may write (never without this flag)")
	f.StringVar(&o.findCeiling, "find-ceiling", "", "step the start rate up (from --rate, each step --duration long) until BOUND fails, e.g. 'p99<200ms,errors<1%'; report the last rate within it and the curve")
}

// transportLoad checks the flags that depend on the kind of target, before
// anything is contacted: it returns the Load of a run over a transport
// (nil for an in-process run) and sets rs.agents for a duration-bound one.
func (o *swarmCmdOptions) transportLoad(spec target.Spec, rs *runSettings) (*swarm.Load, error) {
	set := &o.set
	if set.world && (spec.Kind == target.KindInProcess || spec.Kind == target.KindServe) {
		return nil, usageErrf("--world: %s names its world already; --world says which world a running herd server (http://… or mcp+stdio:…) serves", spec.Raw)
	}
	if spec.Kind != target.KindInProcess {
		return o.loadConfig(rs)
	}
	// The flags only a target over MCP uses. Given to an in-process run
	// they would be ignored — and written into its reproducing and replay
	// commands, which herd replay would then refuse.
	for _, f := range []struct {
		name string
		set  bool
	}{{"rate", set.rate}, {"duration", set.duration}, {"arrival", set.arrival}, {"max-in-flight", set.maxInFlight},
		{"call-timeout", set.callTimeout}, {"allow-host", set.allowHost && !o.brain.on()}, {"token", set.token}, {"max-response-bytes", set.maxResponse}} {
		// (--allow-host also lets a model endpoint, --brain-url, be elsewhere.)
		if f.set {
			return nil, usageErrf("--%s: flags for a target over MCP need a real transport, and %s runs in-process, on virtual time (try serve:%s)", f.name, spec.Raw, spec.Raw)
		}
	}
	return nil, nil
}

// loadConfig checks the load flags and returns the run's Load; rs.agents
// becomes the number of agents it plans.
func (o *swarmCmdOptions) loadConfig(rs *runSettings) (*swarm.Load, error) {
	t := &o.transport
	switch {
	case t.rate < 0 || math.IsNaN(t.rate) || t.rate > swarm.MaxRate:
		return nil, usageErrf("--rate: must be between 0 and %d agents a second, got %g", swarm.MaxRate, t.rate)
	case t.duration < 0 || t.duration > swarm.MaxDuration:
		return nil, usageErrf("--duration: must be between 0 and %s, got %s", swarm.MaxDuration, t.duration)
	case o.set.maxInFlight && (t.maxInFlight < 1 || t.maxInFlight > swarm.MaxInFlight):
		return nil, usageErrf("--max-in-flight: must be between 1 and %d, got %d", swarm.MaxInFlight, t.maxInFlight)
	case t.callTimeout <= 0 || t.callTimeout > time.Hour:
		return nil, usageErrf("--call-timeout: must be between 0 and 1h, got %s", t.callTimeout)
	case t.maxResponse != 0 && (t.maxResponse < 1<<10 || t.maxResponse > 1<<30): // 0: the default
		return nil, usageErrf("--max-response-bytes: must be between 1024 and %d (1 GiB), got %d", 1<<30, t.maxResponse)
	}
	l := &swarm.Load{Duration: t.duration, MaxInFlight: t.maxInFlight}
	if l.MaxInFlight == 0 {
		l.MaxInFlight = defaultInFlight
		if o.set.workers {
			l.MaxInFlight = o.workers
		}
	}
	var pacer *swarm.ProfilePacer
	if t.rate > 0 || t.arrival != "" {
		p, err := swarm.ParseArrival(t.arrival, t.rate, t.duration)
		if err != nil {
			return nil, flagErr(err)
		}
		if peak := peakRate(p, t.duration); peak > swarm.MaxRate {
			return nil, usageErrf("--arrival: peaks at %g agents a second, above the cap of %d", peak, swarm.MaxRate)
		}
		pacer, l.Pacer = p, p
		if l.Churn, err = swarm.ChurnShare(t.arrival); err != nil {
			return nil, flagErr(err)
		}
	}
	if !o.set.agents && t.duration > 0 {
		// A duration-bound run starts as many agents as fit in it.
		agents := swarm.MaxLoadAgents
		if pacer != nil {
			agents = int(math.Ceil(pacer.Hits(t.duration) - 1e-9))
		}
		// --max-agents caps these too: the user never typed an --agents
		// it could be measured against.
		rs.agents = min(max(agents, 1), swarm.MaxLoadAgents, o.maxAgents)
	}
	return l, nil
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

// targetOptions are how the run reaches a target over a transport. The
// token comes from $HERD_TOKEN unless --token is given.
func (o *swarmCmdOptions) targetOptions() target.Options {
	t := &o.transport
	token := t.token
	if !o.set.token {
		token = os.Getenv(tokenEnv)
	}
	return target.Options{AllowHosts: t.allowHosts, Token: token, CallTimeout: t.callTimeout,
		MaxConns: max(t.maxInFlight, o.workers, defaultInFlight), MaxResponseBytes: t.maxResponse}
}
