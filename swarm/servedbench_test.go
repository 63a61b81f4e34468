package swarm

import (
	"context"
	"net/http"
	"net/url"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/serve"
	"github.com/herd-sh/herd/swarm/target"
)

// BenchmarkServedHTTP is the swarm's per-call client path over Streamable
// HTTP: agents of mock:crm (the default mix, no faults), 16 in flight,
// against herd serve — each episode's reset riding on its first call, its
// answers decoded into records, its journal replayed on a local session and
// judged. ns/op is one agent; ns/call and cpu-ns/call are per tool call.
//
// By default the server runs in this process, so cpu-ns/call is client and
// server together. To measure the client alone, serve the world in another
// process and point the benchmark at it:
//
//	herd serve mock:crm --http 127.0.0.1:8931 --log-level warn &
//	HERD_BENCH_URL=http://127.0.0.1:8931/mcp go test ./swarm -run '^$' -bench 'ServedHTTP|BareLoopHTTP' -benchtime 20000x
//
// BenchmarkBareLoopHTTP, next to it, is bench/mcploop's loop: the go-sdk's
// client calling get_contact back to back, the figure to read it against.
func BenchmarkServedHTTP(b *testing.B) {
	const inFlight = 16
	cfg := testConfig(b, "mock:crm", b.N)
	cfg.Profile = cfg.World.Profile("none")
	cfg.Load = &Load{MaxInFlight: inFlight}
	var tgt Target
	if raw := os.Getenv("HERD_BENCH_URL"); raw != "" {
		u, err := url.Parse(raw)
		if err != nil || !target.IsLoopback(u.Hostname()) {
			b.Fatalf("HERD_BENCH_URL: want a loopback MCP URL, got %q", raw)
		}
		opts := target.Options{MaxConns: inFlight}
		srv := target.HerdHTTP(u, cfg.World, "none", target.NewHTTPClient(opts), opts)
		b.Cleanup(func() { _ = srv.Close() })
		tgt = NewServed(raw, srv)
	} else {
		tgt = servedTargets(b, &cfg, inFlight)
	}
	p, err := NewPlan(cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	if _, err := p.Run(b.Context(), tgt); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	cpu := processCPU() - cpu0
	st := p.LoadStats()
	if st.Calls == 0 {
		b.Fatal("no calls were made")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(st.Calls), "ns/call")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(st.Calls), "cpu-ns/call")
	b.ReportMetric(float64(st.Calls)/float64(b.N), "calls/op")
}

// BenchmarkBareLoopHTTP is a bare go-sdk client loop (bench/mcploop): 16
// sessions calling get_contact back to back against herd serve over
// Streamable HTTP. ns/op is one call; cpu-ns/call as for BenchmarkServedHTTP.
func BenchmarkBareLoopHTTP(b *testing.B) {
	const sessions = 16
	endpoint := os.Getenv("HERD_BENCH_URL")
	if endpoint == "" {
		cfg := testConfig(b, "mock:crm", 1)
		u, stop, err := serve.StartLocalWorld(cfg.World, cfg.Seed, cfg.World.Variants[0], "none", 2*sessions)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = stop() })
		endpoint = u.String()
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: 2 * sessions, MaxIdleConnsPerHost: 2 * sessions}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcploop", Version: "0"}, nil)
	ctx := context.Background()
	var css []*mcp.ClientSession
	for range sessions {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: target.ProtocolVersion})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		css = append(css, cs)
	}
	var left atomic.Int64
	left.Store(int64(b.N))
	var failed atomic.Int64
	var wg sync.WaitGroup
	b.ReportAllocs()
	cpu0 := processCPU()
	b.ResetTimer()
	for _, cs := range css {
		wg.Add(1)
		go func() {
			defer wg.Done()
			params := &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0001"}}
			for left.Add(-1) >= 0 {
				if _, err := cs.CallTool(ctx, params); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if n := failed.Load(); n > 0 {
		b.Fatalf("%d calls failed", n)
	}
	b.ReportMetric(float64((processCPU()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/call")
}

// processCPU is the CPU time this process has spent, all threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
