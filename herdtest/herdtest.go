// Package herdtest starts a herd world inside a Go test, so a test suite can
// drive its own agent (or plain code) against a seeded, stateful fake world
// and assert on what it did to the world's records.
//
//	w := herdtest.Start(t, "mock:crm", herdtest.Served())
//	// connect any MCP client to w.Endpoint(), let the agent work, then:
//	w.AssertRecord(t, "contact", "c_0042", "archived", true)
//	w.AssertCount(t, "contact", 240) // nothing deleted
//
// A world runs either in-process — one engine session the test calls
// directly with (*World).Call, on a virtual clock — or served: the serve
// package's MCP server over Streamable HTTP on a free 127.0.0.1 port, with
// its control plane, exactly as `herd serve --http` runs it. Both are
// stopped when the test ends.
package herdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/worlds"
)

// stopTimeout bounds how long the cleanup waits for a served world to stop.
const stopTimeout = 10 * time.Second

// Option configures Start.
type Option func(*options)

type options struct {
	served       bool
	seed         *uint64
	faults       string
	variant      string
	maxFaultWait time.Duration
}

// Served serves the world over MCP Streamable HTTP on 127.0.0.1 (a free
// port) instead of running it in-process. Endpoint is the MCP URL.
func Served() Option { return func(o *options) { o.served = true } }

// Seed seeds the world's records (default: the world's own seed).
func Seed(seed uint64) Option { return func(o *options) { o.seed = &seed } }

// Faults selects a fault profile: "none" (the default), "realistic",
// "hostile", or one the world defines.
func Faults(profile string) Option { return func(o *options) { o.faults = profile } }

// Variant selects the tool-description variant a served world shows
// (default: the world's first).
func Variant(name string) Option { return func(o *options) { o.variant = name } }

// MaxFaultWait caps the real time a served call waits out its latency or a
// timeout fault (default: the serve package's, 5s; negative: never wait).
// Tests of fault handling usually want a few milliseconds.
func MaxFaultWait(d time.Duration) Option { return func(o *options) { o.maxFaultWait = d } }

// World is a running world. Its methods may be called from any goroutine.
type World struct {
	world   *engine.World
	seed    uint64
	local   *localWorld   // in-process; nil when served
	server  *serve.Server // served; nil in-process
	baseURL string        // served: http://127.0.0.1:PORT
	control *Control
}

// Start starts world (mock:crm, mock:shop, … or a world file) and stops it
// when the test ends. A world that does not load, or a bad option, fails
// the test at once.
func Start(t testing.TB, world string, opts ...Option) *World {
	t.Helper()
	o := options{faults: engine.NoFaults}
	for _, opt := range opts {
		opt(&o)
	}
	w, err := worlds.Resolve(world)
	if err != nil {
		t.Fatalf("herdtest: %v", err)
		return nil
	}
	seed := w.DefaultSeed
	if o.seed != nil {
		seed = *o.seed
	}
	if o.variant != "" && !w.HasVariant(o.variant) {
		t.Fatalf("herdtest: world %s has no variant %q (it has %s)", w.Name, o.variant, strings.Join(w.Variants, ", "))
		return nil
	}
	hw := &World{world: w, seed: seed}
	if o.served {
		err = hw.serve(t, o, seed)
	} else {
		err = hw.startLocal(o, seed)
	}
	if err != nil {
		t.Fatalf("herdtest: %s: %v", world, err)
		return nil
	}
	return hw
}

func (w *World) startLocal(o options, seed uint64) error {
	profile, err := w.world.FindProfile(o.faults)
	if err != nil {
		return err
	}
	base, err := w.world.Seed(seed)
	if err != nil {
		return err
	}
	w.local = newLocalWorld(base, profile)
	w.control = &Control{world: w.world, backend: w.local}
	return nil
}

// serve starts the serve package's HTTP handler on a free loopback port.
func (w *World) serve(t testing.TB, o options, seed uint64) error {
	srv, err := serve.New(serve.Options{World: w.world, Seed: seed, Variant: o.variant, Faults: o.faults, MaxFaultWait: o.maxFaultWait})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		srv.Close()
		return fmt.Errorf("listening on 127.0.0.1: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln, srv.Handler()) }()
	t.Cleanup(func() {
		cancel()
		select {
		case err := <-done:
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				t.Errorf("herdtest: stopping the served world: %v", err)
			}
		case <-time.After(stopTimeout):
			t.Errorf("herdtest: the served world did not stop within %v", stopTimeout)
		}
	})
	w.server = srv
	w.baseURL = "http://" + ln.Addr().String()
	// Each request is bounded by its context (requestTimeout).
	w.control = &Control{world: w.world, backend: control.NewClient(w.ControlURL(), &http.Client{})}
	return nil
}

// Engine is the world's compiled definition: its record types, tools and
// goals.
func (w *World) Engine() *engine.World { return w.world }

// Seed is the seed the world's records were made from.
func (w *World) Seed() uint64 { return w.seed }

// IsServed reports whether the world is served over MCP.
func (w *World) IsServed() bool { return w.server != nil }

// Endpoint is the MCP Streamable HTTP URL of a served world
// (http://127.0.0.1:PORT/mcp), and "" for an in-process world, which has
// none.
func (w *World) Endpoint() string {
	if w.server == nil {
		return ""
	}
	return w.baseURL + control.MCPPath
}

// ControlURL is the base URL of a served world's control plane
// (http://127.0.0.1:PORT/control), for a test that talks to it directly —
// from another language, say. "" for an in-process world.
func (w *World) ControlURL() string {
	if w.server == nil {
		return ""
	}
	return w.baseURL + "/control"
}

// Control reads and resets the world's sessions.
func (w *World) Control() *Control { return w.control }

// Call calls a tool of an in-process world, as an agent would over MCP,
// and returns the engine's result (an unknown tool or bad arguments are an
// error result, as over MCP). A served world is called with an MCP client
// on Endpoint(): there Call changes nothing and returns an error result
// with code "served".
func (w *World) Call(tool string, args map[string]any) engine.Result {
	if w.local == nil {
		return engine.Result{Err: &engine.ToolError{Code: "served",
			Message: "herdtest: the world is served; call " + tool + " with an MCP client on Endpoint()"}}
	}
	return w.local.call(tool, args)
}

// localWorld is the one engine session of an in-process world. The engine's
// Session is not safe for concurrent use, so every use takes mu.
type localWorld struct {
	mu      sync.Mutex
	base    *engine.Base    // its World() is the world; replaced by a reset to another seed
	sess    *engine.Session // its fault profile is the world's current one
	created time.Time
}

// localKey is the in-process session's key: the key a served world gives
// its first session, so both see the same dice.
const localKey = 1

// LocalSession is the id of an in-process world's one session ("latest"
// names it too).
const LocalSession = "local"

func newLocalWorld(base *engine.Base, profile *engine.FaultProfile) *localWorld {
	return &localWorld{base: base, sess: base.NewSession(localKey, profile), created: time.Now()}
}

func (l *localWorld) call(tool string, args map[string]any) engine.Result {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.sess.Call(tool, args)
}
