// Package docs keeps the command output shown in herd's documentation true.
//
// Every block of command output in README.md, docs/*.md and docs/worlds/*.md
// that shows numbers is generated. Regenerate them all after a change that
// moves a number (the reader model, a world, a renderer):
//
//	go test ./docs -run TestDocs -update -v
//
// (-v lists each block it rewrote: read the prose around those.) Without
// -update the test checks that every block is what herd prints now, and
// fails naming each stale block (doc and line) — CI keeps the docs true.
//
// A block is marked by the HTML comment right above its fence:
//
//	<!-- generated: herd swarm mock:crm --agents 2000 --seed 42 | section '^VERDICT' -->
//	```
//	(the output, rewritten by -update)
//	```
//
// The comment's text is a command line, split as a shell splits it ('…' and
// "…" quote), then optional parts:
//
//	2>&1                 at the end of the command: show stderr too, interleaved
//	| grep [-v] RE…      keep the lines matching any RE (Go regexp); -v drops them
//	| section RE…        keep the paragraphs (runs of non-blank lines: one table of
//	                     herd's terminal report, with its title) whose first line
//	                     matches any RE
//	| lines A-B          keep lines A to B (1-based; A- for the rest)
//	; exit N             the exit code the command must end with (default 0)
//	; check no           too slow for CI: only -update runs it
//
// `<!-- run: herd … -->` runs a command for the files it writes (a --json a
// later `herd diff` reads) and shows nothing. The commands of one doc run in
// order, in one scratch directory that holds the repository's top-level
// entries as symlinks — so `--descriptions lint/testdata/…` resolves and
// `--json run.json` lands in the scratch directory, never in the checkout.
//
// herd is built once, from this checkout, without VCS stamping (so reports
// say "herd dev" whatever the commit). Commands run as subprocesses, one at a
// time, each with a time limit; only in-process worlds and serve: targets
// are allowed (no URL, no stdio server, no OTLP). An empty filter result is
// an error, as is a command that exits with another code than its marker
// says: the message names the doc, the line, the command and herd's stderr.
//
// Numbers in prose are not generated: the prose refers to the block ("the
// table above") instead of repeating its numbers, so a regenerated block
// cannot leave a sentence behind that quotes the old ones.
package docs

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the generated blocks of the docs with what herd prints now")

// commandTimeout bounds one command: the slowest block today takes about a
// second; a minute means something hangs.
const commandTimeout = time.Minute

func TestDocs(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	docs := []string{filepath.Join(root, "README.md")}
	for _, pattern := range []string{"docs/*.md", "docs/worlds/*.md"} {
		found, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, found...)
	}

	type parsed struct {
		path, name string
		lines      []string
		markers    []marker
	}
	var todo []parsed
	for _, path := range docs {
		name, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(data), "\n")
		ms, errs := parseDoc(name, lines)
		for _, err := range errs {
			t.Error(err)
		}
		if len(ms) > 0 {
			todo = append(todo, parsed{path, name, lines, ms})
		}
	}
	if t.Failed() {
		return
	}
	if len(todo) == 0 {
		t.Fatal("no doc has a generated block: the markers are gone")
	}

	herd := buildHerd(t, root)
	var stale []string
	for _, d := range todo {
		work := scratchDir(t, root)
		lines := d.lines
		changed := false
		var docStale []string // in document order
		outputs := make([][]string, len(d.markers))
		ran := make([]bool, len(d.markers))
		for i, mk := range d.markers {
			if !mk.check && !*update {
				continue
			}
			out, err := runMarker(herd, work, mk)
			if err != nil {
				t.Errorf("%s:%d: %s", d.name, mk.line, err)
				continue
			}
			outputs[i], ran[i] = out, true
		}
		// Rewrite from the last block up, so earlier line numbers stay put.
		for i := len(d.markers) - 1; i >= 0; i-- {
			mk := d.markers[i]
			if mk.kind != "generated" || !ran[i] {
				continue
			}
			have := lines[mk.open+1 : mk.close]
			want := outputs[i]
			if equalLines(have, want) {
				continue
			}
			if *update {
				next := append([]string{}, lines[:mk.open+1]...)
				next = append(next, want...)
				lines = append(next, lines[mk.close:]...)
				changed = true
				t.Logf("%s:%d: rewrote the block of: %s", d.name, mk.line, mk.text)
				continue
			}
			docStale = append([]string{fmt.Sprintf("%s:%d: %s\n    %s", d.name, mk.line, mk.text, firstDifference(have, want))}, docStale...)
		}
		stale = append(stale, docStale...)
		if changed {
			if err := os.WriteFile(d.path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(stale) > 0 {
		t.Errorf("%d generated doc block(s) are not what herd prints now; run\n\n    go test ./docs -run TestDocs -update\n\nand read the prose around each:\n%s", len(stale), strings.Join(stale, "\n"))
	}
}

// buildHerd builds cmd/herd once for every command. -buildvcs=false keeps
// the version "dev": a commit-stamped version would change every block's
// report header on every commit.
func buildHerd(t *testing.T, root string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "herd")
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", bin, "./cmd/herd")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building herd for the docs: %v\n%s", err, out)
	}
	return bin
}

// scratchDir is where one doc's commands run: the repository's top-level
// entries linked in, so paths in the docs resolve as from a checkout, and
// every file a command writes stays out of it.
func scratchDir(t *testing.T, root string) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if err := os.Symlink(filepath.Join(root, e.Name()), filepath.Join(dir, e.Name())); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// runMarker runs one marker's command and returns the lines its block shows.
func runMarker(herd, dir string, mk marker) ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), commandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, herd, mk.argv[1:]...)
	cmd.Dir = dir
	// No terminal, no colour: herd prints its plain ASCII tables, as in a CI log.
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "TERM=dumb")
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	if mk.stderr {
		cmd.Stderr = &stdout
	}
	err := cmd.Run()
	code := 0
	var exitErr *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("%s: no answer within %s", mk.text, commandTimeout)
	case errors.As(err, &exitErr):
		code = exitErr.ExitCode()
	case err != nil:
		return nil, fmt.Errorf("%s: %v", mk.text, err)
	}
	if code != mk.exit {
		msg := strings.TrimSpace(stderr.String())
		if mk.stderr {
			msg = lastLines(stdout.String(), 5)
		}
		hint := ""
		if mk.exit == 0 && code == 1 {
			hint = " (if that is the point of the example — a failed threshold, a regression, a lint error — add '; exit 1' to the marker)"
		}
		return nil, fmt.Errorf("%s: exit %d, want %d%s\n%s", mk.text, code, mk.exit, hint, msg)
	}
	if mk.kind == "run" {
		return nil, nil
	}
	out := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	for _, st := range mk.stages {
		out = st.apply(out)
	}
	for i, l := range out {
		out[i] = strings.TrimRight(l, " \t") // editors strip trailing blanks; so do we
	}
	if len(out) == 0 || (len(out) == 1 && out[0] == "") {
		return nil, fmt.Errorf("%s: the filters kept no line of herd's output: a pattern no longer matches what herd prints", mk.text)
	}
	return out, nil
}

func equalLines(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.TrimRight(a[i], " \t") != b[i] {
			return false
		}
	}
	return true
}

// firstDifference says where a stale block first differs from herd's output.
func firstDifference(have, want []string) string {
	for i := 0; i < len(have) || i < len(want); i++ {
		var h, w string
		if i < len(have) {
			h = strings.TrimRight(have[i], " \t")
		}
		if i < len(want) {
			w = want[i]
		}
		if i >= len(have) || i >= len(want) || h != w {
			return fmt.Sprintf("block line %d is %q, herd now prints %q", i+1, h, w)
		}
	}
	return "no difference"
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
