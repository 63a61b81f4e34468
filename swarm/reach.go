package swarm

import (
	"context"
	"fmt"
	"net/http"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/swarm/target"
	"github.com/herd-sh/herd/worlds"
)

// UnreachableError is a target that could not be reached, or broke while
// it was being asked what it is (a command exits 3 for it, not 2).
type UnreachableError struct{ Err error }

func (e *UnreachableError) Error() string { return e.Err.Error() }

func (e *UnreachableError) Unwrap() error { return e.Err }

// Reached is a target reached over a transport, before the run's
// configuration is known: what the server said about itself, and how to
// make the run's target from it. Close it when done.
type Reached struct {
	Spec target.Spec
	// Info is what a herd server says about the world it serves (nil for
	// serve:WORLD, which the run starts itself, and for a server that is
	// not a herd world).
	Info *control.WorldDoc
	// External is true for an MCP server that is not a herd world (no
	// control plane): the swarm runs generic goals on its tools.
	External bool
	hc       *http.Client
	opts     target.Options
	stdio    *target.Stdio // stdio: the first process
	start    LocalServer   // serve:WORLD: how to start its servers
}

// Reach refuses hosts that are not allowed and asks a running server what
// it is: GET /control/world over HTTP, the first process over stdio. For
// serve:WORLD nothing is contacted (the run starts its servers with
// Target, with start). An in-process spec is not reached: nil, nil.
func Reach(ctx context.Context, spec target.Spec, opts target.Options, start LocalServer) (*Reached, error) {
	if spec.Kind == target.KindInProcess {
		return nil, nil
	}
	r := &Reached{Spec: spec, opts: opts, hc: target.NewHTTPClient(opts), start: start}
	switch spec.Kind {
	case target.KindHTTP:
		if err := target.CheckHost(spec.URL, opts.AllowHosts); err != nil {
			return nil, err
		}
		info, err := target.ProbeHTTP(ctx, spec.URL, r.hc)
		if err != nil {
			return nil, &UnreachableError{err}
		}
		r.Info, r.External = info, info == nil
	case target.KindStdio:
		s, err := target.StartStdio(ctx, spec.Command, r.hc, opts)
		if err != nil {
			return nil, &UnreachableError{err}
		}
		r.stdio = s
		if !s.IsHerd() {
			r.External = true
			return r, nil
		}
		if s.Control() == nil {
			s.Close()
			return nil, fmt.Errorf("%s: %w", spec.Raw, target.ErrNoControlPlane)
		}
		info, err := s.Control().World(ctx)
		if err != nil {
			s.Close()
			return nil, &UnreachableError{err}
		}
		r.Info = &info
	}
	return r, nil
}

// Settings are what a served herd world says a run of it uses unless told
// otherwise: its world, its fault profile and its one variant.
type Settings struct {
	World    string // a world reference (mock:NAME)
	Faults   string
	Variants []string
}

// Adopt is the run's world, faults and variants: those given, and where
// one is not given ("", nil), the served world's own. serve:WORLD and
// external servers have none to adopt.
func (r *Reached) Adopt(given Settings) Settings {
	if r == nil || r.Info == nil {
		return given
	}
	out := given
	if out.World == "" {
		out.World = worlds.Prefix + r.Info.World
	}
	if out.Faults == "" {
		out.Faults = r.Info.Faults
	}
	if len(out.Variants) == 0 {
		out.Variants = []string{r.Info.Variant}
	}
	return out
}

// Target makes the run's target from the reached server, now that the
// world, seed, variants and fault profile are known: for serve:WORLD one
// server per variant, started here; for a herd server over HTTP or stdio,
// the server itself, once it is checked to serve that world and variant
// (and, over HTTP, switched to the fault profile asked for). maxInFlight
// sizes its connection pool. Closing the target closes what it made.
func (r *Reached) Target(ctx context.Context, cfg *Config, maxInFlight int) (Target, error) {
	opts := r.opts
	opts.MaxConns = maxInFlight
	w, variants, profile := cfg.World, cfg.Variants, engine.ProfileName(cfg.Profile)
	if len(variants) == 0 {
		variants = []string{w.DefaultVariant()}
	}
	switch r.Spec.Kind {
	case target.KindServe:
		var made []*target.Served
		for _, v := range variants {
			t, err := ServeLocal(r.start, w, cfg.Seed, v, profile, r.hc, opts)
			if err != nil {
				_ = NewServed(r.Spec.Raw, made...).Close()
				return nil, err
			}
			made = append(made, t)
		}
		return NewServed(r.Spec.Raw, made...), nil
	case target.KindHTTP, target.KindStdio:
		if len(variants) > 1 {
			return nil, fieldErr("Variants", "%s shows one variant (%s); use serve:WORLD to compare variants", r.Spec.Raw, r.Info.Variant)
		}
		if err := target.CheckWorld(r.Spec.Raw, *r.Info, w, variants[0]); err != nil {
			return nil, err
		}
		if profile != r.Info.Faults {
			if r.Spec.Kind == target.KindStdio {
				return nil, fieldErr("Profile", "the command serves faults %s, not %s: a server over stdio is not switched; give it the profile in its command instead", r.Info.Faults, profile)
			}
			// Asked for explicitly: switch the server (every session on it).
			if err := control.NewClient(control.URL(r.Spec.URL), r.hc).SetFaults(ctx, profile); err != nil {
				return nil, &UnreachableError{err}
			}
		}
		if r.Spec.Kind == target.KindHTTP {
			return NewServed(r.Spec.Raw, target.HerdHTTP(r.Spec.URL, w, profile, r.hc, opts)), nil
		}
		t, err := r.stdio.Served(r.Spec.Raw, w, profile)
		if err != nil {
			return nil, err
		}
		return NewServed(r.Spec.Raw, t), nil
	}
	return nil, fmt.Errorf("%s: not a served herd world", r.Spec.Raw)
}

// ExternalTarget is the reached server as an MCP server that is not a herd
// world, judged on its answers. Close it when done.
func (r *Reached) ExternalTarget() *target.External {
	if r.Spec.Kind == target.KindHTTP {
		return target.ExternalHTTP(r.Spec.URL, r.hc, r.opts)
	}
	return r.stdio.External(r.Spec.Raw)
}

// Close ends the first stdio process, unless a target took it over.
func (r *Reached) Close() {
	if r != nil && r.stdio != nil {
		_ = r.stdio.Close()
	}
}
