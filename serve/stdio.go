package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeStdio serves one MCP session over in and out (newline-delimited
// JSON-RPC, as MCP's stdio transport is) until in ends or ctx is done. The
// session is named "stdio" on the control plane. Nothing but MCP messages is
// written to out.
//
// Requests pass through a line filter first: the SDK's stdio transport ends
// the whole session on the first line it cannot decode, so the filter
// answers a line that is not JSON, not JSON-RPC, or over MaxRequestBytes with
// a JSON-RPC error itself, and the session goes on.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	f := &lineFilter{
		warn:    func(msg string) { s.log.Warn("stdio: request refused", "reason", msg) },
		pending: map[any]struct{}{},
		drained: make(chan struct{}),
	}
	w := &lockedWriter{w: out, sent: f.answered}
	f.out = w
	pr, pw := io.Pipe()
	go func() {
		err := f.run(in, pw)
		if err == nil {
			// stdin ended: answer what is in flight before the SDK sees the
			// end (it drops answers to requests still running when its input
			// ends), so that `printf REQUESTS | herd serve WORLD` gets every
			// answer. (An error means the session is gone already.)
			drain := s.maxWait + 5*time.Second
			if s.maxWait < 0 {
				drain = 5 * time.Second
			}
			f.waitDrained(ctx, drain)
		}
		pw.CloseWithError(err)
	}()
	ss, err := s.Connect(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{w}}, "stdio")
	if err != nil {
		return err
	}
	waited := make(chan error, 1)
	go func() {
		err := ss.Wait()
		// Mark the world closed before returning, so a caller that reads
		// Sessions after ServeStdio sees it ended.
		if ws := s.sessions.closeMCP(ss); ws != nil {
			s.log.Info("session closed", "session", ws.id, "ended", ws.endReason())
		}
		waited <- err
	}()
	select {
	case err := <-waited:
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrClosedPipe) {
			return fmt.Errorf("stdio session: %w", err)
		}
		return nil
	case <-ctx.Done():
		s.Close()
		<-waited
		return nil
	}
}

// lockedWriter serialises writes from the SDK and from the filter, so each
// message stays one whole line, and tells sent about each line written.
type lockedWriter struct {
	mu   sync.Mutex
	w    io.Writer
	sent func(line []byte)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.sent != nil {
		l.sent(p)
	}
	return n, err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// lineFilter passes well-formed JSON-RPC lines on to the SDK and answers the
// rest with an error.
type lineFilter struct {
	out  *lockedWriter
	warn func(msg string)

	// protocol is the version the client asked for in initialize; JSON-RPC
	// batches are only valid before 2025-06-18.
	protocol string

	// pending holds the ids of requests passed on and not yet answered;
	// drained is closed once input has ended and pending is empty.
	mu       sync.Mutex
	pending  map[any]struct{}
	inputEnd bool
	drained  chan struct{}
}

// forwarded notes a request (with an id) passed on to the SDK.
func (f *lineFilter) forwarded(id jsonrpc.ID) {
	f.mu.Lock()
	f.pending[id.Raw()] = struct{}{}
	f.mu.Unlock()
}

// answered notes an answer the SDK wrote.
func (f *lineFilter) answered(line []byte) {
	id, ok := responseID(line)
	if !ok {
		return
	}
	f.mu.Lock()
	delete(f.pending, id.Raw())
	f.checkDrained()
	f.mu.Unlock()
}

// responseID reads the id of a JSON-RPC response without decoding its
// result: the SDK writes "id" before "result" or "error", so this stops a
// few tokens in, however large the answer. A request or notification of the
// server's ("method") is no response.
func responseID(line []byte) (jsonrpc.ID, bool) {
	id, at := scanMembers(line, "result", "error", "method")
	if (at != "result" && at != "error") || !id.IsValid() {
		return jsonrpc.ID{}, false
	}
	return id, true
}

// topLevelID reads the "id" member of a JSON-RPC object from a line that may
// be cut short or broken further on, so the error can be matched to its
// request.
func topLevelID(line []byte) jsonrpc.ID {
	id, _ := scanMembers(line, "id")
	return id
}

// scanMembers reads the members of the JSON object on line in order, up to
// the first whose key is in stop, and returns the "id" member read on the
// way (invalid when there is none or it is not a string or an integer) and
// the key it stopped at ("" when the line ended or broke first). It reads
// tokens, so an "id" nested in params is not taken for the request's, and
// nothing after the stop is looked at.
func scanMembers(line []byte, stop ...string) (id jsonrpc.ID, at string) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return jsonrpc.ID{}, ""
	}
	for {
		t, err := dec.Token()
		if err != nil {
			return id, ""
		}
		key, ok := t.(string)
		if !ok {
			return id, ""
		}
		if key == "id" {
			v, err := dec.Token()
			if _, nested := v.(json.Delim); err != nil || nested {
				return jsonrpc.ID{}, ""
			}
			id = idFromToken(v)
		}
		if slices.Contains(stop, key) {
			return id, key
		}
		if key == "id" {
			continue
		}
		// Skip the member's value, however deep.
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return id, ""
		}
	}
}

// idFromToken converts a decoded id token (string or json.Number) to an ID.
func idFromToken(v any) jsonrpc.ID {
	switch x := v.(type) {
	case string:
		id, _ := jsonrpc.MakeID(x)
		return id
	case json.Number:
		if n, err := x.Int64(); err == nil {
			id, _ := jsonrpc.MakeID(float64(n))
			return id
		}
	}
	return jsonrpc.ID{}
}

// checkDrained closes drained when input ended and nothing is pending.
// Must be called with mu held.
func (f *lineFilter) checkDrained() {
	if f.inputEnd && len(f.pending) == 0 {
		select {
		case <-f.drained:
		default:
			close(f.drained)
		}
	}
}

// waitDrained waits until every forwarded request is answered, at most
// limit.
func (f *lineFilter) waitDrained(ctx context.Context, limit time.Duration) {
	f.mu.Lock()
	f.inputEnd = true
	f.checkDrained()
	f.mu.Unlock()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case <-f.drained:
	case <-t.C:
	case <-ctx.Done():
	}
}

// run copies lines from in to pass until in ends.
func (f *lineFilter) run(in io.Reader, pass io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxRequestBytes)
		if len(line) > 0 || tooLong {
			if ok := f.check(line, tooLong); ok {
				if _, werr := pass.Write(append(line, '\n')); werr != nil {
					return werr
				}
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line without its newline. A line over limit is
// discarded to its end and reported as tooLong, with its first limit bytes
// (enough to find the request id).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > limit+1 { // +1: the newline itself
			if !tooLong {
				room := max(limit-len(line), 0)
				line = append(line, chunk[:min(room, len(chunk))]...)
			}
			tooLong = true
		} else if !tooLong {
			line = append(line, chunk...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		line = bytes.TrimRight(line, "\r\n")
		return bytes.TrimSpace(line), tooLong, err
	}
}

// check decides whether a line goes to the SDK; when it does not, the
// client gets a JSON-RPC error (with the request's id when one can be read).
func (f *lineFilter) check(line []byte, tooLong bool) bool {
	switch {
	case tooLong:
		f.reject(topLevelID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf("request is larger than %d bytes", MaxRequestBytes))
		return false
	case !json.Valid(line):
		f.reject(topLevelID(line), jsonrpc.CodeParseError, "parse error: the line is not valid JSON")
		return false
	case line[0] == '[':
		return f.checkBatch(line)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		f.reject(topLevelID(line), jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return false
	}
	if req, ok := msg.(*jsonrpc.Request); ok {
		if req.Method == "initialize" {
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			if json.Unmarshal(req.Params, &p) == nil {
				f.protocol = p.ProtocolVersion
			}
		}
		if req.IsCall() {
			f.forwarded(req.ID)
		}
	}
	return true
}

func (f *lineFilter) checkBatch(line []byte) bool {
	if f.protocol == "" || f.protocol >= "2025-06-18" {
		f.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported in MCP 2025-06-18 and later")
		return false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(line, &items); err != nil || len(items) == 0 {
		f.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: empty batch")
		return false
	}
	for _, it := range items {
		if _, err := jsonrpc.DecodeMessage(it); err != nil {
			f.reject(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request in batch: "+err.Error())
			return false
		}
	}
	return true
}

// reject writes a JSON-RPC error response.
func (f *lineFilter) reject(id jsonrpc.ID, code int64, msg string) {
	f.warn(msg)
	resp := struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), &jsonrpc.Error{Code: code, Message: msg}}
	b, err := json.Marshal(resp)
	if err != nil {
		return
	}
	_, _ = f.out.Write(append(b, '\n'))
}
