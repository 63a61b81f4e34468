package examples_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeGH stands in for the GitHub CLI: it logs every call, answers the two
// reads post-comment.sh makes from its environment, and keeps the body of
// a write. The marked comments' ids (FAKE_COMMENT_ID, space-separated)
// come one page at a time, a moment apart, as gh api --paginate writes
// them.
const fakeGH = `#!/usr/bin/env bash
printf '%s\n' "$*" >> "$FAKE_GH_LOG"
case "$*" in
  *"--method PATCH"* | *"--method POST"*)
    for a in "$@"; do
      case "$a" in body=@*) cp "${a#body=@}" "$FAKE_GH_BODY" ;; esac
    done
    ;;
  *"/pulls/"*) echo "$FAKE_HEAD_SHA" ;;
  *"/comments"*)
    first=1
    for id in $FAKE_COMMENT_ID; do
      [ -n "$first" ] || sleep 0.3
      first=
      echo "$id"
    done
    ;;
  *) echo "fake gh: unexpected call: $*" >&2; exit 1 ;;
esac
`

type commentCase struct {
	pr, body, commentID, prHead string
	author                      string // HERD_COMMENT_AUTHOR; "" leaves the default
}

// postComment runs post-comment.sh against the fake gh and returns what it
// did: its result, the gh calls and the body it sent (if any).
func postComment(t *testing.T, c commentCase) (result, []string, string) {
	t.Helper()
	tmp := t.TempDir()
	gh := filepath.Join(tmp, "gh")
	if err := os.WriteFile(gh, []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(tmp, "artifact")
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "pr-number"), []byte(c.pr+"\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "comment.md"), []byte(c.body), 0o644)
	log, sent := filepath.Join(tmp, "gh.log"), filepath.Join(tmp, "sent.md")
	env := []string{
		"GH=" + gh, "GH_TOKEN=t0ken", "HERD_REPO=acme/tools", "HERD_COMMENT_DIR=" + dir, "HERD_HEAD_SHA=cafe01",
		"FAKE_GH_LOG=" + log, "FAKE_GH_BODY=" + sent, "FAKE_HEAD_SHA=" + c.prHead, "FAKE_COMMENT_ID=" + c.commentID,
	}
	if c.author != "" {
		env = append(env, "HERD_COMMENT_AUTHOR="+c.author)
	}
	r := script(t, time.Minute, tmp, env, actionScript("post-comment.sh"))
	calls, _ := os.ReadFile(log)
	body, _ := os.ReadFile(sent)
	var lines []string
	if s := strings.TrimSpace(string(calls)); s != "" {
		lines = strings.Split(s, "\n")
	}
	return r, lines, string(body)
}

const markedReport = "<!-- herd-report -->\n## ❌ Agent readiness: NOT READY\n"

func TestPostCommentUpdatesTheStickyComment(t *testing.T) {
	r, calls, body := postComment(t, commentCase{pr: "17", body: markedReport, commentID: "555", prHead: "cafe01"})
	if r.code != 0 || len(calls) != 3 {
		t.Fatalf("exit %d, calls %q\n%s", r.code, calls, r.stderr)
	}
	if calls[0] != "api repos/acme/tools/pulls/17 --jq .head.sha" {
		t.Errorf("first call %q: want the PR's head check", calls[0])
	}
	// Only our own marked comment is a candidate: someone else's comment
	// quoting the marker must not be overwritten.
	if !strings.Contains(calls[1], "api --paginate repos/acme/tools/issues/17/comments") ||
		!strings.Contains(calls[1], `.user.login == "github-actions[bot]"`) || !strings.Contains(calls[1], `startswith("<!-- herd-report -->")`) {
		t.Errorf("search call %q", calls[1])
	}
	if !strings.HasPrefix(calls[2], "api --method PATCH repos/acme/tools/issues/comments/555 -F body=@") {
		t.Errorf("write call %q: want a PATCH of comment 555", calls[2])
	}
	if body != markedReport || !strings.Contains(r.stdout, "updated the herd comment on #17 (comment 555)") {
		t.Errorf("sent %q; stdout %q", body, r.stdout)
	}
}

// Two marked comments (two runs raced to create one) on different pages:
// the first is updated, and the page gh writes after it is no error.
func TestPostCommentUpdatesTheFirstOfTwo(t *testing.T) {
	r, calls, body := postComment(t, commentCase{pr: "17", body: markedReport, commentID: "555 777", prHead: "cafe01"})
	if r.code != 0 || len(calls) != 3 || !strings.HasPrefix(calls[2], "api --method PATCH repos/acme/tools/issues/comments/555 ") || body != markedReport {
		t.Fatalf("exit %d, calls %q, body %q\n%s", r.code, calls, body, r.stderr)
	}
}

func TestPostCommentCreatesTheFirstComment(t *testing.T) {
	r, calls, body := postComment(t, commentCase{pr: "17", body: markedReport, prHead: "cafe01"})
	if r.code != 0 || len(calls) != 3 || !strings.HasPrefix(calls[2], "api --method POST repos/acme/tools/issues/17/comments -F body=@") || body != markedReport {
		t.Fatalf("exit %d, calls %q, body %q\n%s", r.code, calls, body, r.stderr)
	}
}

// The artifact comes from the pull request's run, so it is untrusted.
func TestPostCommentRefusesUntrustedInput(t *testing.T) {
	for name, c := range map[string]struct {
		commentCase
		code      int
		want      string
		wantCalls int
	}{
		"moved on":     {commentCase{pr: "17", body: markedReport, prHead: "beef02"}, 0, "not posting", 1},
		"injection":    {commentCase{pr: "17; echo pwned", body: markedReport, prHead: "cafe01"}, 2, "is not a pull request number", 0},
		"path":         {commentCase{pr: "../17", body: markedReport, prHead: "cafe01"}, 2, "is not a pull request number", 0},
		"no marker":    {commentCase{pr: "17", body: "## hello\n", prHead: "cafe01"}, 2, "does not start with <!-- herd-report -->", 0},
		"too long":     {commentCase{pr: "17", body: markedReport + strings.Repeat("x", 70000), prHead: "cafe01"}, 2, "over 65,536 bytes", 0},
		"not a number": {commentCase{pr: "seventeen", body: markedReport, prHead: "cafe01"}, 2, "is not a pull request number", 0},
		// The author is an input of the calling workflow, not the artifact,
		// but it lands inside a jq string: only a login may get there.
		"author quote": {commentCase{pr: "17", body: markedReport, prHead: "cafe01", author: `x") or (true`}, 2, "is not a GitHub login", 0},
	} {
		r, calls, body := postComment(t, c.commentCase)
		if r.code != c.code || !strings.Contains(r.stderr, c.want) || len(calls) != c.wantCalls || body != "" {
			t.Errorf("%s: exit %d, stderr %q, calls %q, sent %q; want exit %d, %q, %d calls, nothing sent",
				name, r.code, r.stderr, calls, body, c.code, c.want, c.wantCalls)
		}
	}
}
