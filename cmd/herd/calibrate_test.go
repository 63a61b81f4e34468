package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herd-sh/herd/personas"
)

// The whole loop a user runs: episodes from a swarm, a calibration, the
// fitted pack written and read back by herd swarm with its weights.
func TestCalibrateFromSwarmEpisodes(t *testing.T) {
	if testing.Short() {
		t.Skip("plays some thousands of episodes")
	}
	dir := t.TempDir()
	eps := filepath.Join(dir, "eps.ndjson")
	if code, _, stderr := runHerd(t, "swarm", "mock:crm", "--mix", "careful=0.7,hasty=0.3", "--agents", "600",
		"--variant", "clear,ambiguous", "--seed", "3", "--episodes", eps, "--quiet"); code != 0 {
		t.Fatalf("swarm: exit %d\n%s", code, stderr)
	}
	fitted, out := filepath.Join(dir, "fitted.yaml"), filepath.Join(dir, "cal.json")
	code, stdout, stderr := runHerd(t, "calibrate", eps, "--samples", "500", "--reps", "50", "--save-personas", fitted, "--json", out)
	if code != 0 {
		t.Fatalf("calibrate: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stdout, "FIT:") || !strings.Contains(stdout, "careful") {
		t.Errorf("report:\n%s", stdout)
	}
	var rep struct {
		Mix []struct {
			Persona string
			Weight  float64
		}
	}
	data, _ := os.ReadFile(out)
	if err := json.Unmarshal(data, &rep); err != nil {
		t.Fatal(err)
	}
	pack, err := personas.LoadPack(fitted)
	if err != nil {
		t.Fatalf("the fitted pack does not load: %v", err)
	}
	if c := pack.Get("careful"); c == nil || c.Weight < 0.5 || c.Traits != personas.Builtin().Get("careful").Traits {
		t.Errorf("fitted careful %+v: want the built-in traits with its weight", c)
	}
	res := filepath.Join(dir, "run.json")
	if code, _, stderr := runHerd(t, "swarm", "mock:crm", "--personas", fitted, "--agents", "1000", "--quiet", "--json", res); code != 0 {
		t.Fatalf("swarm with the fitted pack: exit %d\n%s", code, stderr)
	}
	var run struct {
		Run struct {
			Mix []struct {
				Persona string
				Agents  int
			}
		}
	}
	data, _ = os.ReadFile(res)
	json.Unmarshal(data, &run)
	for _, m := range run.Run.Mix {
		if m.Persona == "careful" && (m.Agents < 500 || m.Agents > 900) {
			t.Errorf("careful got %d of 1000 agents: the pack's weight must set the mix", m.Agents)
		}
	}
}

func TestCalibrateRefusesBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ndjson")
	os.WriteFile(bad, []byte(`{"herd_episodes":1,"world":"mock:crm","faults":"none","variants":["clear"]}`+"\n"+`{"agent":0,"variant":"clear","goal":"nope","class":"x"}`+"\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", filepath.Join(dir, "missing")}, "missing"},
		{[]string{"calibrate", bad}, "no goal \"nope\""},
		{[]string{"calibrate", bad, "--samples", "1"}, "--samples"},
		{[]string{"calibrate", bad, "--reps", "1"}, "--reps"},
	} {
		code, _, stderr := runHerd(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 saying %q", c.args, code, stderr, c.want)
		}
	}
}
