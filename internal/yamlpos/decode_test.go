package yamlpos

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// word is a NodeDecoder that takes only lower-case text.
type word struct {
	s   string
	pos Pos
}

func (w *word) DecodeNode(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode || strings.ToLower(n.Value) != n.Value {
		return errors.New("expected a lower-case word, got " + Describe(n))
	}
	*w = word{s: n.Value, pos: PosOf(n)}
	return nil
}

type innerSpec struct {
	Word word `yaml:"word"`
	Pos  Pos  `yaml:"-"`
}

type testSpec struct {
	Name  string            `yaml:"name"`
	On    bool              `yaml:"on"`
	Count int               `yaml:"count"`
	Words []word            `yaml:"words"`
	Inner *innerSpec        `yaml:"inner"`
	Named Ordered[[]string] `yaml:"named"`
}

var testKind = Kind{Plural: "test files", Empty: "empty test file", MaxBytes: 200}

func decode(t *testing.T, src string) (testSpec, []string) {
	t.Helper()
	d := &Decoder{Kind: testKind}
	var s testSpec
	if doc := d.Parse([]byte(src)); doc != nil {
		d.Decode(doc, &s)
	}
	var msgs []string
	for _, p := range d.Problems {
		msgs = append(msgs, p.Error())
	}
	return s, msgs
}

func TestDecodeFillsSpec(t *testing.T) {
	s, problems := decode(t, "name: n\non: true\ncount: 3\nwords: [a, b]\ninner:\n  word: x\nnamed:\n  zed: [1]\n  alpha: []\n")
	if problems != nil {
		t.Fatalf("problems: %v", problems)
	}
	if s.Name != "n" || !s.On || s.Count != 3 || len(s.Words) != 2 || s.Words[1] != (word{"b", Pos{4, 12}}) {
		t.Fatalf("spec %+v", s)
	}
	if s.Inner == nil || s.Inner.Pos != (Pos{6, 3}) || s.Inner.Word.s != "x" {
		t.Fatalf("inner %+v", s.Inner)
	}
	if len(s.Named) != 2 || s.Named[0].Name != "zed" || s.Named[0].Pos != (Pos{8, 3}) || s.Named[1].Name != "alpha" {
		t.Fatalf("named, in file order: %+v", s.Named)
	}
	if s, _ := decode(t, "name: n\n"); s.Inner != nil || s.Named != nil {
		t.Fatalf("absent keys stay zero: %+v", s)
	}
}

// Every problem is reported, in file order, in the shared words.
func TestDecodeReportsEveryProblem(t *testing.T) {
	_, got := decode(t, "name: [x]\nnam: 1\non: 1\non: true\nwords: a\ninner: {word: X}\nnamed: {a: [], a: []}\nx: &y 1\ncount: *y\n")
	want := []string{
		`1:7: name: expected text, got a list`,
		`2:1: unknown field "nam" (expected one of: name, on, count, words, inner, named)`,
		`3:5: on: expected true or false, got the number 1`,
		`4:1: "on" given twice (first at line 3)`,
		`5:8: words: expected a list, got "a"`,
		`6:15: word: expected a lower-case word, got "X"`,
		`7:16: "a" given twice (first at line 7)`,
		`8:1: unknown field "x" (expected one of: name, on, count, words, inner, named)`,
		`9:8: aliases are not supported in test files`,
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestParseRefusals(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"", "1:1: empty test file"},
		{"# only a comment\n", "1:1: empty test file"},
		{strings.Repeat("a: 1\n", 50), "0:0: file is 250 bytes; test files may be at most 200"},
		{"a: [1\n", "2:1: YAML: did not find expected ',' or ']'"},
		// A file holds one document: a second is refused where it begins,
		// not silently dropped; a syntax error in it is placed in it.
		{"a: 1\n---\nb: 2\n", "2:1: a second YAML document begins here; one file holds one document (put the rest of test files in a file of its own)"},
		{"a: 1\n--- \n# only a comment\n", "2:1: a second YAML document begins here; one file holds one document (put the rest of test files in a file of its own)"},
		{"a: 1\n---\nb: [1\n", "3:1: YAML: did not find expected ',' or ']'"},
		// A control character is placed where it is, and named.
		{"a: 1\nb: \"x\x00y\"\n", "2:6: YAML: control character U+0000 is not allowed"},
		{"a: 1\n  # é\x01\n", "2:6: YAML: control character U+0001 is not allowed"},
		{"\xef\xbb\xbfa: 1\nb: x\u0085y\x7f\n", "2:7: YAML: control character U+007F is not allowed"},
	} {
		d := &Decoder{Kind: testKind}
		if doc := d.Parse([]byte(c.src)); doc != nil || len(d.Problems) != 1 || d.Problems[0].Error() != c.want {
			t.Errorf("%q: %v, want %s", c.src, d.Problems, c.want)
		}
	}
}

func TestScalarReaders(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("[7, 2.5, .nan, yes, ~, {a: 1}]"), &n); err != nil {
		t.Fatal(err)
	}
	v := n.Content[0].Content
	d := &Decoder{Kind: testKind}
	if x, ok := d.Int(v[0], "k", 1, 10); !ok || x != 7 {
		t.Errorf("Int = %d %v", x, ok)
	}
	d.Int(v[0], "k", 8, 10)
	d.Int(v[1], "k", 0, 10)
	if x, ok := d.Number(v[1], "k"); !ok || x != 2.5 {
		t.Errorf("Number = %v %v", x, ok)
	}
	d.Number(v[2], "k")
	d.Bool(v[3], "k") // YAML 1.2: yes is text
	d.Text(v[4], "k")
	d.Mapping(v[5], "k", []string{"b"})
	want := []string{
		"1:2: k must be in [8, 10], got 7",
		"1:5: k: expected a whole number, got the number 2.5",
		"1:10: k: expected a finite number, got .nan",
		"1:16: k: expected true or false, got \"yes\"",
		"1:21: k: expected text, got nothing",
		"1:25: k: unknown field \"a\" (expected one of: b)",
	}
	var got []string
	for _, p := range d.Problems {
		got = append(got, p.Error())
	}
	if !slices.Equal(got, want) {
		t.Fatalf("got:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
