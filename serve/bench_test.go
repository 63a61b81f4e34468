package serve

import (
	"context"
	"net"
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// The benchmarks measure tool calls per second through herd's server and,
// for comparison, through trivial go-sdk servers (one tool that answers
// {"ok":true}) driven by the same client loop on the same machine: the gap
// is what serving a world costs on top of the SDK itself.
//
//	go test ./serve -run '^$' -bench 'Serve|Bare' -benchtime 2s -count 5
//
// Each runs one session (calls one after another) and 16 sessions at once.
// Client and server share the process, so cpu-ns/op is both together.

var benchSessions = []struct {
	name string
	n    int
}{{"sessions=1", 1}, {"sessions=16", 16}}

// benchCall is a cheap read, so the figure is per-call overhead rather than
// engine work.
var benchCall = &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0001"}}

// trivialServers are the baselines: go-sdk servers whose one tool does
// nothing, written the idiomatic way (typed handler: the SDK validates the
// arguments against a schema inferred from a struct and marshals the
// output) and the cheapest way (raw handler: a fixed answer).
var trivialServers = []struct {
	name string
	make func() *mcp.Server
}{{"typed", typedTrivialServer}, {"raw", rawTrivialServer}}

func typedTrivialServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "trivial", Version: "0"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}})
	type in struct {
		ID string `json:"id"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "get_contact", Description: "Answers ok."}, func(_ context.Context, _ *mcp.CallToolRequest, _ in) (*mcp.CallToolResult, map[string]any, error) {
		return nil, map[string]any{"ok": true}, nil
	})
	return srv
}

func rawTrivialServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "trivial", Version: "0"}, &mcp.ServerOptions{Capabilities: &mcp.ServerCapabilities{}})
	srv.AddTool(&mcp.Tool{Name: "get_contact", Description: "Answers ok.", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":true}`}}}, nil
	})
	return srv
}

// runCalls spreads b.N calls over the sessions and reports calls/s.
func runCalls(b *testing.B, sessions []*mcp.ClientSession) {
	b.Helper()
	ctx := context.Background()
	var next sync.Mutex
	left := b.N
	take := func() bool {
		next.Lock()
		defer next.Unlock()
		if left == 0 {
			return false
		}
		left--
		return true
	}
	b.ResetTimer()
	start, cpuStart := time.Now(), cpuTime()
	var wg sync.WaitGroup
	errs := make(chan error, len(sessions))
	for _, cs := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for take() {
				res, err := cs.CallTool(ctx, benchCall)
				if err == nil && res.IsError {
					err = errString(resultTextNoT(res))
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	for err := range errs {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/s")
	// CPU time is what a loaded machine does not distort: client and server
	// together (they share the process), garbage collector included.
	b.ReportMetric(float64(cpuTime()-cpuStart)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type errString string

func (e errString) Error() string { return string(e) }

func resultTextNoT(res *mcp.CallToolResult) string {
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			return tc.Text
		}
	}
	return "?"
}

// httpBase serves h on 127.0.0.1 until the benchmark ends.
func httpBase(b *testing.B, h http.Handler) string {
	b.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go func() { _ = hs.Serve(ln) }()
	b.Cleanup(func() { _ = hs.Close() })
	return "http://" + ln.Addr().String()
}

func httpSessions(b *testing.B, base string, n int) []*mcp.ClientSession {
	b.Helper()
	hc := pooledClient("")
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		cs, err := dialHTTP(base, hc)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		out[i] = cs
	}
	return out
}

func BenchmarkServeHTTP(b *testing.B) {
	for _, bs := range benchSessions {
		b.Run(bs.name, func(b *testing.B) {
			s := newTestServer(b, Options{Seed: 42})
			base := httpBase(b, s.Handler())
			runCalls(b, httpSessions(b, base, bs.n))
		})
	}
}

func BenchmarkBareSDKHTTP(b *testing.B) {
	for _, ts := range trivialServers {
		for _, bs := range benchSessions {
			b.Run(ts.name+"/"+bs.name, func(b *testing.B) {
				srv := ts.make()
				h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
				base := httpBase(b, routeMCP(h))
				runCalls(b, httpSessions(b, base, bs.n))
			})
		}
	}
}

// routeMCP serves h at /mcp, as herd does.
func routeMCP(h http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle(control.MCPPath, h)
	return mux
}

// pipeTransports returns a client transport and a server's stdin and stdout
// joined by OS pipes: the same file descriptors a subprocess's stdio would
// be, without a second process.
func pipeTransports(b *testing.B) (client mcp.Transport, serverIn, serverOut *os.File) {
	b.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, f := range []*os.File{inR, inW, outR, outW} {
			_ = f.Close()
		}
	})
	return &mcp.IOTransport{Reader: outR, Writer: inW}, inR, outW
}

// stdioSessions opens n client sessions over OS pipes; serve attaches a
// server to each pair of pipes and returns once it is serving.
func stdioSessions(b *testing.B, n int, serve func(in, out *os.File) error) []*mcp.ClientSession {
	b.Helper()
	out := make([]*mcp.ClientSession, n)
	for i := range out {
		ct, sin, sout := pipeTransports(b)
		if err := serve(sin, sout); err != nil {
			b.Fatal(err)
		}
		cs, err := newClient().Connect(context.Background(), ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = cs.Close() })
		out[i] = cs
	}
	return out
}

func BenchmarkServeStdio(b *testing.B) {
	for _, bs := range benchSessions {
		b.Run(bs.name, func(b *testing.B) {
			s := newTestServer(b, Options{Seed: 42})
			runCalls(b, stdioSessions(b, bs.n, func(in, out *os.File) error {
				go func() { _ = s.ServeStdio(context.Background(), in, out) }()
				return nil
			}))
		})
	}
}

func BenchmarkBareSDKStdio(b *testing.B) {
	for _, ts := range trivialServers {
		for _, bs := range benchSessions {
			b.Run(ts.name+"/"+bs.name, func(b *testing.B) {
				srv := ts.make()
				runCalls(b, stdioSessions(b, bs.n, func(in, out *os.File) error {
					_, err := srv.Connect(context.Background(), &mcp.IOTransport{Reader: in, Writer: out}, nil)
					return err
				}))
			})
		}
	}
}
