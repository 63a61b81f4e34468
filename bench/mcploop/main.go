// mcploop is the baseline of bench/load.sh: a bare go-sdk client loop —
// N sessions, each calling one tool back to back for a duration — against
// an MCP server over Streamable HTTP. It prints calls a second and latency
// percentiles, for the swarm's figures to be read against.
//
//	go run ./bench/mcploop -url http://127.0.0.1:PORT/mcp -sessions 16 -duration 10s
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/swarm/target"
)

func main() {
	endpoint := flag.String("url", "", "MCP endpoint (loopback only)")
	sessions := flag.Int("sessions", 16, "sessions calling at once")
	d := flag.Duration("duration", 10*time.Second, "how long to call")
	tool := flag.String("tool", "get_contact", "tool to call")
	arg := flag.String("arg", `id=c_0001`, "one argument, name=value (a string)")
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
	name, value, ok := strings.Cut(*arg, "=")
	if !ok || name == "" {
		log.Fatalf("-arg: want name=value, got %q", *arg)
	}
	hc := &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: 2 * *sessions, MaxIdleConnsPerHost: 2 * *sessions}}
	client := mcp.NewClient(&mcp.Implementation{Name: "mcploop", Version: "0"}, nil)
	ctx := context.Background()
	var css []*mcp.ClientSession
	for range *sessions {
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: *endpoint, HTTPClient: hc, DisableStandaloneSSE: true},
			&mcp.ClientSessionOptions{ProtocolVersion: target.ProtocolVersion})
		if err != nil {
			log.Fatal(err)
		}
		css = append(css, cs)
	}
	all := hdr.New(1, int64(time.Minute/time.Microsecond), 3)
	var mu sync.Mutex
	var wg sync.WaitGroup
	calls, failed := 0, 0
	start := time.Now()
	end := start.Add(*d)
	for _, cs := range css {
		wg.Add(1)
		go func() {
			defer wg.Done()
			params := &mcp.CallToolParams{Name: *tool, Arguments: map[string]any{name: value}}
			for time.Now().Before(end) {
				t0 := time.Now()
				_, err := cs.CallTool(ctx, params)
				took := time.Since(t0)
				mu.Lock()
				_ = all.RecordValue(max(took.Microseconds(), 1))
				calls++
				if err != nil {
					failed++
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
	fmt.Printf("calls %d failed %d seconds %.2f calls_per_sec %.0f p50_ms %.2f p99_ms %.2f\n", calls, failed, secs,
		float64(calls)/secs, float64(all.ValueAtQuantile(50))/1e3, float64(all.ValueAtQuantile(99))/1e3)
	if failed > 0 {
		os.Exit(1)
	}
}
