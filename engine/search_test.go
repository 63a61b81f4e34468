package engine

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The precomputed search must agree with a plain case-insensitive scan,
// including for records the session changed or created.
func TestSearchAgreesWithPlainScan(t *testing.T) {
	w, err := LoadFile("../worlds/crm.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(42)
	if err != nil {
		t.Fatal(err)
	}
	s := b.NewSession(1, nil)
	contacts := s.List(w.Type("contact"))
	// Change one record's name so it matches, and create one that matches.
	victim := contacts[10]
	if r := s.Call("update_contact", map[string]any{"id": victim.ID(), "company": "Zyxwv Holdings"}); !r.OK() {
		t.Fatalf("update: %v", r.Err)
	}
	if r := s.Call("create_contact", map[string]any{"name": "Zyxwv Person", "email": "zyxwv@example.com"}); !r.OK() {
		t.Fatalf("create: %v", r.Err)
	}
	for _, q := range []string{"smith", "SMITH", "zyxwv", "a", "example.org", "nobody-at-all", contacts[3].String("name")} {
		res := s.Call("search_contacts", map[string]any{"query": q, "include_archived": true})
		if !res.OK() {
			t.Fatalf("search %q: %v", q, res.Err)
		}
		var want []string
		for _, r := range s.List(w.Type("contact")) {
			lq := strings.ToLower(q)
			if strings.Contains(strings.ToLower(r.String("name")), lq) || strings.Contains(strings.ToLower(r.String("email")), lq) {
				want = append(want, r.ID())
			}
		}
		if len(want) > 20 {
			want = want[:20] // the tool's default limit
		}
		var got []string
		for _, r := range res.Records {
			got = append(got, r.ID())
		}
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("search %q:\n got %v\nwant %v", q, got, want)
		}
	}
}

// The hit cache must never change a search's answer: not on a repeat, not
// once it is full, not for a query too long to cache, and not when many
// sessions search at once (run with -race).
func TestSearchHitCacheAgreesWithScan(t *testing.T) {
	w := mustLoad(t, "../worlds/crm.yaml")
	b := mustSeed(t, w, 7)
	tool := w.Tool("search_contacts")
	same := func(q string) {
		t.Helper()
		got, want := b.searchHits(tool, q), b.scanHits(tool, q)
		if len(got) != len(want) {
			t.Fatalf("query %q: %d words, want %d", q, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("query %q: word %d is %x, want %x", q, i, got[i], want[i])
			}
		}
	}
	for range 2 {
		for _, q := range []string{"smith", "a", "example", "nobody-at-all"} {
			same(q)
		}
	}
	if n := b.hitCount.Load(); n != 4 {
		t.Errorf("cached %d queries, want 4", n)
	}
	long := strings.Repeat("a", hitCacheQueryMax+1)
	same(long)
	if _, ok := b.hits.Load(hitKey{tool.index, long}); ok {
		t.Error("a query longer than hitCacheQueryMax was cached")
	}
	// Fill the cache past its bound: it stops growing, answers stay right.
	for i := range hitCacheMax + 100 {
		same("q" + strconv.Itoa(i))
	}
	if n := b.hitCount.Load(); n != hitCacheMax {
		t.Errorf("cache holds %d entries, want the bound %d", n, hitCacheMax)
	}
	same("smith")
	same("uncached-after-full")

	b2 := mustSeed(t, w, 7)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := b2.NewSession(uint64(g), nil)
			for _, q := range []string{"smith", "a", "example", "jo"} {
				res := s.Call("search_contacts", map[string]any{"query": q, "include_archived": true})
				if !res.OK() {
					t.Errorf("search %q: %v", q, res.Err)
				}
			}
		}()
	}
	wg.Wait()
	for _, q := range []string{"smith", "a", "example", "jo"} {
		got, want := b2.searchHits(tool, q), b2.scanHits(tool, q)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("after concurrent searches, %q: %v, want %v", q, got, want)
		}
	}
}
