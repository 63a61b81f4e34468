package report_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/report/reporttest"
)

// hostileName is appended to every name of a results file: raw HTML, a
// mention, an unclosed comment, a line break starting a heading, and ESC
// sequences that clear the screen and set the window title.
const hostileName = "<script>alert(1)</script>@octocat<!--\n# injected\x1b[2J\x1b]0;pwned\x07\u009b31m"

// hostileKeys are the JSON keys whose string values are names a results
// file from elsewhere may hold.
var hostileKeys = map[string]bool{"goal": true, "class": true, "persona": true, "variant": true, "variants": true,
	"tool": true, "name": true, "source": true, "target": true, "host": true, "command": true, "replay": true,
	"result": true, "message": true, "fix": true, "meant": true, "called": true, "goals": true, "faults": true,
	"herd_version": true, "a": true, "b": true, "at": true, "read": true, "kind": false}

// poison appends hostileName to every name in the document, consistently
// (a variant is renamed everywhere it appears, map keys included).
func poison(v any, key string) any {
	switch x := v.(type) {
	case string:
		if hostileKeys[key] {
			return x + hostileName
		}
		return x
	case []any:
		for i := range x {
			x[i] = poison(x[i], key)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if key == "from" || key == "to" { // variant → class
				out[k+hostileName] = e.(string) + hostileName
				continue
			}
			out[k] = poison(e, k)
		}
		return out
	}
	return v
}

// codeSpan is a Markdown code span on one line.
var codeSpan = regexp.MustCompile("`[^`\n]*`")

func hostileResults(t *testing.T) *report.Results {
	t.Helper()
	var buf bytes.Buffer
	if err := reporttest.CRM(reporttest.Config{Seed: 3, Agents: 400, Timing: true}).Write(&buf); err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(poison(doc, ""))
	if err != nil {
		t.Fatal(err)
	}
	res, err := report.Decode(data)
	if err != nil {
		t.Fatalf("the poisoned document does not decode: %v", err)
	}
	if len(res.Traces) == 0 || !strings.Contains(res.Run.World.Name, "<script>") {
		t.Fatal("the poisoned document has no traces or no poisoned names")
	}
	return res
}

// checkInert fails if out holds anything live: an injected line or a
// control character, and in Markdown, HTML, a mention or a comment.
func checkInert(t *testing.T, what, out string, markdown bool) {
	t.Helper()
	live := []string{"\x1b", "\x07", "\u009b"}
	if markdown {
		live = append(live, "<script", "</script", "<!--", "@octocat")
		// A code span shows its text literally (no HTML, no mentions); a
		// replay command is one. What is left must hold nothing live.
		out = codeSpan.ReplaceAllString(out, "``")
	}
	for _, live := range live {
		if n := strings.Count(out, live); n > 0 {
			t.Errorf("%s: %q appears %d times", what, live, n)
		}
	}
	for i, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimLeft(line, " |+"), "# injected") {
			t.Errorf("%s: line %d is an injected line: %q", what, i+1, line)
			break
		}
	}
}

func TestHostileNamesRenderInert(t *testing.T) {
	res := hostileResults(t)
	var md, term bytes.Buffer
	if err := report.Markdown(&md, res); err != nil {
		t.Fatal(err)
	}
	checkInert(t, "markdown", md.String(), true)
	if !strings.Contains(md.String(), "&lt;script>") || !strings.Contains(md.String(), "@\u200boctocat") {
		t.Error("markdown: the names are not shown, escaped")
	}
	for _, full := range []bool{false, true} {
		term.Reset()
		if err := report.Terminal(&term, res, report.TerminalOptions{Plain: true, Full: full}); err != nil {
			t.Fatal(err)
		}
		checkInert(t, fmt.Sprintf("terminal (full %v)", full), term.String(), false)
		if !strings.Contains(term.String(), `\u001b[2J`) {
			t.Errorf("terminal (full %v): the ESC sequence is not shown as \\u001b", full)
		}
	}
	d, err := report.Diff(res, res, report.DiffOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var dmd, dterm bytes.Buffer
	if err := report.DiffMarkdown(&dmd, d); err != nil {
		t.Fatal(err)
	}
	checkInert(t, "diff markdown", dmd.String(), true)
	if err := report.DiffTerminal(&dterm, d, true); err != nil {
		t.Fatal(err)
	}
	checkInert(t, "diff terminal", dterm.String(), false)
}

// A 10 MB name prints as a short cell, not as megabytes.
func TestHugeNameIsCut(t *testing.T) {
	res := reporttest.CRM(reporttest.Config{Seed: 3, Agents: 100})
	res.Run.World.Name = strings.Repeat("n", 10<<20)
	var term, md bytes.Buffer
	if err := report.Terminal(&term, res, report.TerminalOptions{Plain: true}); err != nil {
		t.Fatal(err)
	}
	if err := report.Markdown(&md, res); err != nil {
		t.Fatal(err)
	}
	if term.Len() > 1<<20 || md.Len() > report.MarkdownLimit {
		t.Errorf("a 10 MB name made %d bytes of terminal and %d of Markdown output", term.Len(), md.Len())
	}
}
