package target

import (
	"context"
	"errors"
	"sync"
)

// pool keeps a target's connections for reuse: an episode takes one and
// gives it back, so a run opens about as many MCP sessions (or
// subprocesses) as it has agents in flight, not one per agent.
type pool struct {
	name string
	dial dialer

	mu     sync.Mutex
	idle   []*conn
	conns  map[*conn]bool
	closed bool
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
	if n := len(p.idle); n > 0 {
		c := p.idle[n-1]
		p.idle = p.idle[:n-1]
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
