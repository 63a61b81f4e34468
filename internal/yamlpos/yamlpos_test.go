package yamlpos

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyntaxErrorLines(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		msg       string
	}{
		// A scanner error: its line is already 1-based.
		{"a: 1\n  b: 2\n", 2, 3, "mapping values are not allowed in this context"},
		// Parser errors count from 0: a flow collection never closed is
		// reported on the line after its opening one.
		{"a: [1, 2\nb: 3\n", 2, 1, "did not find expected ',' or ']'"},
		{"a: 1\nb: {c: 1\n  d: 2\n", 2, 1, "did not find expected ',' or '}'"},
		{"%YAML 1.1\n%YAML 1.1\n---\na: 1\n", 2, 1, "found duplicate %YAML directive"},
		// A tab on the first line: no "line N:" in the message at all.
		{"\tkey: 1\n", 1, 1, "found character that cannot start any token"},
	}
	for _, c := range cases {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.src), &n)
		if err == nil {
			t.Errorf("%q parsed", c.src)
			continue
		}
		line, col, msg := SyntaxError(err, []byte(c.src))
		if line != c.line || col != c.col || msg != c.msg {
			t.Errorf("%q: %d:%d %q, want %d:%d %q", c.src, line, col, msg, c.line, c.col, c.msg)
		}
	}
}

func TestDescribe(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("[a, 3, true, ~, {x: 1}]"), &n); err != nil {
		t.Fatal(err)
	}
	seq := n.Content[0]
	want := []string{`"a"`, "the number 3", "the boolean true", "nothing", "a mapping"}
	for i, w := range want {
		if got := Describe(seq.Content[i]); got != w {
			t.Errorf("item %d: %q, want %q", i, got, w)
		}
	}
	if got := Describe(seq); got != "a list" {
		t.Errorf("sequence: %q", got)
	}
}

func TestInvalidUTF8IsLocated(t *testing.T) {
	src := []byte("a: 1\nbé: \xff\n")
	var n yaml.Node
	err := yaml.Unmarshal(src, &n)
	if err == nil {
		t.Fatal("invalid UTF-8 parsed")
	}
	line, col, msg := SyntaxError(err, src)
	if line != 2 || col != 5 || msg != "invalid UTF-8" {
		t.Fatalf("at %d:%d %q, want 2:5 \"invalid UTF-8\"", line, col, msg)
	}
}
