package target

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"unicode/utf8"
)

// A stdio MCP server must write nothing but JSON-RPC messages on stdout,
// yet many print a banner or a log line there ("MCP server running on
// stdio"). The go-sdk client stops at the first line that is not JSON,
// where the official TypeScript client skips it; herd skips it too, and
// counts it, so the report can say the server breaks the rule.

// maxStdoutLine bounds one stdout line of a server: the longest message
// the SDK itself accepts. A longer line is skipped (and counted) without
// being held in memory.
const maxStdoutLine = 16 << 20

// skippedSamples is how many skipped lines are kept, for a message.
const (
	skippedSamples   = 3
	skippedSampleLen = 120
)

// SkippedLines counts the stdout lines of a target's processes that were
// not JSON objects, and keeps the first few. It is shared by every
// process of a target, and safe for concurrent use.
type SkippedLines struct {
	mu      sync.Mutex
	n       int64
	samples []string
}

// add counts one skipped line.
func (s *SkippedLines) add(line []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	if len(s.samples) < skippedSamples {
		s.samples = append(s.samples, sampleOf(line))
	}
}

// Count is the number of lines skipped, and the first few of them (cut
// to a short length; not escaped: a renderer escapes what it prints).
func (s *SkippedLines) Count() (int64, []string) {
	if s == nil {
		return 0, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, append([]string(nil), s.samples...)
}

func sampleOf(line []byte) string {
	if len(line) > skippedSampleLen {
		n := skippedSampleLen
		for n > 0 && !utf8.RuneStart(line[n]) {
			n--
		}
		return string(line[:n]) + "…"
	}
	return string(line)
}

// jsonLines passes on the lines of r that are JSON objects, each ending in
// a newline, and counts the others in skipped. Blank lines are dropped
// without being counted.
type jsonLines struct {
	r       *bufio.Reader
	skipped *SkippedLines
	max     int
	line    []byte // the line being read (reused)
	out     []byte // what is left of the line being passed on
}

func newJSONLines(r io.Reader, skipped *SkippedLines, max int) *jsonLines {
	return &jsonLines{r: bufio.NewReaderSize(r, 64<<10), skipped: skipped, max: max}
}

func (j *jsonLines) Read(p []byte) (int, error) {
	for len(j.out) == 0 {
		line, tooLong, err := j.next()
		switch {
		case tooLong:
			j.skipped.add([]byte(fmt.Sprintf("(a line longer than %d bytes)", j.max)))
		case isJSONObject(line):
			j.out = append(line, '\n')
		case len(bytes.TrimSpace(line)) > 0:
			j.skipped.add(bytes.TrimRight(line, "\r"))
		}
		if err != nil && len(j.out) == 0 {
			return 0, err
		}
		if err != nil {
			break // pass the last line on; the next Read returns err
		}
	}
	n := copy(p, j.out)
	j.out = j.out[n:]
	return n, nil
}

// next reads one line without its newline. A line longer than j.max is
// read through and reported as tooLong, with no bytes kept.
func (j *jsonLines) next() (line []byte, tooLong bool, err error) {
	j.line = j.line[:0]
	for {
		chunk, err := j.r.ReadSlice('\n')
		if !tooLong {
			if len(j.line)+len(chunk) > j.max+1 {
				tooLong, j.line = true, j.line[:0]
			} else {
				j.line = append(j.line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, err
		}
		return bytes.TrimSuffix(j.line, []byte("\n")), false, err
	}
}

// isJSONObject reports whether line is one JSON object (what a JSON-RPC
// message over stdio is).
func isJSONObject(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}
