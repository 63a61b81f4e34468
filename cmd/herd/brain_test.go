package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/brain/braintest"
	"github.com/herd-sh/herd/report"
)

var updateCassette = flag.Bool("update-cassette", false,
	"record testdata/brain/crm.cassette.json again from the test model server")

// crmCassette is a full episode set of mock:crm (every goal, both
// variants) recorded from braintest's Reader model.
const crmCassette = "testdata/brain/crm.cassette.json"

// crmBrainArgs is the run the committed cassette holds.
var crmBrainArgs = []string{"swarm", "mock:crm", "--brain", "openai:reader", "--agents", "24",
	"--variant", "clear,ambiguous", "--seed", "42", "--quiet"}

func deterministic(t *testing.T, path string) []byte {
	t.Helper()
	r, err := report.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r.DeterministicJSON()
}

// The committed cassette replays the run with no endpoint, byte for byte,
// twice; the results name the model and the cassette's hash. With
// -update-cassette the test records it again from the test server.
func TestBrainCassetteReplaysByteIdentically(t *testing.T) {
	dir := t.TempDir()
	if *updateCassette {
		srv := braintest.New(braintest.Reader)
		defer srv.Close()
		os.Remove(crmCassette)
		args := append(append([]string{}, crmBrainArgs...), "--brain-url", srv.BaseURL(), "--cassette", crmCassette, "--record",
			"--json", filepath.Join(dir, "rec.json"))
		if code, _, stderr := runHerd(t, args...); code != 0 {
			t.Fatalf("recording: exit %d\n%s", code, stderr)
		}
	}
	var first []byte
	for i := range 2 {
		out := filepath.Join(dir, "replay.json")
		args := append(append([]string{}, crmBrainArgs...), "--cassette", crmCassette, "--json", out)
		code, _, stderr := runHerd(t, args...)
		if code != 0 {
			t.Fatalf("replay %d: exit %d\n%s", i, code, stderr)
		}
		got := deterministic(t, out)
		if i == 0 {
			first = got
			r, _ := report.ReadFile(out)
			m := r.Run.Model
			if m == nil || m.Name != "reader" || len(m.Cassette) != 64 || m.Requests == 0 || r.Episodes != 48 {
				t.Fatalf("run.model %+v, %d episodes: want the model, the cassette hash and 48 episodes", m, r.Episodes)
			}
			if !strings.Contains(r.Run.Command, "--cassette") || strings.Contains(r.Run.Command, "--record") {
				t.Errorf("command %q: want the replaying command", r.Run.Command)
			}
			continue
		}
		if !bytes.Equal(got, first) {
			t.Fatal("two replays of one cassette differ")
		}
	}
}

// Recording and replaying give the same document: nothing of the live
// endpoint (its address, the retries) is in the deterministic part.
func TestBrainRecordThenReplay(t *testing.T) {
	srv := braintest.New(braintest.Reader)
	defer srv.Close()
	dir := t.TempDir()
	cas := filepath.Join(dir, "c.json")
	base := []string{"swarm", "mock:crm", "--brain", "openai:reader", "--agents", "12", "--quiet", "--cassette", cas}
	rec := append(append([]string{}, base...), "--brain-url", srv.BaseURL(), "--record", "--json", filepath.Join(dir, "a.json"))
	if code, _, stderr := runHerd(t, rec...); code != 0 {
		t.Fatalf("record: exit %d\n%s", code, stderr)
	}
	play := append(append([]string{}, base...), "--json", filepath.Join(dir, "b.json"))
	if code, _, stderr := runHerd(t, play...); code != 0 {
		t.Fatalf("replay: exit %d\n%s", code, stderr)
	}
	if a, b := deterministic(t, filepath.Join(dir, "a.json")), deterministic(t, filepath.Join(dir, "b.json")); !bytes.Equal(a, b) {
		t.Errorf("recorded and replayed runs differ:\n%s\n%s", a, b)
	}
	// The key never reaches the results or the cassette.
	t.Setenv("HERD_TEST_KEY", "sk-never-written")
	rec2 := append(append([]string{}, base...), "--brain-url", srv.BaseURL(), "--record", "--brain-key-env", "HERD_TEST_KEY",
		"--agents", "13", "--json", filepath.Join(dir, "c.json.out"))
	if code, _, stderr := runHerd(t, rec2...); code != 0 {
		t.Fatalf("record with a key: exit %d\n%s", code, stderr)
	}
	for _, p := range []string{cas, filepath.Join(dir, "c.json.out")} {
		data, _ := os.ReadFile(p)
		if bytes.Contains(data, []byte("sk-never-written")) {
			t.Errorf("%s holds the key", p)
		}
	}
}

// Bad brain flags are refused before anything runs, saying which flag.
func TestBrainFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--brain", "openai:m"}, "--brain-url: required"},
		{[]string{"--brain", "claude:m", "--brain-url", "http://127.0.0.1:1/v1"}, "want openai:MODEL"},
		{[]string{"--brain", "openai:m", "--brain-url", "http://model.invalid/v1"}, "not loopback"},
		{[]string{"--brain", "openai:m", "--brain-url", "http://127.0.0.1:1/v1", "--mix", "careful=1"}, "--mix"},
		{[]string{"--brain", "openai:m", "--brain-url", "http://127.0.0.1:1/v1", "--temperature", "3"}, "--temperature"},
		{[]string{"--brain", "openai:m", "--record"}, "--record: needs --cassette"},
		{[]string{"--cassette", "x.json"}, "need --brain"},
		{[]string{"--brain", "openai:m", "--cassette", "testdata/brain/missing.json"}, "missing.json"},
	} {
		args := append([]string{"swarm", "mock:crm", "--agents", "5", "--quiet"}, c.args...)
		code, _, stderr := runHerd(t, args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, stderr, c.want)
		}
	}
	// --allow-host names the model's host: the guard lets it through (and
	// nothing is contacted: the name does not resolve).
	code, _, stderr := runHerd(t, "swarm", "mock:crm", "--agents", "1", "--quiet", "--brain", "openai:m",
		"--brain-url", "http://model.invalid/v1", "--allow-host", "model.invalid", "--brain-retries", "0")
	if code != exitUnreachable || strings.Contains(stderr, "not loopback") {
		t.Errorf("allowed host: exit %d, %q; want the run to try it (and fail to reach it, exit 3)", code, stderr)
	}
	code, _, stderr = runHerd(t, "swarm", "serve:mock:crm", "--agents", "5", "--brain", "openai:m", "--brain-url", "http://127.0.0.1:1/v1")
	if code != exitUsage || !strings.Contains(stderr, "in-process") {
		t.Errorf("serve target: exit %d, %q", code, stderr)
	}
}

// An endpoint that keeps failing breaks the run (exit 3) and says so; the
// key is not in what is printed.
func TestBrainEndpointDown(t *testing.T) {
	srv := braintest.New(func(int, *braintest.Request) braintest.Reply { return braintest.Reply{Status: 500} })
	defer srv.Close()
	t.Setenv("HERD_TEST_KEY", "sk-hidden")
	code, _, stderr := runHerd(t, "swarm", "mock:crm", "--agents", "4", "--quiet", "--brain", "openai:m",
		"--brain-url", srv.BaseURL(), "--brain-retries", "0", "--brain-key-env", "HERD_TEST_KEY")
	if code != exitUnreachable || !strings.Contains(stderr, "500") || strings.Contains(stderr, "sk-hidden") {
		t.Errorf("exit %d, stderr %q: want exit 3 naming the 500, never the key", code, stderr)
	}
}
