package jsonstr

import (
	"encoding/json"
	"testing"
)

var cases = []string{"", "plain", `quote " and \ backslash`, "<b>&amp;</b>", "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	"é ü 日本", "\u2028 and \u2029", "bad \xff\xfe utf8", "\xed\xa0\x80 surrogate", "emoji 🦬", "trunc \xe6\x97"}

// Append writes what json.Marshal writes, for strings and byte slices.
func TestAppendIsJSONMarshal(t *testing.T) {
	for _, s := range cases {
		want, _ := json.Marshal(s)
		if got := Append([]byte("x"), s); string(got) != "x"+string(want) {
			t.Errorf("string %q: %s, want %s", s, got[1:], want)
		}
		if got := Append([]byte("x"), []byte(s)); string(got) != "x"+string(want) {
			t.Errorf("[]byte %q: %s, want %s", s, got[1:], want)
		}
	}
}

func FuzzAppendIsJSONMarshal(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := Append(nil, s); string(got) != string(want) {
			t.Fatalf("%q: %s, want %s", s, got, want)
		}
	})
}
