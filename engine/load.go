package engine

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/herd-sh/herd/internal/yamlpos"
)

// LoadError lists every problem found in a world file, each as
// file:line:col: message, in file order.
type LoadError struct {
	File     string
	Problems []Problem
}

// Problem is one error at one place in a world file (or a persona pack, or
// a descriptions file).
type Problem = yamlpos.Problem

func (e *LoadError) Error() string { return strings.Join(e.Lines(), "\n") }

func (e *LoadError) format(p Problem) string {
	if p.Pos.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, p.Msg)
	}
	return fmt.Sprintf("%s:%d:%d: %s", e.File, p.Pos.Line, p.Pos.Col, p.Msg)
}

// Lines returns each problem as one file:line:col: message line.
func (e *LoadError) Lines() []string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = e.format(p)
	}
	return lines
}

// maxWorldFile bounds a world file: worlds are small, and a huge file is a
// mistake or an attack on the loader.
const maxWorldFile = 4 << 20

// LoadFile reads and compiles a world file.
func LoadFile(path string) (*World, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("world %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse compiles a world from YAML; name is what errors are reported
// against (a path, or "mock:crm").
func Parse(name string, data []byte) (*World, error) {
	d := &yamlpos.Decoder{Kind: worldFile}
	doc := d.Parse(data)
	var spec worldSpec
	if doc != nil {
		d.Decode(doc, &spec)
	}
	if len(d.Problems) > 0 {
		// The compiler needs a whole spec; the decoder's problems are
		// already in file order.
		return nil, &LoadError{File: name, Problems: d.Problems}
	}
	c := &compiler{spec: &spec}
	w := c.compile()
	if len(c.problems) > 0 {
		// The compiler checks in passes (types, tools, rules…); an author
		// reads the file top to bottom.
		sort.SliceStable(c.problems, func(i, j int) bool {
			a, b := c.problems[i].Pos, c.problems[j].Pos
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		})
		return nil, &LoadError{File: name, Problems: c.problems}
	}
	sum := sha256.Sum256(data)
	w.File = name
	w.Hash = hex.EncodeToString(sum[:])
	w.Source = data
	// Seeding the default seed checks that the base satisfies the
	// invariants and that every goal finds targets.
	if _, err := w.Seed(w.DefaultSeed); err != nil {
		var p *Problem
		if errors.As(err, &p) {
			return nil, &LoadError{File: name, Problems: []Problem{*p}}
		}
		return nil, &LoadError{File: name, Problems: []Problem{{Msg: err.Error()}}}
	}
	return w, nil
}

func toProblem(err error) Problem {
	var de *decodeError
	if errors.As(err, &de) {
		return Problem{Pos: de.Pos, Msg: de.Msg}
	}
	return Problem{Msg: err.Error()}
}
