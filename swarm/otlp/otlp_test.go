package otlp_test

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/otlp"
	"github.com/herd-sh/herd/swarm/otlp/otlptest"
	"github.com/herd-sh/herd/worlds"
)

func config(t *testing.T, world string, agents int, faults string, variants ...string) swarm.Config {
	t.Helper()
	w, err := worlds.Resolve(world)
	if err != nil {
		t.Fatal(err)
	}
	var mix []swarm.MixEntry
	for _, p := range personas.Builtin().Personas {
		mix = append(mix, swarm.MixEntry{Persona: p, Weight: 1})
	}
	return swarm.Config{World: w, WorldRef: world, Seed: 7, Agents: agents, Mix: mix, Variants: variants,
		Profile: w.Profile(faults), Workers: 3}
}

func run(t *testing.T, cfg swarm.Config) (*swarm.Plan, *report.Results) {
	t.Helper()
	p, err := swarm.NewPlan(cfg)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), swarm.InProcess{})
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

// callCounter counts the engine's own tally of calls (Outcome.Calls), which
// the exporter does not use: it makes spans from the trace's steps.
type callCounter struct {
	next            swarm.Observer
	episodes, calls atomic.Int64
	traced          atomic.Int64
}

func (c *callCounter) EpisodeDone(agent int, variant string, o personas.Outcome) {
	c.episodes.Add(1)
	c.calls.Add(int64(o.Calls))
	if o.Trace != nil {
		c.traced.Add(1)
	}
	c.next.EpisodeDone(agent, variant, o)
}

func newExporter(t *testing.T, url string) *otlp.Exporter {
	t.Helper()
	e, err := otlp.New(context.Background(), url, otlp.Run{World: "crm", Source: "mock:crm", Seed: 7, Agents: 1, Faults: "realistic"})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func shutdown(t *testing.T, e *otlp.Exporter) otlp.Stats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	st, _ := e.Shutdown(ctx)
	return st
}

// One span per episode and one per call, every call a child of its
// episode, and the run's results unchanged by the observer.
func TestSpansAreEpisodesPlusCalls(t *testing.T) {
	col := otlptest.Start(t)
	exp := newExporter(t, col.URL())
	counter := &callCounter{next: exp}

	cfg := config(t, "mock:crm", 240, "hostile", "clear", "ambiguous")
	cfg.Observer = counter
	plan, res := run(t, cfg)
	st := shutdown(t, exp)

	if st.Err != nil || st.Lost != 0 {
		t.Fatalf("export failed: %v (%d spans lost)", st.Err, st.Lost)
	}
	episodes, calls := counter.episodes.Load(), counter.calls.Load()
	if episodes != int64(plan.Episodes()) || counter.traced.Load() != episodes {
		t.Fatalf("observer saw %d episodes (%d traced), the plan ran %d", episodes, counter.traced.Load(), plan.Episodes())
	}
	if calls < episodes {
		t.Fatalf("only %d calls in %d episodes: every episode calls at least once", calls, episodes)
	}
	spans := col.Spans()
	if got, want := int64(len(spans)), episodes+calls; got != want {
		t.Fatalf("collector got %d spans, want episodes + calls = %d + %d = %d", got, episodes, calls, want)
	}
	if st.Episodes != episodes || st.Calls != calls || st.Sent != episodes+calls {
		t.Fatalf("stats %+v, want %d episodes, %d calls, all sent", st, episodes, calls)
	}
	if errs := col.Errors(); len(errs) > 0 {
		t.Fatalf("collector could not decode: %v", errs)
	}

	byID := map[string]otlptest.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	tools := map[string]bool{}
	for _, tl := range cfg.World.Tools {
		tools[tl.Name] = true
	}
	var roots, children, harmful, faults int
	for _, s := range spans {
		if s.Resource["service.name"] != "herd" || s.Resource["herd.seed"] != "7" {
			t.Fatalf("span %s: resource %v", s.Name, s.Resource)
		}
		if s.ParentID == "" {
			roots++
			if !strings.HasPrefix(s.Name, "episode ") || s.Attrs["herd.goal"] != strings.TrimPrefix(s.Name, "episode ") {
				t.Fatalf("root span %q: attrs %v", s.Name, s.Attrs)
			}
			if s.Attrs["herd.outcome.severity"] == "harmful" {
				harmful++
				if !s.StatusError {
					t.Fatalf("harmful episode %v has no error status", s.Attrs)
				}
			}
			continue
		}
		children++
		parent, ok := byID[s.ParentID]
		if !ok || parent.ParentID != "" || parent.TraceID != s.TraceID {
			t.Fatalf("call span %q: parent %s is not an episode of its trace", s.Name, s.ParentID)
		}
		tool := strings.TrimPrefix(s.Name, "tools/call ")
		if !tools[tool] || s.Attrs["gen_ai.tool.name"] != tool {
			t.Fatalf("call span %q: not a tool of the world (attrs %v)", s.Name, s.Attrs)
		}
		if s.Start.Before(parent.Start) || s.End.After(parent.End) || s.End.Before(s.Start) {
			t.Fatalf("call span %q [%v, %v] is outside its episode [%v, %v]", s.Name, s.Start, s.End, parent.Start, parent.End)
		}
		if _, ok := s.Attrs["herd.fault"]; ok {
			faults++
		}
	}
	if int64(roots) != episodes || int64(children) != calls {
		t.Fatalf("%d root and %d child spans, want %d and %d", roots, children, episodes, calls)
	}
	// The hostile profile injects faults and the CRM's personas do harm:
	// both must show, or the attributes are not being set.
	if harmful == 0 || faults == 0 {
		t.Fatalf("%d harmful episodes and %d faulted calls: want some of each", harmful, faults)
	}

	// Tracing every episode for the observer must not change the results.
	cfg.Observer = nil
	_, plain := run(t, cfg)
	if !bytes.Equal(plain.DeterministicJSON(), res.DeterministicJSON()) {
		t.Fatal("the run's results differ with an observer")
	}
}

// A collector that refuses exports does not stall the run: the exporter
// gives up after the first failed batch and says how many spans it lost.
func TestRefusingCollectorLosesSpansQuickly(t *testing.T) {
	col := otlptest.Start(t)
	col.FailWith(http.StatusBadRequest)
	exp := newExporter(t, col.URL()+"/v1/traces")
	cfg := config(t, "mock:crm", 300, "none")
	cfg.Observer = exp
	started := time.Now()
	run(t, cfg)
	st := shutdown(t, exp)
	if st.Err == nil {
		t.Fatal("no error reported for a collector that refused every export")
	}
	if st.Sent != 0 || st.Lost != st.Spans() || st.Spans() == 0 {
		t.Fatalf("stats %+v: want every span lost", st)
	}
	if col.Requests() != 1 {
		t.Fatalf("%d export requests: after the first failure the exporter must stop sending", col.Requests())
	}
	if d := time.Since(started); d > 15*time.Second {
		t.Fatalf("run with a refusing collector took %v", d)
	}
}

func TestNothingListening(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = otlp.New(context.Background(), "http://"+addr, otlp.Run{})
	if err == nil || !strings.Contains(err.Error(), "no OTLP collector at http://"+addr+"/v1/traces") {
		t.Fatalf("err = %v, want one naming the endpoint", err)
	}
}

func TestParseEndpoint(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "http://127.0.0.1:4318", want: "http://127.0.0.1:4318/v1/traces"},
		{in: "http://127.0.0.1:4318/", want: "http://127.0.0.1:4318/v1/traces"},
		{in: "127.0.0.1:4318", want: "http://127.0.0.1:4318/v1/traces"},
		{in: "https://otel.example:443/custom/path", want: "https://otel.example:443/custom/path"},
		{in: "", err: "empty endpoint"},
		{in: "grpc://127.0.0.1:4317", err: `scheme "grpc"`},
		{in: "http://", err: "has no host"},
		{in: "http://user:secret@127.0.0.1:4318", err: "OTEL_EXPORTER_OTLP_HEADERS"},
	} {
		got, err := otlp.ParseEndpoint(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseEndpoint(%q) = %q, %v; want an error containing %q", c.in, got, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("ParseEndpoint(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}
