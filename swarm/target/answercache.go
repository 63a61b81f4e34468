package target

import (
	"slices"
	"sync"

	"github.com/herd-sh/herd/engine"
)

// answerCache keeps the results decoded from a target's latest distinct
// answers, by the answer's exact bytes, so that an answer seen before is
// not decoded again.
//
// Why: profiled under bench/load.sh, decoding each answer's structured
// content into maps and building records from them was the largest part
// of the swarm's own CPU per call, and most of it was decoding the same
// bytes again: every episode starts on a freshly reset world, so a get, a
// list or a search answers with the same records, byte for byte, episode
// after episode. In a 5-second run on crm (16 in flight, about 22,000 calls),
// the answers of 512 bytes or more were 31 distinct ones, met 4,169 times;
// the smaller ones (tool errors, mostly) were many and distinct. A result
// depends only on the tool and the answer's bytes (records decode the same
// way every time, and records are immutable), so the cached result is the
// one decoding would give.
//
// One cache serves every connection of a target (a hit on one session is
// as good as on another). It holds answers of minCachedAnswerBytes to
// maxCachedAnswerBytes, at most maxCachedAnswers of them and
// maxCachedBytes in all, and starts over when full.
type answerCache struct {
	mu    sync.Mutex
	m     map[string]cachedAnswer // by the structured content's bytes
	bytes int                     // of the keys held
	// hits and misses count lookups, for tests
	hits, misses int
}

// cachedAnswer is one answer's result, and what else tells it apart: the
// tool (the result's Tool and Committed come from it) and whether the
// answer is an error.
type cachedAnswer struct {
	tool    *engine.Tool
	isError bool
	res     engine.Result
}

const (
	// Smaller answers (most tool errors: their messages name the
	// argument) are many and distinct, and cheap to decode.
	minCachedAnswerBytes = 512
	maxCachedAnswers     = 1024
	maxCachedAnswerBytes = 64 << 10
	maxCachedBytes       = 4 << 20
)

// get returns a copy of the result cached for the answer: its own slice
// of records and its own error, so that nothing the caller does to it
// reaches the cache.
func (c *answerCache) get(t *engine.Tool, isError bool, body []byte) (engine.Result, bool) {
	if len(body) < minCachedAnswerBytes || len(body) > maxCachedAnswerBytes {
		return engine.Result{}, false
	}
	c.mu.Lock()
	e, ok := c.m[string(body)] // a lookup: body is not copied
	ok = ok && e.tool == t && e.isError == isError
	if ok {
		c.hits++
	} else {
		c.misses++
	}
	c.mu.Unlock()
	if !ok {
		return engine.Result{}, false
	}
	return copyResult(e.res), true
}

// put keeps res as the result of the answer.
func (c *answerCache) put(t *engine.Tool, isError bool, body []byte, res engine.Result) {
	if len(body) < minCachedAnswerBytes || len(body) > maxCachedAnswerBytes {
		return
	}
	e := cachedAnswer{tool: t, isError: isError, res: copyResult(res)}
	key := string(body)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCachedAnswers || c.bytes+len(key) > maxCachedBytes {
		c.m, c.bytes = make(map[string]cachedAnswer, 64), 0
	}
	if _, ok := c.m[key]; !ok {
		c.bytes += len(key)
	}
	c.m[key] = e
}

// copyResult is res with its own slice of records and its own error (the
// records themselves are immutable).
func copyResult(res engine.Result) engine.Result {
	if res.Records != nil {
		res.Records = slices.Clone(res.Records)
	}
	if res.Err != nil {
		e := *res.Err
		res.Err = &e
	}
	return res
}
