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

	"go.yaml.in/yaml/v3"
)

// LoadError lists every problem found in a world file, each as
// file:line:col: message, in file order.
type LoadError struct {
	File     string
	Problems []Problem
}

// Problem is one error at one place in a world file.
type Problem struct {
	Pos Pos
	Msg string
}

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
	if len(data) > maxWorldFile {
		return nil, &LoadError{File: name, Problems: []Problem{{Msg: fmt.Sprintf("file is %d bytes; world files may be at most %d", len(data), maxWorldFile)}}}
	}
	root, err := parseYAML(data)
	if err != nil {
		return nil, &LoadError{File: name, Problems: []Problem{yamlProblem(err, data)}}
	}
	if root.Kind == 0 || (root.Kind == yaml.DocumentNode && len(root.Content) == 0) {
		return nil, &LoadError{File: name, Problems: []Problem{{Pos: Pos{1, 1}, Msg: "empty world file"}}}
	}
	var spec worldSpec
	if err := decodeStrict(&root, &spec); err != nil {
		return nil, &LoadError{File: name, Problems: []Problem{toProblem(err)}}
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

func (p *Problem) Error() string { return fmt.Sprintf("%d:%d: %s", p.Pos.Line, p.Pos.Col, p.Msg) }

func toProblem(err error) Problem {
	var de *decodeError
	if errors.As(err, &de) {
		return Problem{Pos: de.Pos, Msg: de.Msg}
	}
	return Problem{Msg: err.Error()}
}

// parseYAML parses data into a node tree. The parser is third-party code
// fed untrusted input; should it ever panic, that is a refused file, not a
// crashed herd.
func parseYAML(data []byte) (root yaml.Node, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("yaml: the YAML parser failed on this file: %v", p)
		}
	}()
	err = yaml.Unmarshal(data, &root)
	return root, err
}

// yamlProblem places a YAML syntax error at its line, with the column of
// the line's first character (the library gives none).
func yamlProblem(err error, data []byte) Problem {
	line, col, msg := yamlpos.SyntaxError(err, data)
	return Problem{Pos: Pos{Line: line, Col: col}, Msg: "YAML: " + msg}
}
