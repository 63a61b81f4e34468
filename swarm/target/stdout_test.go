package target

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// The filter passes JSON objects on, a line each, and skips and counts
// everything else: banners, log lines, JSON that is not an object, a line
// too long to hold. Blank lines are dropped without being counted.
func TestJSONLinesSkipsWhatIsNotAMessage(t *testing.T) {
	in := strings.Join([]string{
		"Secure MCP Filesystem Server running on stdio",
		`{"jsonrpc":"2.0","id":1,"result":{}}`,
		"",
		"[1, 2]",
		`{"jsonrpc":"2.0","method":"notifications/message"}` + "\r",
		"{not json",
		strings.Repeat("x", 300),
		`  {"jsonrpc":"2.0","id":2,"result":{"n":"tail"}}`, // no newline at the end
	}, "\n")
	skipped := &SkippedLines{}
	// One byte at a time: the filter must not depend on how reads split.
	out, err := io.ReadAll(newJSONLines(iotest.OneByteReader(strings.NewReader(in)), skipped, 200))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"result":{}}` + "\n" + `{"jsonrpc":"2.0","method":"notifications/message"}` + "\r\n" +
		`  {"jsonrpc":"2.0","id":2,"result":{"n":"tail"}}` + "\n"
	if string(out) != want {
		t.Errorf("passed on:\n%q\nwant:\n%q", out, want)
	}
	n, samples := skipped.Count()
	if n != 4 || len(samples) != skippedSamples || samples[0] != "Secure MCP Filesystem Server running on stdio" || samples[1] != "[1, 2]" {
		t.Errorf("skipped %d, samples %q", n, samples)
	}
}

// A line longer than the limit is read through, not held: memory stays
// bounded however long the line.
func TestJSONLinesDropsAHugeLineWithoutHoldingIt(t *testing.T) {
	huge := bytes.Repeat([]byte("y"), 1<<20)
	in := io.MultiReader(bytes.NewReader(huge), strings.NewReader("\n{\"id\":3}\n"))
	skipped := &SkippedLines{}
	j := newJSONLines(in, skipped, 4096)
	out, err := io.ReadAll(j)
	if err != nil || string(out) != "{\"id\":3}\n" {
		t.Fatalf("%q, %v", out, err)
	}
	if n, s := skipped.Count(); n != 1 || !strings.Contains(s[0], "longer than 4096 bytes") {
		t.Errorf("skipped %d %q", n, s)
	}
	if cap(j.line) > 64<<10 {
		t.Errorf("the filter held %d bytes of a line over its limit", cap(j.line))
	}
}
