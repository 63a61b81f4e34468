package examples_test

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/herd-sh/herd/swarm/otlp/otlptest"
)

// herd swarm --otlp sends one span per episode and one per call to a
// collector, says so, and refuses an endpoint nothing listens on before
// running anything.
func TestSwarmExportsToOTLP(t *testing.T) {
	col := otlptest.Start(t)
	r := command(t, 2*time.Minute, t.TempDir(), nil, bins.herd, "swarm", "mock:crm", "--agents", "150", "--seed", "5",
		"--variant", "clear,ambiguous", "--faults", "realistic", "--progress", "never", "--otlp", col.URL())
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	m := regexp.MustCompile(`herd: otlp: (\d+) spans \((\d+) episodes, (\d+) calls\) sent to (\S+)`).FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("no export line in:\n%s", r.stderr)
	}
	sent, _ := strconv.Atoi(m[1])
	episodes, _ := strconv.Atoi(m[2])
	calls, _ := strconv.Atoi(m[3])
	if episodes != 300 || calls < episodes || sent != episodes+calls || m[4] != col.URL()+"/v1/traces" {
		t.Fatalf("export line %q: want 300 episodes (150 agents × 2 variants), every span sent to %s/v1/traces", m[0], col.URL())
	}
	spans := col.Spans()
	if len(spans) != sent {
		t.Fatalf("collector got %d spans, herd says it sent %d", len(spans), sent)
	}
	roots := 0
	for _, s := range spans {
		if s.ParentID == "" {
			roots++
			if s.Resource["herd.world.source"] != "mock:crm" || !strings.HasPrefix(s.Resource["herd.command"].(string), "herd swarm mock:crm --agents 150 --seed 5") {
				t.Fatalf("resource %v", s.Resource)
			}
		}
	}
	if roots != episodes {
		t.Fatalf("%d episode spans, want %d", roots, episodes)
	}

	// Nothing listening: exit 2 before the run, naming the endpoint.
	col2 := otlptest.Start(t)
	dead := col2.URL()
	col2.Close()
	r = command(t, time.Minute, t.TempDir(), nil, bins.herd, "swarm", "mock:crm", "--agents", "10", "--otlp", dead)
	if r.code != 2 || !strings.Contains(r.stderr, "--otlp: no OTLP collector at "+dead+"/v1/traces") {
		t.Fatalf("dead collector: exit %d, %q", r.code, r.stderr)
	}
	r = command(t, time.Minute, t.TempDir(), nil, bins.herd, "swarm", "mock:crm", "--agents", "10", "--otlp", "grpc://127.0.0.1:4317")
	if r.code != 2 || !strings.Contains(r.stderr, `scheme "grpc"`) {
		t.Fatalf("grpc endpoint: exit %d, %q", r.code, r.stderr)
	}
}
