package engine

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// An error cel-go places nowhere (its "-1:0", as for an expression nested
// past the parser's recursion limit) is placed at the expression in the
// file, with no "-1:0" left in the message.
func TestCELErrorWithoutALocationIsPlacedAtTheExpression(t *testing.T) {
	src, err := os.ReadFile("testdata/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	deep := strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300)
	const marker = "invariants:\n"
	i := strings.Index(string(src), marker)
	if i < 0 {
		t.Fatal("testdata/shop.yaml has no invariants section")
	}
	line := strings.Count(string(src[:i]), "\n") + 3 // the expr line of the inserted invariant
	world := string(src[:i]) + marker + "  - name: deep\n    expr: \"" + deep + "\"\n" + string(src[i+len(marker):])
	_, err = Parse("deep.yaml", []byte(world))
	if err == nil {
		t.Fatal("a world with an expression nested 300 deep loaded")
	}
	msg := err.Error()
	want := "deep.yaml:" + strconv.Itoa(line) + ":11: CEL: expression recursion limit exceeded"
	if strings.Contains(msg, "-1:0") || !strings.Contains(msg, want) {
		t.Fatalf("error %q, want it to contain %q and no -1:0", msg, want)
	}
}
