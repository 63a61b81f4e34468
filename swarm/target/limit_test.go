package target

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"
)

// endless writes n bytes of filler to w in small pieces, so that neither
// side ever holds the whole answer; it stops when the client goes away.
func endless(w io.Writer, n int64, piece []byte) {
	for n > 0 {
		k := min(int64(len(piece)), n)
		if _, err := w.Write(piece[:k]); err != nil {
			return
		}
		n -= k
	}
}

// A server answering 300 MB (as one JSON body, or as one SSE event) fails
// the read as soon as the limit is passed, without the client allocating
// the answer.
func TestResponseCapStopsHugeAnswers(t *testing.T) {
	const huge = 300 << 20
	piece := bytes.Repeat([]byte("a"), 64<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`))
			endless(w, huge, piece)
		case "/json-length":
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Content-Length", fmt.Sprint(huge))
			endless(w, huge, piece)
		case "/sse":
			w.Header().Set("Content-Type", "text/event-stream")
			w.Write([]byte("event: message\ndata: "))
			endless(w, huge, piece)
		case "/sse-small-events":
			// Many small events add up past the limit; each is fine.
			w.Header().Set("Content-Type", "text/event-stream")
			for range 3 * 1024 {
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", piece[:1024])
			}
		}
	}))
	defer srv.Close()
	hc := NewHTTPClient(Options{MaxResponseBytes: 1 << 20})
	get := func(path string) (int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+path, nil)
		resp, err := hc.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		return len(b), err
	}
	for _, path := range []string{"/json", "/json-length", "/sse"} {
		runtime.GC()
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		start := time.Now()
		n, err := get(path)
		took := time.Since(start)
		runtime.ReadMemStats(&m1)
		if !errors.Is(err, ErrResponseTooLarge) {
			t.Errorf("%s: read %d bytes, err %v; want ErrResponseTooLarge", path, n, err)
		}
		if n > 1<<20 {
			t.Errorf("%s: %d bytes handed on, more than the limit", path, n)
		}
		if alloc := m1.TotalAlloc - m0.TotalAlloc; alloc > 32<<20 {
			t.Errorf("%s: %d MB allocated", path, alloc>>20)
		}
		if took > 5*time.Second {
			t.Errorf("%s: took %s", path, took)
		}
		if err != nil && classify(context.Background(), err) != ClassTransport {
			t.Errorf("%s: classified as %v, want a transport error", path, classify(context.Background(), err))
		}
		if err != nil && !strings.Contains(err.Error(), "1048576") {
			t.Errorf("%s: error %q does not give the limit", path, err)
		}
	}
	if n, err := get("/sse-small-events"); err != nil || n < 3<<20 {
		t.Errorf("small SSE events: read %d bytes, err %v; the limit is per event", n, err)
	}
}
