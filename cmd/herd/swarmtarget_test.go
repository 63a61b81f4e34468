package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/worlds"
)

// readRunJSON reads a results document a test run wrote.
func readRunJSON(t *testing.T, path string) *report.Results {
	t.Helper()
	res, err := report.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func countsJSON(t *testing.T, r *report.Results) string {
	t.Helper()
	b, err := json.Marshal(map[string]any{"counts": r.Counts, "faults": r.Faults, "mix": r.Run.Mix, "episodes": r.Episodes})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// swarmJSON runs herd swarm with args and returns its results document.
func swarmJSON(t *testing.T, args ...string) (*report.Results, string) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "run.json")
	code, _, errOut := runHerd(t, append(append([]string{"swarm"}, args...), "--json", js, "--progress", "never")...)
	if code != 0 {
		t.Fatalf("herd swarm %s: exit %d:\n%s", strings.Join(args, " "), code, errOut)
	}
	return readRunJSON(t, js), errOut
}

// A herd world over stdio (a herd serve subprocess per connection, its
// control plane announced in its initialize result, so --log-level warn
// does not hide it) gives the outcomes the same world gives in-process at
// the same seed.
func TestSwarmOverStdioMatchesInProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds herd and starts subprocesses")
	}
	bin := herdBinary(t)
	want, _ := swarmJSON(t, "mock:payments", "--agents", "40", "--seed", "5")
	got, errOut := swarmJSON(t, "mcp+stdio:"+bin+" serve mock:payments --control 127.0.0.1:0 --log-level warn", "--agents", "40", "--seed", "5", "--max-in-flight", "3")
	if g, w := countsJSON(t, got), countsJSON(t, want); g != w {
		t.Fatalf("over stdio:\n%s\nin-process:\n%s", g, w)
	}
	if !strings.HasPrefix(got.Run.Target, "mcp+stdio:") || got.Timing == nil || len(got.Timing.Latency) == 0 {
		t.Errorf("target %q, timing %+v", got.Run.Target, got.Timing)
	}
	if !strings.Contains(errOut, "calls by class") {
		t.Errorf("no load summary:\n%s", errOut)
	}
}

// startServeHTTP serves a world over HTTP on a free loopback port until the
// test ends and returns the MCP URL.
func startServeHTTP(t *testing.T, world string, seed uint64) string {
	t.Helper()
	url, _ := startServeHTTPStoppable(t, world, seed)
	return url
}

// startServeHTTPStoppable is startServeHTTP, with a function that stops the
// server before the test ends.
func startServeHTTPStoppable(t *testing.T, world string, seed uint64) (string, func()) {
	t.Helper()
	w, err := worlds.Resolve(world)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(serve.Options{World: w, Seed: seed, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeListener(ctx, ln, srv.Handler()) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			select {
			case <-done:
			case <-time.After(10 * time.Second):
				t.Error("server did not stop")
			}
		})
	}
	t.Cleanup(stop)
	return "http://" + ln.Addr().String() + "/mcp", stop
}

// A running herd server, named by its URL: the swarm finds its control
// plane, checks the world, resets each session to the run's seed and key,
// and judges the end states as in-process.
func TestSwarmOverHTTPURLMatchesInProcess(t *testing.T) {
	url := startServeHTTP(t, "mock:email", 99) // served on another seed: the run's seed wins
	want, _ := swarmJSON(t, "mock:email", "--agents", "50", "--seed", "12")
	got, _ := swarmJSON(t, url, "--agents", "50", "--seed", "12", "--max-in-flight", "4")
	if g, w := countsJSON(t, got), countsJSON(t, want); g != w {
		t.Fatalf("over HTTP:\n%s\nin-process:\n%s", g, w)
	}
	if got.Run.Target != url || !strings.Contains(got.Run.Command, url) {
		t.Errorf("target %q, command %q", got.Run.Target, got.Run.Command)
	}
	// The sampled traces replay in-process, naming the world, not the URL.
	for _, tr := range got.Traces {
		if !strings.HasPrefix(tr.Replay, "herd replay mock:email ") || strings.Contains(tr.Replay, "max-in-flight") {
			t.Fatalf("replay command %q", tr.Replay)
		}
	}
}

// Guardrails: hosts, caps and flags that need a transport are refused
// before anything is contacted, with a message saying what and why.
func TestSwarmGuardrails(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"http://load.example.invalid/mcp"}, 2, `host "load.example.invalid" is not loopback`},
		{[]string{"https://api.example.invalid:8443/mcp", "--allow-host", "other.invalid"}, 2, `--allow-host: target https://api.example.invalid:8443/mcp: host "api.example.invalid" is not loopback`},
		{[]string{"mock:crm", "--rate", "10"}, 2, "need a real transport"},
		{[]string{"mock:crm", "--duration", "5s"}, 2, "need a real transport"},
		{[]string{"serve:mock:crm", "--rate", "200000"}, 2, "--rate: must be between 0 and 100000"},
		{[]string{"serve:mock:crm", "--duration", "25h"}, 2, "--duration: must be between 0 and 24h0m0s"},
		{[]string{"serve:mock:crm", "--max-in-flight", "0"}, 2, "--max-in-flight: must be between 1 and 10000"},
		{[]string{"serve:mock:crm", "--arrival", "ramp:1-10"}, 2, "--duration: the ramp:1-10 arrival needs a duration"},
		{[]string{"serve:mock:crm", "--arrival", "spike", "--duration", "1s"}, 2, "--rate: a spike arrival needs a rate above 0"},
		{[]string{"serve:mock:crm", "--arrival", "ramp:1-900000", "--duration", "1s"}, 2, "above the cap of 100000"},
		{[]string{"serve:mock:crm", "--agents", "20000000"}, 2, "--agents: must be between 1 and"},
		{[]string{"ftp://127.0.0.1/x"}, 2, `unsupported scheme "ftp"`},
		{[]string{"mcp+stdio:"}, 2, "no command"},
		{[]string{"mcp+stdio:/nonexistent/herd-test-server"}, 3, "starting /nonexistent/herd-test-server"},
		{[]string{"http://127.0.0.1:1/mcp"}, 3, "unreachable"},
		// Bad flags are refused before the target is contacted or started
		// (exit 2, not the 3 of an unreachable target).
		{[]string{"http://127.0.0.1:1/mcp", "--agents", "0"}, 2, "--agents: must be between 1 and"},
		{[]string{"mcp+stdio:/nonexistent/herd-test-server", "--workers", "0"}, 2, "--workers: must be between 1 and 4096"},
		{[]string{"http://127.0.0.1:1/mcp", "--json", "/nonexistent-herd-dir/run.json"}, 2, "--json /nonexistent-herd-dir/run.json: folder"},
		{[]string{"serve:mock:crm", "--world", "crm.yaml"}, 2, "--world: serve:mock:crm names its world already"},
		{[]string{"serve:mock:crm", "--allow-writes"}, 2, "--allow-writes: serve:mock:crm is a herd world"},
	} {
		code, _, errOut := runHerd(t, append(append([]string{"swarm"}, c.args...), "--progress", "never")...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("herd swarm %s: exit %d, want %d with %q:\n%s", strings.Join(c.args, " "), code, c.code, c.want, errOut)
		}
	}
}

// The seed is printed on stderr before the run and recorded in the
// results, for a run over a transport too.
func TestSwarmOverServePrintsAndRecordsSeed(t *testing.T) {
	res, errOut := swarmJSON(t, "serve:mock:crm", "--agents", "20", "--seed", "314")
	if !strings.Contains(errOut, "seed 314") || res.Run.Seed != 314 || !strings.Contains(res.Run.Command, "--seed 314") {
		t.Fatalf("seed not printed or recorded:\n%s\n%+v", errOut, res.Run)
	}
}

// A duration-bound run without --agents starts as many agents as fit, but
// never more than --max-agents.
func TestSwarmDurationRespectsMaxAgents(t *testing.T) {
	res, _ := swarmJSON(t, "serve:mock:crm", "--duration", "2s", "--max-agents", "12")
	if res.Run.Agents != 12 || res.Episodes != 12 {
		t.Fatalf("%d agents, %d episodes; want 12", res.Run.Agents, res.Episodes)
	}
}
