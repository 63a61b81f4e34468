package serve

import (
	"context"
	"errors"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// soakDuration is how long TestSoakBoundedJournals runs: 60 s, or
// HERD_SOAK_SECONDS.
func soakDuration(t *testing.T) time.Duration {
	if v := os.Getenv("HERD_SOAK_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("HERD_SOAK_SECONDS=%q: want a whole number of seconds", v)
		}
		return time.Duration(n) * time.Second
	}
	return time.Minute
}

// TestSoakBoundedJournals is bench/soak.sh in small: for a minute, sessions
// that are never reset call back to back (as a bare client loop, k6 or an
// agent framework does), sessions are reset with every episode's first call
// (as herd swarm does, the journal handed back each time), and short-lived
// clients come and go, some without DELETE. What the server retains is
// counted, not timed: the journal entries it holds never exceed what the
// limits allow, however many calls are made, nor do its sessions or
// goroutines grow.
func TestSoakBoundedJournals(t *testing.T) {
	if testing.Short() {
		t.Skip("a one-minute soak")
	}
	const (
		maxSessions = 40
		endedLimit  = 10
		loops       = 6 // never reset
		resetters   = 2 // reset on each episode's first call
	)
	// Small enough that the never-reset sessions fill their journals many
	// times over, even at the race detector's pace on a loaded machine.
	journalLimit := 100
	if raceDetector {
		journalLimit = 20
	}
	d := soakDuration(t)
	s := newTestServer(t, Options{Seed: 42, MaxSessions: maxSessions, JournalLimit: journalLimit, EndedJournalLimit: endedLimit})
	base := startHTTP(t, s)
	hc := pooledClient("")
	ctl := control.NewClient(base+control.Path, hc)
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()

	var calls, churned atomic.Int64
	var failed atomic.Value
	fail := func(err error) {
		if ctx.Err() == nil {
			failed.CompareAndSwap(nil, err)
			cancel()
		}
	}
	var wg sync.WaitGroup
	loop := func(cs *mcp.ClientSession, reset bool) {
		defer wg.Done()
		args := []map[string]any{{"id": "c_0001"}, {"query": "an"}, {"stage": "customer", "limit": 20}}
		tools := []string{"get_contact", "search_contacts", "list_contacts"}
		for i := 0; ctx.Err() == nil; i++ {
			p := &mcp.CallToolParams{Name: tools[i%3], Arguments: args[i%3]}
			if reset && i%5 == 0 {
				p.Meta = mcp.Meta{control.ResetMeta: control.Reset{Seed: 42, Key: uint64(i), Goal: "hide_contact", Rnd: uint64(i), ReturnJournal: true}.Meta()}
			}
			if _, err := cs.CallTool(ctx, p); err != nil {
				fail(err)
				return
			}
			calls.Add(1)
		}
	}
	var loopIDs []string
	for i := range loops + resetters {
		cs := connectHTTP(t, base, hc)
		if i < loops {
			loopIDs = append(loopIDs, cs.ID())
		}
		wg.Add(1)
		go loop(cs, i >= loops)
	}
	// Short-lived clients: 30 calls each, every other one leaving without
	// DELETE (the idle timeout is an hour here: eviction makes room).
	wg.Add(1)
	// A client that leaves without DELETE: its DELETE never reaches the
	// server, but the client itself is closed, so that its own goroutines
	// end and the count below is the server's.
	noDelete := &http.Client{Transport: dropDelete{hc.Transport}}
	go func() {
		defer wg.Done()
		for i := 0; ctx.Err() == nil; i++ {
			client := hc
			if i%2 == 1 {
				client = noDelete
			}
			cs, err := dialHTTP(base, client)
			if err != nil {
				fail(err)
				return
			}
			for range 30 {
				if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_contact", Arguments: map[string]any{"id": "c_0002"}}); err != nil {
					if ctx.Err() == nil {
						fail(err)
					}
					break
				}
				calls.Add(1)
			}
			_ = cs.Close()
			churned.Add(1)
		}
	}()

	// The bound: every live session's journal full, every kept ended one's
	// tail full.
	bound := maxSessions*journalLimit + maxSessions*endedLimit
	goroutines0 := runtime.NumGoroutine()
	maxKept, maxGoroutines, samples := 0, 0, 0
	tick := time.NewTicker(d / 12)
	defer tick.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-tick.C:
			list, err := ctl.Sessions(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			kept := 0
			for _, info := range list {
				if info.Journal == nil {
					t.Fatalf("session %s: no journal info", info.ID)
				}
				limit := journalLimit
				if info.Closed {
					limit = endedLimit
				}
				if info.Journal.Kept > limit || info.Journal.Kept+info.Journal.Dropped != info.Journal.Calls {
					t.Fatalf("session %s (closed %v) keeps %+v, limit %d", info.ID, info.Closed, info.Journal, limit)
				}
				kept += info.Journal.Kept
			}
			if len(list) > 2*maxSessions {
				t.Fatalf("%d sessions kept, at most %d allowed", len(list), 2*maxSessions)
			}
			maxKept = max(maxKept, kept)
			maxGoroutines = max(maxGoroutines, runtime.NumGoroutine())
			samples++
		}
	}
	wg.Wait()
	if err, _ := failed.Load().(error); err != nil {
		t.Fatal(err)
	}
	n := calls.Load()
	t.Logf("%d calls in %v (%d clients came and went); at most %d journal entries held (bound %d), %d goroutines (%d at the start)",
		n, d, churned.Load(), maxKept, bound, maxGoroutines, goroutines0)
	var rt control.Runtime
	mustJSON(t, hc, base+"/control/runtime", &rt)
	if rt.Calls < n || rt.Goroutines < 1 || rt.HeapBytes == 0 || rt.Sessions.Evicted+rt.Sessions.Live == 0 {
		t.Fatalf("GET /control/runtime: %+v after %d calls answered", rt, n)
	}
	if samples < 3 {
		t.Fatalf("only %d samples", samples)
	}
	if maxKept > bound {
		t.Fatalf("%d journal entries held, more than the limits allow (%d)", maxKept, bound)
	}
	// The limits were reached, or nothing was shown: every session that is
	// never reset made more calls than its journal holds. (Its totals say
	// so even once it has ended: a call cut short at the deadline may end
	// the client's session.)
	for _, id := range loopIDs {
		var info control.SessionInfo
		mustJSON(t, hc, base+"/control/sessions/"+id, &info)
		if j := info.Journal; j == nil || j.Calls <= journalLimit || j.Dropped == 0 || j.Kept+j.Dropped != j.Calls {
			t.Fatalf("session %s never filled its journal: %+v", id, info.Journal)
		}
	}
	// Sessions come and go without goroutines piling up: a goroutine or two
	// per live session, whatever the number of clients that have been.
	if limit := goroutines0 + 8*maxSessions; maxGoroutines > limit {
		t.Fatalf("%d goroutines, more than %d", maxGoroutines, limit)
	}
}

// dropDelete is a transport whose DELETE requests never leave the client:
// a session closed through it is, to the server, one that went away.
type dropDelete struct{ base http.RoundTripper }

func (d dropDelete) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodDelete {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, errors.New("DELETE dropped: the client leaves without it")
	}
	return d.base.RoundTrip(r)
}
