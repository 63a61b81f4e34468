package target

import (
	"context"
	"strings"
	"testing"
)

// A stdio server's pool is fixed and shared: agents take the least busy
// process, never a new one; a process whose transport failed is dropped
// (closed once, however many agents held it); with every process gone,
// taking fails rather than starting another.
func TestSharedPoolSpreadsAndDrops(t *testing.T) {
	closed := map[*extConn]int{}
	conn := func() *extConn {
		c := &extConn{live: &liveness{}}
		c.close = func() error { closed[c]++; return nil }
		return c
	}
	p := extPool{name: "srv", fixed: 2, dial: func(context.Context) (*extConn, error) {
		t.Fatal("a fixed pool dialled a new process")
		return nil, nil
	}}
	a, b := conn(), conn()
	p.add(a)
	p.add(b)
	ctx := context.Background()
	var taken []*extConn
	for range 4 {
		c, err := p.take(ctx)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, c)
	}
	if a.busy != 2 || b.busy != 2 {
		t.Fatalf("busy %d and %d, want the four agents spread 2 and 2", a.busy, b.busy)
	}
	for _, c := range taken {
		p.release(c, false) // every agent saw its process fail
	}
	if closed[a] != 1 || closed[b] != 1 {
		t.Errorf("closed %d and %d times, want once each", closed[a], closed[b])
	}
	if _, err := p.take(ctx); err == nil || !strings.Contains(err.Error(), "every process of the pool has exited") {
		t.Errorf("take from an empty pool: %v", err)
	}
}
