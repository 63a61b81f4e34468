package docs

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// A marker is one `<!-- generated: … -->` or `<!-- run: … -->` comment of a
// doc, parsed.
type marker struct {
	kind   string   // "generated": a block shows its output; "run": it only makes files for later markers
	line   int      // 1-based line of the comment in the doc
	text   string   // the marker's text after "generated:" or "run:", for messages
	argv   []string // the command; argv[0] is "herd"
	stderr bool     // `2>&1`: the block shows stderr too, interleaved as a shell would
	stages []stage  // the filters, in order
	exit   int      // the exit code the command must end with
	check  bool     // false (`check no`): only -update runs it, for a block too slow for CI

	// For "generated": the block is lines[open+1:close] of the doc (0-based);
	// lines[open] and lines[close] are its fences.
	open, close int
}

// A stage is one filter after a `|`: grep, section or lines.
type stage struct {
	kind     string
	patterns []*regexp.Regexp // grep, section
	invert   bool             // grep -v
	from, to int              // lines: 1-based, inclusive; to 0 means to the end
}

// markerLine matches a line that is meant to be a marker; a line that starts
// like one but does not parse is an error, never silently ordinary text.
var markerLine = regexp.MustCompile(`^<!--\s*(generated|run)\s*:(.*)-->\s*$`)

// looksLikeMarker catches misspelt or unclosed markers (`<!-- generate: …`,
// a missing `-->`), so that a typo cannot leave a block unchecked.
var looksLikeMarker = regexp.MustCompile(`^<!--\s*(generate[ds]?|runs?)\b`)

// parseDoc finds the markers of one doc. name is the doc's path for messages.
func parseDoc(name string, lines []string) ([]marker, []error) {
	var ms []marker
	var errs []error
	inFence := false
	for i := 0; i < len(lines); i++ {
		// A marker starts at column 0, outside any fence: one quoted in an
		// indented or fenced example is text.
		if strings.HasPrefix(lines[i], "```") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		l := strings.TrimRight(lines[i], " \t")
		m := markerLine.FindStringSubmatch(l)
		if m == nil {
			if looksLikeMarker.MatchString(l) {
				errs = append(errs, fmt.Errorf("%s:%d: %q looks like a marker but is not one: write <!-- generated: herd … --> or <!-- run: herd … --> on one line", name, i+1, l))
			}
			continue
		}
		mk, err := parseMarker(m[1], strings.TrimSpace(m[2]))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %s", name, i+1, err))
			continue
		}
		mk.line = i + 1
		if mk.kind == "generated" {
			if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "```") {
				errs = append(errs, fmt.Errorf("%s:%d: a generated marker must be followed at once by a fenced block (```), the command's output", name, i+1))
				continue
			}
			end := -1
			for j := i + 2; j < len(lines); j++ {
				if strings.TrimRight(lines[j], " ") == "```" {
					end = j
					break
				}
			}
			if end < 0 {
				errs = append(errs, fmt.Errorf("%s:%d: the fenced block after this marker is never closed", name, i+1))
				continue
			}
			mk.open, mk.close = i+1, end
			i = end
		}
		ms = append(ms, mk)
	}
	return ms, errs
}

// parseMarker parses the text of a marker:
//
//	herd ARGS… [2>&1] [| grep [-v] RE…] [| section RE…] [| lines A-B] [; exit N] [; check no]
func parseMarker(kind, text string) (marker, error) {
	mk := marker{kind: kind, text: text, check: true}
	toks, err := tokenize(text)
	if err != nil {
		return mk, err
	}
	segments := split(toks, ";")
	pipeline := split(segments[0], "|")
	mk.argv = pipeline[0]
	if n := len(mk.argv); n > 0 && mk.argv[n-1] == "2>&1" {
		mk.stderr = true
		mk.argv = mk.argv[:n-1]
	}
	if len(mk.argv) == 0 || mk.argv[0] != "herd" {
		return mk, fmt.Errorf("marker %q: the command must start with herd", text)
	}
	for _, a := range mk.argv[1:] {
		// Generated docs run on every CI job: in-process worlds only, and a
		// serve: target (herd's own server on 127.0.0.1) at most.
		for _, bad := range []string{"http://", "https://", "mcp+stdio:", "--otlp"} {
			if strings.HasPrefix(a, bad) {
				return mk, fmt.Errorf("marker %q: %s is not allowed in a generated doc: use an in-process world (mock:crm) or serve:WORLD", text, a)
			}
		}
	}
	for _, p := range pipeline[1:] {
		st, err := parseStage(p)
		if err != nil {
			return mk, fmt.Errorf("marker %q: %s", text, err)
		}
		if kind == "run" {
			return mk, fmt.Errorf("marker %q: a run marker shows nothing, so it takes no filter", text)
		}
		mk.stages = append(mk.stages, st)
	}
	for _, seg := range segments[1:] {
		switch {
		case len(seg) == 2 && seg[0] == "exit":
			n, err := strconv.Atoi(seg[1])
			if err != nil || n < 0 || n > 255 {
				return mk, fmt.Errorf("marker %q: exit wants a number from 0 to 255, got %q", text, seg[1])
			}
			mk.exit = n
		case len(seg) == 2 && seg[0] == "check" && seg[1] == "no":
			mk.check = false
		default:
			return mk, fmt.Errorf("marker %q: unknown option %q after ';' (want 'exit N' or 'check no')", text, strings.Join(seg, " "))
		}
	}
	return mk, nil
}

func parseStage(toks []string) (stage, error) {
	if len(toks) == 0 {
		return stage{}, fmt.Errorf("an empty filter after '|'")
	}
	st := stage{kind: toks[0]}
	args := toks[1:]
	switch st.kind {
	case "grep", "section":
		for _, a := range args {
			switch {
			case a == "-v" && st.kind == "grep":
				st.invert = true
			case a == "-e":
			default:
				re, err := regexp.Compile(a)
				if err != nil {
					return st, fmt.Errorf("%s pattern %q: %v", st.kind, a, err)
				}
				st.patterns = append(st.patterns, re)
			}
		}
		if len(st.patterns) == 0 {
			return st, fmt.Errorf("%s needs at least one pattern", st.kind)
		}
	case "lines":
		if len(args) != 1 {
			return st, fmt.Errorf("lines wants one range A-B (or A-), got %q", strings.Join(args, " "))
		}
		a, b, ok := strings.Cut(args[0], "-")
		from, err1 := strconv.Atoi(a)
		to, err2 := strconv.Atoi(b)
		if b == "" {
			to, err2 = 0, nil
		}
		if !ok || err1 != nil || err2 != nil || from < 1 || (to != 0 && to < from) {
			return st, fmt.Errorf("lines wants a range A-B with 1 ≤ A ≤ B (or A- for the rest), got %q", args[0])
		}
		st.from, st.to = from, to
	default:
		return st, fmt.Errorf("unknown filter %q (want grep, section or lines)", st.kind)
	}
	return st, nil
}

// apply runs one filter over the output's lines.
func (st stage) apply(lines []string) []string {
	matches := func(l string) bool {
		for _, re := range st.patterns {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	}
	var out []string
	switch st.kind {
	case "grep":
		for _, l := range lines {
			if matches(l) != st.invert {
				out = append(out, l)
			}
		}
	case "section":
		// A section is a run of non-blank lines; herd's terminal report
		// separates its tables with blank lines, each table under its title.
		for i := 0; i < len(lines); {
			if strings.TrimSpace(lines[i]) == "" {
				i++
				continue
			}
			j := i
			for j < len(lines) && strings.TrimSpace(lines[j]) != "" {
				j++
			}
			if matches(lines[i]) {
				if len(out) > 0 {
					out = append(out, "")
				}
				out = append(out, lines[i:j]...)
			}
			i = j
		}
	case "lines":
		to := st.to
		if to == 0 || to > len(lines) {
			to = len(lines)
		}
		if st.from <= to {
			out = lines[st.from-1 : to]
		}
	}
	return out
}

// tokenize splits a marker's text as a POSIX shell would split a simple
// command: spaces separate words, '…' is literal, "…" allows \" and \\,
// and an unquoted | or ; is a token of its own.
func tokenize(s string) ([]string, error) {
	var toks []string
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			toks = append(toks, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			flush()
		case c == '|' || c == ';':
			flush()
			toks = append(toks, string(c))
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, fmt.Errorf("marker %q: unclosed single quote", s)
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, fmt.Errorf("marker %q: unclosed double quote", s)
			}
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return toks, nil
}

// split cuts tokens at each separator token; it always returns at least one
// (possibly empty) part.
func split(toks []string, sep string) [][]string {
	parts := [][]string{{}}
	for _, t := range toks {
		if t == sep {
			parts = append(parts, []string{})
			continue
		}
		parts[len(parts)-1] = append(parts[len(parts)-1], t)
	}
	return parts
}
