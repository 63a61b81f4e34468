package target

import (
	"context"
	"errors"
	"sync"
)

// pool keeps a target's connections for reuse: an episode takes one and
// gives it back, so a run opens about as many MCP sessions (or
// subprocesses) as it has agents in flight, not one per agent.
//
// Idle connections are taken oldest first, so a connection parked with an
// episode awaiting its journal (see park) is the next one reset.
type pool struct {
	name string
	dial dialer

	mu       sync.Mutex
	idle     []*conn
	conns    map[*conn]bool
	closed   bool
	draining bool // no connection is parked any more (see drain)
}

// journalResult is a parked episode's journal, or why it could not be read.
type journalResult struct {
	calls []servedCall
	err   error
}

func newPool(name string, d dialer) pool {
	return pool{name: name, dial: d, conns: map[*conn]bool{}}
}

// take returns an idle connection, or dials a new one.
func (p *pool) take(ctx context.Context) (*conn, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errors.New(p.name + ": closed")
	}
	if len(p.idle) > 0 {
		c := p.idle[0]
		p.idle[0] = nil
		p.idle = p.idle[1:]
		p.mu.Unlock()
		return c, nil
	}
	p.mu.Unlock()
	c, err := p.dial(ctx)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		_ = c.close()
		return nil, errors.New(p.name + ": closed")
	}
	p.conns[c] = true
	return c, nil
}

// adopt adds a connection opened elsewhere as an idle one.
func (p *pool) adopt(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.conns[c] = true
	p.idle = append(p.idle, c)
}

// release gives a connection back (ok) or closes it (its transport failed).
func (p *pool) release(c *conn, ok bool) {
	p.mu.Lock()
	if ok && !p.closed {
		p.idle = append(p.idle, c)
		p.mu.Unlock()
		return
	}
	delete(p.conns, c)
	p.mu.Unlock()
	_ = c.close()
}

// park gives a connection back with its episode's journal still to read:
// the next reset of the connection returns the journal and sends it on ch
// (buffered), so the episode costs no request of its own. It returns false,
// keeping nothing, when the pool is draining or closed: the caller then
// reads the journal itself.
func (p *pool) park(c *conn, ch chan journalResult) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.draining || p.closed {
		return false
	}
	c.pending = ch
	p.idle = append(p.idle, c)
	return true
}

// drain stops parking and reads the journal of every parked connection
// (the run starts no more episodes, so no reset would). read reads one.
func (p *pool) drain(read func(c *conn) ([]servedCall, error)) {
	p.mu.Lock()
	p.draining = true
	var parked []*conn
	kept := p.idle[:0]
	for _, c := range p.idle {
		if c.pending != nil {
			parked = append(parked, c)
		} else {
			kept = append(kept, c)
		}
	}
	p.idle = kept
	p.mu.Unlock()
	for _, c := range parked {
		calls, err := read(c)
		c.pending <- journalResult{calls, err}
		c.pending = nil
		p.release(c, err == nil)
	}
}

// closeAll ends every connection; the pool takes no more.
func (p *pool) closeAll() error {
	p.mu.Lock()
	p.closed = true
	conns := make([]*conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.conns, p.idle = map[*conn]bool{}, nil
	p.mu.Unlock()
	var first error
	for _, c := range conns {
		if err := c.close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
