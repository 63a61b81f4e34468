package target

import (
	"context"
	"errors"

	"github.com/herd-sh/herd/engine"
)

// Churn opens a new MCP session to the world, makes calls read calls on
// it (the world's list tools that need no argument, in turn) and drops it
// without ending it: the server keeps the session until its idle timeout,
// or evicts it, which is what a crowd of clients that connect, look and
// vanish does to a server. herd keeps the connection only to close it with
// the target once the run is over, so that nothing outlives the run here.
func (s *Served) Churn(ctx context.Context, m Meter, calls int) error {
	c, err := s.pool.dial(ctx)
	if err != nil {
		return err
	}
	s.pool.mu.Lock()
	if s.pool.closed {
		s.pool.mu.Unlock()
		_ = c.close()
		return errors.New(s.name + ": closed")
	}
	s.pool.conns[c] = true // closed by closeAll; never taken by an episode
	s.pool.mu.Unlock()
	reads := s.churnReads()
	for i := 0; i < calls && len(reads) > 0; i++ {
		if _, _, _, err := s.call(ctx, c, m, reads[i%len(reads)], map[string]any{}, nil); err != nil {
			return err
		}
	}
	return nil
}

// churnReads are the tools a churning session calls: lists that take no
// required argument.
func (s *Served) churnReads() []*engine.Tool {
	var out []*engine.Tool
	for _, t := range s.world.Tools {
		if t.Kind != engine.KindList {
			continue
		}
		required := false
		for _, p := range t.Params {
			required = required || p.Required
		}
		if !required {
			out = append(out, t)
		}
	}
	return out
}
