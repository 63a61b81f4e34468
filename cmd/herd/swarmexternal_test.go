package main

import (
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
)

// externalRun runs herd swarm against a test server and returns the exit
// code, stderr and the results document.
func externalRun(t *testing.T, args ...string) (int, string, *report.Results) {
	t.Helper()
	js := filepath.Join(t.TempDir(), "run.json")
	start := time.Now()
	code, _, errOut := runHerd(t, append(append([]string{"swarm"}, args...), "--json", js, "--progress", "never")...)
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("the run took %s", took)
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatalf("exit %d, no results: %v\n%s", code, err, errOut)
	}
	return code, errOut, res
}

// classesOf sums the counts per goal:class.
func classesOf(r *report.Results) map[string]int {
	m := map[string]int{}
	for _, c := range r.Counts {
		m[c.Goal+":"+c.Class] += c.N
	}
	return m
}

// A healthy server: valid calls answered, invalid ones refused clearly —
// except by the tool that never checks (accepted_invalid) and the
// "read-only" tool whose answer changes (unstable_answer). The write tool
// is not called without --allow-writes. Lint findings, latency per tool and
// the seed are in the results.
func TestExternalHealthyServer(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin, "--agents", "120", "--seed", "9")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	got := classesOf(res)
	for _, want := range []string{"add:answered", "add:rejected_clearly", "get_weather:answered", "get_weather:rejected_clearly",
		"echo:accepted_invalid", "peek_counter:unstable_answer", "peek_counter:nothing_to_reject"} {
		if got[want] == 0 {
			t.Errorf("no %s in %v", want, got)
		}
	}
	for k := range got {
		if strings.HasPrefix(k, "create_note:") {
			t.Errorf("the write tool was called without --allow-writes: %v", got)
		}
		if strings.HasSuffix(k, ":crashed") || strings.HasSuffix(k, ":hung") || strings.HasSuffix(k, ":malformed") {
			t.Errorf("a healthy server reported as %s", k)
		}
	}
	if !strings.Contains(errOut, "create_note") || !strings.Contains(errOut, "seed 9") || res.Run.Seed != 9 {
		t.Errorf("stderr should name the skipped write tool and the seed:\n%s", errOut)
	}
	if len(res.Lint) == 0 {
		t.Error("no lint findings on the discovered tools")
	}
	if res.Timing == nil || len(res.Timing.Latency) < 4 {
		t.Fatalf("latency per tool missing: %+v", res.Timing)
	}
	if res.Run.World.Name != "testserver-healthy" || res.Run.World.Hash == "" || res.Episodes != 120 {
		t.Errorf("run %+v, episodes %d", res.Run.World, res.Episodes)
	}

	if sv := res.Timing.Server; sv == nil || sv.Processes != 4 || len(sv.Skipped) != 1 || sv.Skipped[0] != (report.SkippedTool{Tool: "create_note", Reason: report.SkipWrites}) {
		t.Errorf("server section %+v: want 4 processes and create_note skipped as may_write", res.Timing.Server)
	}
	if res.Timing.Stopped != report.StopFinished || res.Timing.LatencyOK == nil || res.Timing.WarmupCalls == 0 {
		t.Errorf("stopped %q, ok latency %v, warm-up calls %d", res.Timing.Stopped, res.Timing.LatencyOK != nil, res.Timing.WarmupCalls)
	}

	// The write tool may also reach the open world (openWorldHint true):
	// --allow-writes alone does not call it, and says which flag does.
	code, errOut, res = externalRun(t, "mcp+stdio:"+bin, "--agents", "60", "--seed", "9", "--allow-writes")
	if code != 0 || classesOf(res)["create_note:answered"] != 0 || !strings.Contains(errOut, "--allow-open-world calls them): create_note") {
		t.Fatalf("exit %d, classes %v:\n%s", code, classesOf(res), errOut)
	}
	if sk := res.Timing.Server.Skipped; len(sk) != 1 || sk[0].Reason != report.SkipOpenWorld {
		t.Errorf("skipped %+v, want create_note as open_world", sk)
	}
	// With both it is exercised too.
	code, errOut, res = externalRun(t, "mcp+stdio:"+bin, "--agents", "60", "--seed", "9", "--allow-writes", "--allow-open-world")
	if code != 0 || classesOf(res)["create_note:answered"] == 0 {
		t.Fatalf("exit %d, classes %v:\n%s", code, classesOf(res), errOut)
	}
	if !strings.HasSuffix(res.Run.Command, " --allow-writes --allow-open-world") {
		t.Errorf("the reproducing command %q lacks --allow-writes --allow-open-world", res.Run.Command)
	}

	// Flags for herd worlds do not apply, and say so before a call.
	code, _, errOut = runHerd(t, "swarm", "mcp+stdio:"+bin, "--otlp", "http://127.0.0.1:1")
	if code != exitUsage || !strings.Contains(errOut, "is not a herd world") || !strings.HasPrefix(errOut, "herd: --otlp: ") {
		t.Errorf("--otlp: exit %d, %q", code, errOut)
	}
	code, _, errOut = runHerd(t, "swarm", "mcp+stdio:"+bin, "--threshold", "harmful=5%")
	if code != exitUsage || strings.Contains(errOut, "herd: load:") || !strings.Contains(errOut, `threshold "harmful=5%": no comparison`) {
		t.Errorf("a malformed threshold ran first: exit %d, %q", code, errOut)
	}
}

// A server that dies mid-run: reported as crashed, the run stops, exit 3.
func TestExternalCrashingServer(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin+" -mode crash -after 12", "--agents", "200", "--max-in-flight", "2")
	if code != 3 || !strings.Contains(errOut, "unusable") || !strings.Contains(errOut, "crashed") {
		t.Fatalf("exit %d, want 3 naming the crash:\n%s", code, errOut)
	}
	n := 0
	for k, v := range classesOf(res) {
		if strings.HasSuffix(k, ":crashed") {
			n += v
		}
	}
	if n == 0 || !res.Partial || res.Episodes >= 200 {
		t.Errorf("crashed %d, partial %v, episodes %d", n, res.Partial, res.Episodes)
	}
}

// A server that stops answering every call: the calls time out, the next
// ones too, the server is hung and the run ends, exit 3.
func TestExternalHangingServer(t *testing.T) {
	bin := testServer(t)
	start := time.Now()
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin+" -mode hang -after 5", "--agents", "200", "--call-timeout", "300ms", "--max-in-flight", "2", "--processes", "1")
	if code != 3 || !strings.Contains(errOut, "no answer within 300ms") || !strings.Contains(errOut, "stopped answering") {
		t.Fatalf("exit %d, want 3 naming the timeout:\n%s", code, errOut)
	}
	if took := time.Since(start); took > 15*time.Second {
		t.Errorf("a hung server held the run for %s", took)
	}
	hung := 0
	for k, n := range classesOf(res) {
		if strings.HasSuffix(k, ":hung") {
			hung += n
		}
	}
	if hung == 0 || res.Timing.Stopped != report.StopHung {
		t.Errorf("no hung call in %v, or stopped %q", classesOf(res), res.Timing.Stopped)
	}
	// What counted as hung depends on the limit: the command keeps it.
	if !strings.Contains(res.Run.Command, "--call-timeout 300ms") {
		t.Errorf("the reproducing command %q lacks --call-timeout 300ms", res.Run.Command)
	}
}

// One tool that never answers while the others do is slow, not hung: its
// calls time out (timed_out, counted as timeouts), and the run goes on to
// its end.
func TestExternalSlowToolIsATimeoutNotAHang(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin+" -mode slow -after 5", "--agents", "120", "--call-timeout", "300ms", "--max-in-flight", "8", "--processes", "2")
	if code != 0 || res.Partial || res.Episodes != 120 {
		t.Fatalf("exit %d, partial %v, episodes %d, want the whole run:\n%s", code, res.Partial, res.Episodes, errOut)
	}
	got := classesOf(res)
	if got["get_weather:timed_out"] == 0 || got["add:answered"] == 0 {
		t.Errorf("classes %v: want get_weather timed_out and the others answered", got)
	}
	for k := range got {
		if strings.HasSuffix(k, ":hung") {
			t.Errorf("a slow tool made the server hung: %v", got)
		}
	}
	timeouts := int64(0)
	for _, c := range res.Timing.Calls {
		if c.Class == "timeout" {
			timeouts += c.N
		}
	}
	if timeouts == 0 || res.Timing.Stopped != report.StopFinished || !strings.Contains(errOut, "timeout") {
		t.Errorf("timeouts %d, stopped %q:\n%s", timeouts, res.Timing.Stopped, errOut)
	}
	if res.Timing.Server.Processes != 2 || !strings.Contains(res.Run.Command, "--processes 2") || !strings.Contains(errOut, "herd: server: 2 processes") {
		t.Errorf("pool %d, command %q:\n%s", res.Timing.Server.Processes, res.Run.Command, errOut)
	}
	if runtime.GOOS == "linux" {
		if ps := res.Timing.Server.ProcessStats; len(ps) != 2 || ps[0].RSSKB <= 0 || ps[0].PID <= 0 {
			t.Errorf("process stats %+v: want both processes' RSS", ps)
		}
	}
}

// A stdio server that writes log lines to stdout, before and between its
// answers: the lines are skipped, counted in the results and said on
// stderr, and the run goes to its end.
func TestExternalServerLoggingToStdout(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin+" -mode noisy", "--agents", "90", "--processes", "2")
	if code != 0 || res.Partial || res.Episodes != 90 {
		t.Fatalf("exit %d, partial %v, episodes %d:\n%s", code, res.Partial, res.Episodes, errOut)
	}
	sv := res.Timing.Server
	// One banner per process, and a line every third call: at least the
	// two banners and a line for most of the run's calls.
	if sv == nil || sv.NonJSONLines < 2+int64(res.Episodes)/4 || len(sv.NonJSONSample) == 0 || sv.NonJSONSample[0] != "MCP test server running on stdio" {
		t.Fatalf("server section %+v", sv)
	}
	if !strings.Contains(errOut, "stdout lines were not JSON-RPC and were skipped") {
		t.Errorf("stderr does not say lines were skipped:\n%s", errOut)
	}
	for k := range classesOf(res) {
		if strings.HasSuffix(k, ":crashed") || strings.HasSuffix(k, ":malformed") {
			t.Errorf("a log line broke a call: %v", classesOf(res))
		}
	}
}

// --tool and --skip-tool choose the tools by name pattern; a pattern that
// matches nothing is refused, and --goal points to them.
func TestExternalToolPatterns(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin, "--agents", "40", "--tool", "*_*", "--skip-tool", "peek_*")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if g := res.Run.Goals; len(g) != 1 || g[0] != "get_weather" {
		t.Errorf("goals %v, want only get_weather", g)
	}
	if !strings.Contains(errOut, "left out by --tool/--skip-tool): add, echo, peek_counter") {
		t.Errorf("stderr does not name the filtered tools:\n%s", errOut)
	}
	if !strings.Contains(res.Run.Command, "--tool '*_*' --skip-tool 'peek_*'") {
		t.Errorf("command %q", res.Run.Command)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--tool", "nosuch*"}, `--tool: tool pattern "nosuch*" matches no tool`},
		{[]string{"--processes", "0"}, "--processes: must be between 1 and 64, got 0"},
		{[]string{"--skip-tool", "[x"}, `tool pattern "[x"`},
		{[]string{"--tool", "peek_counter", "--skip-tool", "peek_counter"}, "--tool: mcp+stdio:"},
		{[]string{"--goal", "add"}, "use --tool and --skip-tool"},
	} {
		code, _, errOut := runHerd(t, append([]string{"swarm", "mcp+stdio:" + bin, "--agents", "5", "--progress", "never"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// The flags are for servers that are not herd worlds.
	code, _, errOut = runHerd(t, "swarm", "mock:crm", "--tool", "get_*")
	if code != exitUsage || !strings.Contains(errOut, "--tool: mock:crm is a herd world") {
		t.Errorf("--tool on a herd world: exit %d, %q", code, errOut)
	}
}

// A server whose results have no content: reported as malformed, exit 3
// (nothing it answered was usable).
func TestExternalMalformedServer(t *testing.T) {
	bin := testServer(t)
	code, errOut, res := externalRun(t, "mcp+stdio:"+bin+" -mode malformed", "--agents", "60")
	if code != 3 || !strings.Contains(errOut, "malformed") {
		t.Fatalf("exit %d, want 3 naming malformed answers:\n%s", code, errOut)
	}
	if classesOf(res)["add:malformed"] == 0 {
		t.Errorf("no malformed class in %v", classesOf(res))
	}
}

// An external server over Streamable HTTP (a go-sdk server in this process,
// on loopback): discovered and judged on its answers, as over stdio.
func TestExternalOverHTTP(t *testing.T) {
	srv := httptest.NewServer(externalTestHandler())
	defer srv.Close()
	code, errOut, res := externalRun(t, srv.URL+"/mcp", "--agents", "40", "--seed", "4", "--rate", "200")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	if g := classesOf(res); g["lookup:answered"] == 0 || g["lookup:rejected_clearly"] == 0 {
		t.Errorf("classes %v", g)
	}
	if !strings.Contains(errOut, "achieved") {
		t.Errorf("a paced run should report its achieved start rate:\n%s", errOut)
	}
}

// Against a server that is not a herd world, thresholds are checked
// against the tools discovered before any agent runs: a latency threshold
// on a tool the swarm will not call (it does not exist, or may write) is
// refused with exit 2.
func TestExternalThresholdOnUnknownToolFailsBeforeTheRun(t *testing.T) {
	bin := testServer(t)
	for _, tool := range []string{"nosuch", "create_note"} {
		spec := tool + ":p99<50ms"
		code, _, errOut := runHerd(t, "swarm", "mcp+stdio:"+bin, "--agents", "20", "--threshold", spec, "--progress", "never")
		want := `--threshold: threshold "` + spec + `": no latency measured for tool "` + tool + `"`
		if code != exitUsage || !strings.Contains(errOut, want) || strings.Contains(errOut, "herd: load:") {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q before any agent ran", spec, code, errOut, want)
		}
	}
}

// What does not depend on the world — the persona mix, the shard, the form
// of a threshold — is refused before a server is even started: the stdio
// command here would fail if it ran.
func TestSwarmChecksWorldFreeFlagsBeforeContact(t *testing.T) {
	for _, c := range []struct{ flag, value, want string }{
		{"--mix", "careful", `--mix: "careful" has no weight`},
		{"--shard", "3/2", `--shard: "3/2": want 0 ≤ k < n`},
		{"--threshold", "harmful<=5%", `--threshold: threshold "harmful<=5%"`},
	} {
		code, _, errOut := runHerd(t, "swarm", "mcp+stdio:/nonexistent/herd-test-server", c.flag, c.value, "--progress", "never")
		if code != exitUsage || !strings.Contains(errOut, c.want) || strings.Contains(errOut, "nonexistent") {
			t.Errorf("%s %s: exit %d, stderr %q; want 2 and %q, with no attempt to start the server", c.flag, c.value, code, errOut, c.want)
		}
	}
}
