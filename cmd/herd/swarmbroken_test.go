package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
)

// servedCalls is the number of tool calls the sessions of the herd server
// at mcpURL have answered since their last reset.
func servedCalls(mcpURL string) int {
	resp, err := http.Get(strings.TrimSuffix(mcpURL, "/mcp") + "/control/sessions")
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	var doc struct {
		Sessions []struct {
			Calls int `json:"calls"`
		} `json:"sessions"`
	}
	if json.NewDecoder(resp.Body).Decode(&doc) != nil {
		return 0
	}
	n := 0
	for _, s := range doc.Sessions {
		n += s.Calls
	}
	return n
}

// swarmUntilBroken runs herd swarm against mcpURL in the background, calls
// breakIt once the server has answered some calls, and returns what the run
// left: its exit code, stderr, and the results document (nil if none).
func swarmUntilBroken(t *testing.T, mcpURL string, breakIt func()) brokenRun {
	t.Helper()
	dir := t.TempDir()
	js, md := filepath.Join(dir, "run.json"), filepath.Join(dir, "run.md")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	type outcome struct {
		code   int
		stderr string
	}
	done := make(chan outcome, 1)
	go func() {
		var out, errw bytes.Buffer
		// 100 agents a second for up to 40 s: the server breaks long before.
		code := run(ctx, []string{"swarm", mcpURL, "--agents", "4000", "--rate", "100", "--seed", "3",
			"--json", js, "--md", md, "--progress", "never"}, strings.NewReader(""), &out, &errw)
		done <- outcome{code, errw.String()}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for servedCalls(mcpURL) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the swarm made no calls within 20s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(time.Second) // about 100 agents
	breakIt()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("the swarm did not stop within 30s of the server breaking")
	}
	if _, err := os.Stat(js); err != nil {
		return brokenRun{code: o.code, stderr: o.stderr}
	}
	mdText, err := os.ReadFile(md)
	if err != nil {
		t.Fatalf("the JSON was written but not the Markdown: %v", err)
	}
	return brokenRun{o.code, o.stderr, readRunJSON(t, js), string(mdText)}
}

// brokenRun is what a run whose target broke left behind.
type brokenRun struct {
	code   int
	stderr string
	res    *report.Results // nil: no results document written
	md     string
}

// checkBrokenRun asserts what a run whose served target broke must leave:
// exit 3, one line saying why, and the finished episodes written, marked
// partial, with the calls by class.
func checkBrokenRun(t *testing.T, r brokenRun) {
	t.Helper()
	code, stderr, res, md := r.code, r.stderr, r.res, r.md
	if code != exitUnreachable {
		t.Fatalf("exit %d, want %d:\n%s", code, exitUnreachable, stderr)
	}
	if res == nil {
		t.Fatalf("no results written:\n%s", stderr)
	}
	if n := strings.Count(stderr, "herd: target broke: "); n != 1 {
		t.Errorf("want one line naming why the run stopped, got %d:\n%s", n, stderr)
	}
	if !res.Partial || res.Episodes == 0 || res.Episodes >= 4000 || res.Run.Agents != res.Episodes {
		t.Errorf("partial %v, %d episodes of %d agents", res.Partial, res.Episodes, res.Run.Agents)
	}
	sum := 0
	for _, m := range res.Run.Mix {
		sum += m.Agents
	}
	if sum != res.Run.Agents {
		t.Errorf("the mix counts %d agents, the run %d", sum, res.Run.Agents)
	}
	if err := res.Validate(); err != nil {
		t.Errorf("the partial document is not valid: %v", err)
	}
	if res.Timing == nil || len(res.Timing.Calls) == 0 {
		t.Fatalf("no calls by class in the document: %+v", res.Timing)
	}
	// Every call the latency histograms hold has a class; the failure that
	// broke the run may be a control plane request, which is not a call.
	var classified int64
	byClass := map[string]int64{}
	for _, c := range res.Timing.Calls {
		byClass[c.Class] += c.N
		classified += c.N
		if c.Class == "tool_error" && c.Code == "" {
			t.Errorf("a herd world's tool error without its code: %+v", c)
		}
	}
	if all := res.Timing.Latency[0]; all.Tool != report.AllTools || all.Calls() != classified || byClass["ok"] == 0 {
		t.Errorf("calls by class %v (%d calls), latency of %s holds %d", byClass, classified, all.Tool, all.Calls())
	}
	if !strings.Contains(md, "<b>Calls by class</b>") || !strings.Contains(md, "| all | ") {
		t.Errorf("the Markdown report does not show the calls by class:\n%s", md)
	}
}

// A herd server that stops mid-run (here: shut down in this process) does
// not lose the episodes that finished before.
func TestSwarmKeepsFinishedEpisodesWhenServerStops(t *testing.T) {
	url, stop := startServeHTTPStoppable(t, "mock:crm", 3)
	checkBrokenRun(t, swarmUntilBroken(t, url, stop))
}

// The same with a real herd serve process killed mid-run.
func TestSwarmKeepsFinishedEpisodesWhenServerIsKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds herd and starts a subprocess")
	}
	cmd := exec.Command(herdBinary(t), "serve", "mock:crm", "--http", "127.0.0.1:0", "--log-level", "error")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	url := strings.TrimSpace(line)
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("herd serve printed %q (%v), not its URL", line, err)
	}
	checkBrokenRun(t, swarmUntilBroken(t, url, func() { _ = cmd.Process.Kill() }))
}
