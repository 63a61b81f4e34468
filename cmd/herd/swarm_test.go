package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herd-sh/herd/report"
)

func TestSwarmRunsAndWritesJSON(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "run.json")
	code, out, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "200", "--seed", "42", "--json", js, "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "seed 42") || !strings.Contains(errOut, "seed 42") {
		t.Errorf("the seed is not printed:\n%s\n%s", out, errOut)
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if res.Episodes != 200 || res.Run.Seed != 42 || res.Partial {
		t.Errorf("episodes %d seed %d partial %v", res.Episodes, res.Run.Seed, res.Partial)
	}
}

// Bad flags exit 2 with one clear line each.
func TestSwarmBadFlags(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "") // for --shard auto
	t.Setenv("HERD_SHARDS", "")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--agents", "0"}, "--agents: must be between 1 and 10000000, got 0"},
		{[]string{"--agents", "-1"}, "--agents: must be between 1 and 10000000, got -1"},
		{[]string{"--max-agents", "0"}, "--max-agents: must be between 1 and 10000000, got 0"},
		{[]string{"--max-agents", "20000000", "--agents", "15000000"}, "--max-agents: must be between 1 and 10000000, got 20000000"},
		{[]string{"--max-agents", "100"}, "--agents: must be between 1 and 100, got 200"},
		{[]string{"--mix", "careful=x"}, `--mix: "careful=x": weight "x" is not a non-negative number`},
		{[]string{"--mix", "carefull=1"}, `--mix: unknown persona "carefull"`},
		{[]string{"--goal", "nope"}, `--goal: world crm has no goal "nope"`},
		{[]string{"--goal", "hide_contact", "--goal", "hide_contact"}, `--goal: "hide_contact" given twice`},
		{[]string{"--shard", "5/4"}, `--shard: "5/4": want 0 ≤ k < n`},
		{[]string{"--workers", "0"}, "--workers: must be between 1 and 4096, got 0"},
		{[]string{"--faults", "weird"}, `--faults: world crm has no fault profile "weird"`},
		{[]string{"--variant", "shiny"}, `--variant: world crm has no variant "shiny"`},
		{[]string{"--variant", "clear,ambiguous,clear"}, `--variant: "clear" given twice`},
		{[]string{"--threshold", "harmless<5%"}, `threshold "harmless<5%"`},
		{[]string{"--progress", "sometimes"}, `--progress: want auto, always or never`},
		{[]string{"--mix", "careful=1e10"}, `--mix: "careful=1e10": weight "1e10" is above 1000000000`},
		{[]string{"--shard", "auto"}, "--shard auto: needs JOB_COMPLETION_INDEX and HERD_SHARDS"},
		// Flags a target over MCP uses would be ignored in-process, and
		// would break the run's replay commands.
		{[]string{"--allow-host", "example.invalid"}, "--allow-host: flags for a target over MCP need a real transport"},
		{[]string{"--call-timeout", "5s"}, "--call-timeout: flags for a target over MCP need a real transport"},
		{[]string{"--token", "t0k"}, "--token: flags for a target over MCP need a real transport"},
		{[]string{"--world", "crm.yaml"}, "--world: mock:crm names its world already"},
		{[]string{"--allow-writes"}, "--allow-writes: mock:crm is a herd world"},
		// An output file that cannot be written is refused before the run.
		{[]string{"--json", "/nonexistent-herd-dir/run.json"}, "--json /nonexistent-herd-dir/run.json: folder /nonexistent-herd-dir: no such file or directory"},
		{[]string{"--md", "swarm_test.go/run.md"}, "--md swarm_test.go/run.md: folder swarm_test.go: not a folder"},
	}
	for _, c := range cases {
		args := append([]string{"swarm", "mock:crm"}, c.args...)
		code, _, errOut := runHerd(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (%s)", c.args, code, errOut)
			continue
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		if len(lines) != 1 || !strings.Contains(lines[0], c.want) {
			t.Errorf("%v: stderr %q, want one line containing %q", c.args, errOut, c.want)
		}
	}
	code, _, errOut := runHerd(t, "swarm", "mock:nope")
	if code != 2 || !strings.Contains(errOut, `mock:nope`) {
		t.Errorf("unknown world: exit %d, %q", code, errOut)
	}
}

// --shard auto names the environment variables it read, not a k/n the
// user never typed.
func TestSwarmShardAutoOutOfRange(t *testing.T) {
	t.Setenv("JOB_COMPLETION_INDEX", "4")
	t.Setenv("HERD_SHARDS", "4")
	code, _, errOut := runHerd(t, "swarm", "mock:crm", "--shard", "auto")
	if want := "herd: --shard auto: JOB_COMPLETION_INDEX=4, HERD_SHARDS=4: want 0 ≤ index < shards\n"; code != exitUsage || errOut != want {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "3")
	js := filepath.Join(t.TempDir(), "run.json")
	if code, _, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "10", "--shard", "auto", "--json", js, "--progress", "never"); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if res := readRunJSON(t, js); res.Run.Shard == nil || *res.Run.Shard != (report.Shard{Index: 3, Count: 4}) || res.Episodes != 2 {
		t.Errorf("shard %+v, %d episodes; want shard 3 of 4 with agents 3 and 7", res.Run.Shard, res.Episodes)
	}
}

// A run interrupted with SIGINT writes partial results whose counts equal
// the episodes it reports finished.
func TestSwarmInterruptWritesPartialResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := herdBinary(t)
	js := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(bin, "swarm", "mock:crm", "--agents", "5000000", "--seed", "7", "--json", js, "--progress", "always")
	var stderr lockedBuffer // written by exec's copier, read by the test
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first progress line: the run is under way.
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(stderr.String(), "episodes (") {
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("no progress after 60s: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatal("herd did not stop within 60s of SIGINT")
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatalf("no results after SIGINT: %v\n%s", err, stderr.String())
	}
	if !res.Partial {
		t.Fatal("results not marked partial")
	}
	sum := 0
	for _, c := range res.Counts {
		sum += c.N
	}
	if sum != res.Episodes || sum == 0 {
		t.Fatalf("counts sum to %d, episodes %d", sum, res.Episodes)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr does not say it was interrupted: %s", stderr.String())
	}
}

func TestReplayMatchesRunTrace(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "run.json")
	code, _, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "300", "--seed", "5", "--variant", "clear,ambiguous", "--json", js, "--progress", "never")
	if code != 0 {
		t.Fatal(errOut)
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Traces) == 0 {
		t.Fatal("no traces sampled")
	}
	tr := res.Traces[0]
	args := strings.Fields(strings.TrimPrefix(tr.Replay, "herd "))
	code, out, errOut := runHerd(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"class": "`+tr.Class+`"`) || !strings.Contains(out, `"agent": `+strconv.Itoa(tr.Agent)) {
		t.Fatalf("replay of %q does not reproduce class %s:\n%s", tr.Replay, tr.Class, out)
	}
}

// lockedBuffer is a bytes.Buffer safe for one writer and one reader.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
