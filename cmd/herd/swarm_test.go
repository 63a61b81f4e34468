package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
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
		{[]string{"--max-agents", "100"}, "--agents: must be between 1 and 100, got 1000"},
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
		// A persona with no weight could mean "only this one" or "weight
		// 1 beside the rest": refused rather than guessed.
		{[]string{"--mix", "careful"}, `--mix: "careful" has no weight; write careful=1`},
		// An in-process run keeps virtual time: a latency threshold could
		// never be judged, so it is an error, not an INCONCLUSIVE.
		{[]string{"--threshold", "p99<50ms"}, `--threshold: threshold "p99<50ms": this run measures no latency: it runs in-process`},
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

// runSwarm runs without cobra: a test fills the options as the flags
// would — their defaults, the values given, and in set which were given —
// and reads what the command wrote from its streams. Every command's run
// function is tested this way.
func TestRunSwarmWithoutCobra(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	o := &swarmCmdOptions{
		swarmOptions: swarmOptions{agents: 50, seed: 7, faults: engine.NoFaults, maxAgents: swarm.MaxAgents,
			variants: []string{"clear", "ambiguous"}, set: givenFlags{agents: true, seed: true, variant: true}},
		targetArg: "mock:crm",
		transport: transportOptions{callTimeout: target.DefaultCallTimeout},
		out:       outputs{json: js},
		progress:  "never",
	}
	var out, errOut bytes.Buffer
	if err := runSwarm(context.Background(), &streams{in: strings.NewReader(""), out: &out, err: &errOut}, o); err != nil {
		t.Fatalf("runSwarm: %v\n%s", err, errOut.String())
	}
	res := readRunJSON(t, js)
	if res.Episodes != 100 || res.Run.Seed != 7 || res.Run.Command != "herd swarm mock:crm --agents 50 --seed 7 --variant clear,ambiguous" {
		t.Errorf("episodes %d, seed %d, command %q", res.Episodes, res.Run.Seed, res.Run.Command)
	}
	// The options are what the user gave: the run's own settings (the
	// default variant, a served world's faults) never write back into them.
	if o.faults != engine.NoFaults || o.agents != 50 || len(o.variants) != 2 {
		t.Errorf("the run changed its options: %+v", o.swarmOptions)
	}

	// The same without --seed: the world's seed, not the zero value.
	o.set.seed, o.seed = false, 0
	if err := runSwarm(context.Background(), &streams{in: strings.NewReader(""), out: &out, err: &errOut}, o); err != nil {
		t.Fatal(err)
	}
	if res := readRunJSON(t, js); res.Run.Seed == 0 {
		t.Errorf("without --seed the run used seed 0, not the world's")
	}
}

// A descriptions file that names a variant the world does not have and
// the run does not ask for is refused before the run: a typo there would
// describe a variant nobody runs, silently.
func TestSwarmRefusesDescriptionsOfAnUnknownVariant(t *testing.T) {
	file := filepath.Join(t.TempDir(), "descriptions.yaml")
	if err := os.WriteFile(file, []byte("archive_contact:\n  ambigous: Hide a contact from lists; its history is kept.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "10", "--variant", "ambiguous", "--descriptions", file, "--progress", "never")
	if want := `--descriptions: variant "ambigous" is not one of world crm (clear, ambiguous) and --variant does not ask for it`; code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	// Asked for by name, the same file defines a new variant.
	code, _, errOut = runHerd(t, "swarm", "mock:crm", "--agents", "10", "--variant", "ambigous", "--descriptions", file, "--progress", "never")
	if code != exitOK {
		t.Errorf("a new variant asked for with --variant: exit %d, %s", code, errOut)
	}
}

// A latency threshold naming a tool the world does not have fails before
// the served world is even started: a typo costs no load run.
func TestSwarmRefusesLatencyThresholdOnUnknownToolBeforeServing(t *testing.T) {
	start := time.Now()
	code, _, errOut := runHerd(t, "swarm", "serve:mock:crm", "--agents", "10", "--threshold", "get_contcat:p99<50ms", "--progress", "never")
	if want := `--threshold: threshold "get_contcat:p99<50ms": no latency measured for tool "get_contcat"`; code != exitUsage || !strings.Contains(errOut, want) {
		t.Fatalf("exit %d, stderr %q; want 2 and %q", code, errOut, want)
	}
	if strings.Contains(errOut, "herd: swarm") || time.Since(start) > 5*time.Second {
		t.Errorf("the run started before the threshold was refused:\n%s", errOut)
	}
	// Spelt right, the threshold is judged on the served run.
	if code, _, errOut := runHerd(t, "swarm", "serve:mock:crm", "--agents", "10", "--threshold", "get_contact:p99<10s", "--progress", "never"); code == exitUsage {
		t.Errorf("a latency threshold on a served run was refused: %s", errOut)
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
// the episodes it reports finished, and exits 130 (SIGTERM: 143), so that
// a stopped run never reads as a pass; its thresholds are still judged on
// what finished.
func TestSwarmInterruptWritesPartialResults(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, 130}, {syscall.SIGTERM, 143}} {
		t.Run(c.sig.String(), func(t *testing.T) { testInterrupt(t, c.sig, c.code) })
	}
}

func testInterrupt(t *testing.T, sig syscall.Signal, wantCode int) {
	bin := herdBinary(t)
	js := filepath.Join(t.TempDir(), "run.json")
	cmd := exec.Command(bin, "swarm", "mock:crm", "--agents", "5000000", "--seed", "7", "--json", js, "--progress", "always",
		"--threshold", "harmful<99%")
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
	if err := cmd.Process.Signal(sig); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("herd did not stop within 60s of %v", sig)
	}
	if got := cmd.ProcessState.ExitCode(); got != wantCode {
		t.Errorf("exit %d after %v, want %d:\n%s", got, sig, wantCode, stderr.String())
	}
	res, err := report.ReadFile(js)
	if err != nil {
		t.Fatalf("no results after %v: %v\n%s", sig, err, stderr.String())
	}
	if len(res.Thresholds) != 1 || res.Thresholds[0].Result != report.Ready {
		t.Errorf("the threshold is not judged on what finished: %+v", res.Thresholds)
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

// --json - writes the results document to standard output and nothing
// else there, so that `herd swarm … --json - | jq .schema` works; --md -
// likewise; two reports cannot share the stream.
func TestSwarmReportToStdout(t *testing.T) {
	code, out, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "50", "--json", "-", "--progress", "never")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Schema   string `json:"schema"`
		Episodes int    `json:"episodes"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%.300s", err, out)
	}
	if doc.Schema == "" || doc.Episodes != 50 {
		t.Errorf("schema %q, %d episodes; want the run's document", doc.Schema, doc.Episodes)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error("a file named - was written")
	}

	code, out, errOut = runHerd(t, "swarm", "mock:crm", "--agents", "50", "--md", "-", "--progress", "never")
	if code != 0 || !strings.HasPrefix(out, "#") || strings.Contains(out, "Misuse map —") {
		t.Errorf("--md -: exit %d, want Markdown alone on stdout:\n%.300s\n%s", code, out, errOut)
	}

	code, _, errOut = runHerd(t, "swarm", "mock:crm", "--json", "-", "--md", "-")
	if code != 2 || !strings.Contains(errOut, "--md -: --json goes to standard output already") {
		t.Errorf("two reports to stdout: exit %d: %s", code, errOut)
	}
}

// --quiet prints nothing but the files it is asked for; the exit code is
// still the thresholds'.
func TestSwarmQuiet(t *testing.T) {
	js := filepath.Join(t.TempDir(), "run.json")
	code, out, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "300", "--quiet", "--json", js, "--threshold", "harmful<0.1%")
	if code != 1 {
		t.Errorf("exit %d, want 1 (the threshold fails)", code)
	}
	if out != "" || errOut != "" {
		t.Errorf("--quiet printed:\n%s\n%s", out, errOut)
	}
	if res := readRunJSON(t, js); res.Episodes != 300 {
		t.Errorf("%d episodes in the file, want 300", res.Episodes)
	}
}

// On mock:shop under hostile faults, double refunds after a timeout are
// reported as double_refund — the goal's own name for the harm — in every
// renderer, and the invariant they also break is shown beside them.
func TestShopHostileReportsDoubleRefunds(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	code, out, errOut := runHerd(t, "swarm", "mock:shop", "--faults", "hostile", "--progress", "never",
		"--json", p("run.json"), "--md", p("run.md"), "--html", p("run.html"), "--junit", p("run.xml"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	res := readRunJSON(t, p("run.json"))
	doubles, asInvariant := 0, 0
	for _, c := range res.Counts {
		switch c.Class {
		case "double_refund":
			doubles += c.N
		case "invariant:refunds_within_total":
			asInvariant += c.N
		}
	}
	broken := 0
	for _, iv := range res.Invariants {
		if iv.Name == "refunds_within_total" {
			broken += iv.N
		}
	}
	if doubles == 0 || broken < doubles {
		t.Fatalf("%d double_refund episodes, %d breaking refunds_within_total (%d classed as the invariant); want double refunds counted as themselves and in the invariants", doubles, broken, asInvariant)
	}
	// A double_refund row of the misuse map shows a rate above 0% in
	// every renderer (a line naming the class with a non-zero percentage).
	nonZero := regexp.MustCompile(`(^|[^0-9.])(0\.[0-9]*[1-9]|[1-9])[0-9.]*%`)
	reports := func(text string) bool {
		for _, line := range strings.Split(text, "\n") {
			if strings.Contains(line, "double_refund") && nonZero.MatchString(line) {
				return true
			}
		}
		return false
	}
	rendered := map[string]string{"terminal": out}
	for _, f := range []string{"run.md", "run.html", "run.xml"} {
		b, err := os.ReadFile(p(f))
		if err != nil {
			t.Fatal(err)
		}
		rendered[f] = string(b)
	}
	for name, text := range rendered {
		if !reports(text) {
			t.Errorf("%s does not report the double refunds as double_refund", name)
		}
		if name != "run.xml" && !strings.Contains(text, "refunds_within_total") {
			t.Errorf("%s does not show the invariant the double refunds break", name)
		}
	}
}
