package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/report"
)

// A two-variant run of the README's worlds makes a Markdown report short
// enough for a PR comment, linked to the HTML report when its URL is given.
func TestMarkdownOfTwoVariantsFitsAPRComment(t *testing.T) {
	for _, args := range [][]string{
		{"mock:crm", "--agents", "2000"},
		{"mock:shop", "--faults", "hostile"},
	} {
		dir := t.TempDir()
		md, html := filepath.Join(dir, "run.md"), filepath.Join(dir, "report.html")
		all := append([]string{"swarm"}, args...)
		all = append(all, "--seed", "42", "--variant", "clear,ambiguous", "--progress", "never", "-q", "--md", md, "--html", html, "--html-url", "https://example.com/artifacts/7")
		if code, _, errOut := runHerd(t, all...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		b, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > report.MarkdownBudget {
			t.Errorf("%s: Markdown is %d bytes; want at most %d", args[0], len(b), report.MarkdownBudget)
		}
		if first := strings.SplitN(string(b), "\n", 2)[0]; first != "📄 **[Full HTML report](https://example.com/artifacts/7)**" {
			t.Errorf("%s: first line %q; want the link to the artifact", args[0], first)
		}
		t.Logf("%s, two variants: %d bytes of Markdown", args[0], len(b))
	}
}
