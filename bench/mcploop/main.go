// mcploop is the baseline of bench/load.sh: a bare go-sdk client loop —
// N sessions, each calling tools back to back for a duration — against an
// MCP server over Streamable HTTP. It prints calls a second and latency
// percentiles, for the swarm's figures to be read against.
//
//	go run ./bench/mcploop -url http://127.0.0.1:PORT/mcp -sessions 16 -duration 10s
//
// By default every session calls one tool (get_contact) with one argument.
// Two more modes give a second reference that makes the swarm's own calls,
// so that the client's overhead is compared on the same answers:
//
//	mcploop -url URL -record calls.jsonl -duration 5s   # a recording proxy
//	mcploop -url URL -mix calls.jsonl -duration 10s     # replay what it recorded
//
// -record listens on 127.0.0.1, prints its MCP URL on stdout, forwards every
// request to -url and writes each tools/call request's params (with its
// _meta) as one JSON line, with the session that made it; point a herd swarm
// at the printed URL. -mix replays those calls: the recording is split into
// episodes (herd swarm begins each with a reset in its first call's _meta),
// and each session plays whole episodes in turn, as recorded, cycling until
// the duration ends. Each episode starts on a freshly reset world with the
// same seed, key and goal, so it gets the same answers it got in the swarm.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/internal/gctarget"
	"github.com/herd-sh/herd/swarm/target"
)

func main() {
	// The same GC target as herd swarm and herd serve (GOGC, when set, wins),
	// so that the bench scripts compare equally tuned processes.
	gctarget.SetFromEnv()
	endpoint := flag.String("url", "", "MCP endpoint (loopback only)")
	sessions := flag.Int("sessions", 16, "sessions calling at once")
	d := flag.Duration("duration", 10*time.Second, "how long to call (with -record: how long to record)")
	tool := flag.String("tool", "get_contact", "tool to call")
	arg := flag.String("arg", `id=c_0001`, "one argument, name=value (a string)")
	mixFile := flag.String("mix", "", "replay the tool calls recorded in this file (-record) instead of -tool")
	recordFile := flag.String("record", "", "be a recording proxy to -url: print its URL, write each tools/call's params to this file")
	flag.Parse()
	u, err := url.Parse(*endpoint)
	if err != nil || !target.IsLoopback(u.Hostname()) {
		log.Fatalf("-url: want a loopback MCP URL, got %q", *endpoint)
	}
	if *sessions < 1 || *sessions > 1000 {
		log.Fatalf("-sessions: want 1 to 1000, got %d", *sessions)
	}
	if *d <= 0 || *d > time.Hour {
		log.Fatalf("-duration: want more than 0 and at most 1h, got %s", *d)
	}
	if *mixFile != "" && *recordFile != "" {
		log.Fatal("-mix and -record: give one of them")
	}
	if *recordFile != "" {
		if err := record(u, *recordFile, *d, os.Stdout); err != nil {
			log.Fatalf("-record: %v", err)
		}
		return
	}
	var plays func(i int) player
	if *mixFile != "" {
		m, err := readMix(*mixFile)
		if err != nil {
			log.Fatalf("-mix: %v", err)
		}
		fmt.Fprintf(os.Stderr, "mcploop: -mix %s: %d calls in %d episodes\n", *mixFile, m.calls, len(m.episodes))
		plays = func(i int) player { return m.player(i, *sessions) }
	} else {
		name, value, ok := strings.Cut(*arg, "=")
		if !ok || name == "" {
			log.Fatalf("-arg: want name=value, got %q", *arg)
		}
		plays = func(int) player {
			params := &mcp.CallToolParams{Name: *tool, Arguments: map[string]any{name: value}} // one per session, as before
			return func() *mcp.CallToolParams { return params }
		}
	}
	if err := loop(*endpoint, *sessions, *d, plays, os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// A player gives a session's calls, one at a time, in order.
type player func() *mcp.CallToolParams

// loop runs sessions sessions, session i making player i's calls back to
// back for d, and prints the line bench/load.sh reads. Calls that fail
// (a JSON-RPC or transport error; a tool's own error is an answer) make it
// an error.
func loop(endpoint string, sessions int, d time.Duration, plays func(i int) player, out io.Writer) error {
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: 2 * sessions, MaxIdleConnsPerHost: 2 * sessions}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcploop", Version: "0"}, nil)
	ctx := context.Background()
	var css []*mcp.ClientSession
	for range sessions {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: target.ProtocolVersion})
		if err != nil {
			return err
		}
		css = append(css, cs)
	}
	all := hdr.New(1, int64(time.Minute/time.Microsecond), 3)
	var mu sync.Mutex
	var wg sync.WaitGroup
	calls, failed := 0, 0
	var firstErr error
	start := time.Now()
	end := start.Add(d)
	for i, cs := range css {
		wg.Add(1)
		next := plays(i)
		go func() {
			defer wg.Done()
			for time.Now().Before(end) {
				params := next()
				t0 := time.Now()
				_, err := cs.CallTool(ctx, params)
				took := time.Since(t0)
				mu.Lock()
				_ = all.RecordValue(max(took.Microseconds(), 1))
				calls++
				if err != nil {
					failed++
					if firstErr == nil {
						firstErr = fmt.Errorf("calling %s: %w", params.Name, err)
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	for _, cs := range css {
		_ = cs.Close()
	}
	fmt.Fprintf(out, "calls %d failed %d seconds %.2f calls_per_sec %.0f p50_ms %.2f p99_ms %.2f\n", calls, failed, secs,
		float64(calls)/secs, float64(all.ValueAtQuantile(50))/1e3, float64(all.ValueAtQuantile(99))/1e3)
	if failed > 0 {
		return fmt.Errorf("%d of %d calls failed; the first: %v", failed, calls, firstErr)
	}
	return nil
}
