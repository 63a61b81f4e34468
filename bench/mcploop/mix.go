package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// maxRecorded bounds a recording: enough calls for a mix many times over,
// and a file of a few megabytes.
const maxRecorded = 100_000

// maxRequestBytes is the largest request body the proxy reads to record;
// a tools/call of herd swarm's is well under a kilobyte.
const maxRequestBytes = 1 << 20

// recorded is one line of a recording: a tools/call's params as sent, and
// the MCP session that sent them.
type recorded struct {
	Session string          `json:"session"`
	Params  json.RawMessage `json:"params"`
}

// recorder writes the tools/call requests that pass through it.
type recorder struct {
	mu sync.Mutex
	w  *bufio.Writer
	n  int
}

// note records body if it is a JSON-RPC tools/call, with its session.
func (r *recorder) note(session string, body []byte) error {
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.Method != "tools/call" {
		return nil // not a call (or a batch, which herd swarm does not send): forwarded, not recorded
	}
	line, err := json.Marshal(recorded{Session: session, Params: req.Params})
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == maxRecorded {
		return nil
	}
	r.n++
	r.w.Write(line)
	return r.w.WriteByte('\n')
}

// recordingProxy forwards every request to upstream's host, noting each
// POST's body with rec first.
func recordingProxy(upstream *url.URL, rec *recorder) http.Handler {
	proxy := &httputil.ReverseProxy{
		Rewrite:       func(pr *httputil.ProxyRequest) { pr.SetURL(&url.URL{Scheme: upstream.Scheme, Host: upstream.Host}) },
		FlushInterval: -1, // SSE answers pass through as they come
		Transport:     &http.Transport{Proxy: nil, MaxIdleConns: 256, MaxIdleConnsPerHost: 256},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && req.Body != nil {
			body, err := io.ReadAll(io.LimitReader(req.Body, maxRequestBytes+1))
			req.Body.Close()
			if err != nil || len(body) > maxRequestBytes {
				http.Error(w, "mcploop -record: the request body could not be read whole", http.StatusBadRequest)
				return
			}
			if err := rec.note(req.Header.Get("Mcp-Session-Id"), body); err != nil {
				http.Error(w, "mcploop -record: "+err.Error(), http.StatusInternalServerError)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
		}
		proxy.ServeHTTP(w, req)
	})
}

// record runs the recording proxy on 127.0.0.1 for d, printing its MCP URL
// (upstream's path on the proxy's address) on out, and writes the calls to
// path.
func record(upstream *url.URL, path string, d time.Duration, out io.Writer) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	rec := &recorder{w: bufio.NewWriter(f)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return err
	}
	srv := &http.Server{Handler: recordingProxy(upstream, rec), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(out, "http://%s%s\n", ln.Addr(), upstream.Path)
	time.Sleep(d)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(ctx) // a client still connected is cut off: the recording is what came before
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if err := rec.w.Flush(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if rec.n == 0 {
		return errors.New("no tools/call passed through the proxy")
	}
	return nil
}

// call is one recorded tools/call's params, decoded as the go-sdk sends them.
type call struct {
	Meta      mcp.Meta        `json:"_meta,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// mix is a recording split into episodes.
type mix struct {
	episodes [][]*mcp.CallToolParams
	calls    int
}

// readMix reads a recording and splits it into episodes: each session's
// calls in the order it made them, a new episode at each call whose _meta
// carries a reset (control.ResetMeta). A session's calls before its first
// reset are not an episode the loop can replay on a known world, and are
// left out.
func readMix(path string) (*mix, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseMix(f, path)
}

func parseMix(r io.Reader, name string) (*mix, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxRequestBytes+1024)
	var (
		open = map[string]int{} // session → index of its episode in progress
		eps  [][]*mcp.CallToolParams
		m    = &mix{}
	)
	for ln := 1; sc.Scan(); ln++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec recorded
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s:%d: not a recorded call: %v", name, ln, err)
		}
		var c call
		if err := json.Unmarshal(rec.Params, &c); err != nil || c.Name == "" {
			return nil, fmt.Errorf("%s:%d: the params are not a tools/call's (a name, arguments, _meta): %s", name, ln, rec.Params)
		}
		p := &mcp.CallToolParams{Name: c.Name, Meta: c.Meta}
		if len(c.Arguments) > 0 {
			p.Arguments = c.Arguments
		}
		if _, reset := c.Meta[control.ResetMeta]; reset {
			open[rec.Session] = len(eps)
			eps = append(eps, nil)
		}
		i, ok := open[rec.Session]
		if !ok {
			continue // before the session's first reset
		}
		eps[i] = append(eps[i], p)
		m.calls++
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(eps) == 0 {
		return nil, fmt.Errorf("%s: no episode: no call carries a reset in its _meta[%q] (record a herd swarm run against a herd world)", name, control.ResetMeta)
	}
	m.episodes = eps
	return m, nil
}

// player gives session i of n episodes i, i+n, i+2n, … (cycling through
// the recording), each episode's calls in order. Each call is a copy of
// the recorded params: the SDK's client may add to a call's _meta, and two
// sessions may play the same episode at once.
func (m *mix) player(i, n int) player {
	ep, at := i%len(m.episodes), 0
	return func() *mcp.CallToolParams {
		if at == len(m.episodes[ep]) {
			ep, at = (ep+n)%len(m.episodes), 0
		}
		p := *m.episodes[ep][at]
		if p.Meta != nil {
			p.Meta = maps.Clone(p.Meta)
		}
		at++
		return &p
	}
}
