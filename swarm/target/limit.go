package target

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
)

// DefaultMaxResponseBytes bounds one HTTP answer from a target (a JSON
// response body, or one event of an SSE stream): a tool's answer is
// kilobytes, and a server that sends hundreds of megabytes would make
// every agent in flight hold as much (a 300 MB answer cost 4 GB of memory).
const DefaultMaxResponseBytes = 16 << 20

// ErrResponseTooLarge is why a call failed whose answer was over the
// limit. The call counts as a transport error.
var ErrResponseTooLarge = errors.New("the server's answer is over the size limit")

// limitBodies caps what every response of next may send: a JSON body as a
// whole, an SSE stream per event.
type limitBodies struct {
	next http.RoundTripper
	max  int64
}

func (l limitBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.next.RoundTrip(r)
	if err != nil || resp.Body == nil {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.ContentLength > l.max && mt != "text/event-stream" {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: %s answered %d bytes, the limit is %d", ErrResponseTooLarge, r.URL.Host, resp.ContentLength, l.max)
	}
	resp.Body = &cappedBody{rc: resp.Body, max: l.max, sse: mt == "text/event-stream", host: r.URL.Host}
	return resp, nil
}

// cappedBody fails a read once more than max bytes came: in all, or, for
// an SSE stream, since the last event ended (a blank line).
type cappedBody struct {
	rc      io.ReadCloser
	max     int64
	sse     bool
	host    string
	n       int64 // bytes counted towards the limit
	newline bool  // the last byte ended a line (SSE)
	err     error
}

func (c *cappedBody) Read(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	// Never read more than one byte past the limit: the caller's buffer
	// may be large, and what is over the limit is never handed on.
	if room := c.max - c.n + 1; int64(len(p)) > room && !c.sse {
		p = p[:room]
	}
	k, err := c.rc.Read(p)
	if !c.sse {
		c.n += int64(k)
	} else {
		for _, b := range p[:k] {
			switch b {
			case '\n':
				if c.newline {
					c.n = 0 // a blank line: the event ended
				}
				c.newline = true
				continue
			case '\r':
				continue
			}
			c.newline = false
			c.n++
			if c.n > c.max {
				break
			}
		}
	}
	if c.n > c.max {
		what := "answered"
		if c.sse {
			what = "sent an event of"
		}
		c.err = fmt.Errorf("%w: %s %s more than %d bytes", ErrResponseTooLarge, c.host, what, c.max)
		c.rc.Close()
		return 0, c.err
	}
	return k, err
}

func (c *cappedBody) Close() error { return c.rc.Close() }
