package yamlpos

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestSyntaxErrorLines(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
	}{
		{"a: 1\n  b: 2\n", 2, 3},           // scanner: mapping values not allowed
		{"a: [1, 2\nb: 3\n", 2, 1},         // flow sequence never closed
		{"a: 1\nb: {c: 1\n  d: 2\n", 0, 0}, // reported without a line in some versions: accept any
		{"\tkey: 1\n", 1, 1},               // a tab: first line, no "line N:"
	}
	for _, c := range cases {
		var n yaml.Node
		err := yaml.Unmarshal([]byte(c.src), &n)
		if err == nil {
			t.Errorf("%q parsed", c.src)
			continue
		}
		line, col, msg := SyntaxError(err, []byte(c.src))
		if msg == "" {
			t.Errorf("%q: empty message", c.src)
		}
		if c.line != 0 && (line != c.line || col != c.col) {
			t.Errorf("%q: at %d:%d (%s), want %d:%d", c.src, line, col, msg, c.line, c.col)
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
