package swarm

import (
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

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
//	HERD_BENCH_URL=http://127.0.0.1:8931/mcp go test ./swarm -run '^$' -bench ServedHTTP -benchtime 20000x
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

// processCPU is the CPU time this process has spent, all threads.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
