package brain_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/herd-sh/herd/brain"
	"github.com/herd-sh/herd/brain/braintest"
	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

// world is mock:crm seeded at its default seed.
func world(t *testing.T) (*engine.World, *engine.Base) {
	t.Helper()
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		t.Fatal(err)
	}
	b, err := w.Seed(w.DefaultSeed)
	if err != nil {
		t.Fatal(err)
	}
	return w, b
}

func newAgent(t *testing.T, s brain.Settings, w *engine.World, variant string) (*brain.Agent, *brain.Client) {
	t.Helper()
	c, err := brain.NewClient(s)
	if err != nil {
		t.Fatal(err)
	}
	return brain.NewAgent(c, w, variant, nil, func(*engine.Goal) string { return "archive_contact" }), c
}

func episode(b *engine.Base, w *engine.World, goal string, seed uint64) personas.Episode {
	return personas.Episode{Base: b, Persona: &personas.Persona{Name: "model"}, Goal: w.Goal(goal), Seed: seed,
		Profile: w.Profile(engine.NoFaults)}
}

// The model is shown the world's tools with the variant's texts and
// schemas, and the goal's intent as the user's message; its tool calls
// reach the session and the end state is judged.
func TestPlayOverTheWire(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(braintest.Reader)
	defer srv.Close()
	a, c := newAgent(t, brain.Settings{Model: "test-model", URL: srv.BaseURL(), Key: "sk-test"}, w, "ambiguous")
	o, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	if err != nil {
		t.Fatal(err)
	}
	last := srv.Last()
	if last.Model != "test-model" || last.Auth != "Bearer sk-test" {
		t.Errorf("model %q, auth %q", last.Model, last.Auth)
	}
	if len(last.Tools) != len(w.Tools) {
		t.Fatalf("%d tools sent, the world has %d", len(last.Tools), len(w.Tools))
	}
	for i, tool := range w.Tools {
		got := last.Tools[i].Function
		if got.Name != tool.Name || got.Description != tool.Description("ambiguous") {
			t.Errorf("tool %d: %q %q, want %q with the ambiguous text", i, got.Name, got.Description, tool.Name)
		}
		if got.Parameters["type"] != "object" {
			t.Errorf("tool %s: parameters %v, want its input schema", tool.Name, got.Parameters)
		}
	}
	if !strings.Contains(last.Messages[1].Text(), o.Trace.Intent) {
		t.Errorf("user message %q lacks the intent %q", last.Messages[1].Text(), o.Trace.Intent)
	}
	if o.Class == "" || o.Calls == 0 || o.Called == "" {
		t.Errorf("outcome %+v: want a judged class after calls", o)
	}
	if k := o.Trace.Steps[len(o.Trace.Steps)-1].Kind; k != brain.StepAnswer {
		t.Errorf("last step %q, want the model's answer", k)
	}
	if u := c.Usage(); u.Requests != int64(srv.Requests()) || u.PromptTokens == 0 {
		t.Errorf("usage %+v after %d requests", u, srv.Requests())
	}
}

// A 429 with Retry-After is retried; the episode goes on.
func TestRetriesA429(t *testing.T) {
	w, b := world(t)
	var refused atomic.Int64
	srv := braintest.New(func(n int, r *braintest.Request) braintest.Reply {
		if refused.Load() < 2 {
			refused.Add(1)
			return braintest.Reply{Status: 429, RetryAfter: "0"}
		}
		return braintest.Reader(n, r)
	})
	defer srv.Close()
	a, c := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL(), MaxRetries: 3}, w, "clear")
	if _, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1)); err != nil {
		t.Fatal(err)
	}
	if u := c.Usage(); u.Attempts != u.Requests+2 {
		t.Errorf("usage %+v: want two retried attempts", u)
	}
}

// Out of retries, the endpoint's refusal is the episode's error, with the
// status; the key never appears in it.
func TestGivesUpAfterRetries(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(func(int, *braintest.Request) braintest.Reply { return braintest.Reply{Status: 503} })
	defer srv.Close()
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL(), Key: "sk-secret", MaxRetries: 1}, w, "clear")
	_, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	var ee *brain.EndpointError
	if !errors.As(err, &ee) || ee.Status != 503 {
		t.Fatalf("err %v, want the endpoint's 503", err)
	}
	if strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("error %q shows the key", err)
	}
	if srv.Requests() != 2 {
		t.Errorf("%d requests, want 2 (one retry)", srv.Requests())
	}
}

// A malformed tool call is answered with an invalid_argument error the
// model can read, counted, and the episode goes on.
func TestMalformedToolCall(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(func(n int, r *braintest.Request) braintest.Reply {
		if len(r.Messages) == 2 {
			return braintest.Reply{Calls: []braintest.Call{{Name: "get_contact", Arguments: `{"id": `}}}
		}
		return braintest.Reply{Content: "I give up."}
	})
	defer srv.Close()
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL()}, w, "clear")
	o, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	if err != nil {
		t.Fatal(err)
	}
	if o.InvalidArgs != 1 || o.Calls != 0 {
		t.Errorf("outcome %+v: want one invalid call and no engine call", o)
	}
	tool := srv.Last().Messages[3]
	if tool.Role != "tool" || !strings.Contains(tool.Text(), "invalid_argument") {
		t.Errorf("tool message %+v: want an invalid_argument error", tool)
	}
}

// A model that never stops calling tools ends at the step cap, judged as
// it stands.
func TestStepCap(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(func(int, *braintest.Request) braintest.Reply {
		return braintest.Reply{Calls: []braintest.Call{{Name: "list_contacts", Arguments: `{}`}}}
	})
	defer srv.Close()
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL(), MaxSteps: 5}, w, "clear")
	o, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 5 || o.Calls != 5 {
		t.Errorf("%d requests, %d calls: want 5 each", srv.Requests(), o.Calls)
	}
	if k := o.Trace.Steps[len(o.Trace.Steps)-1].Kind; k != brain.StepCap {
		t.Errorf("last step %q, want %q", k, brain.StepCap)
	}
	if o.Severity == engine.SeverityOK {
		t.Errorf("class %s: listing forever does not hide anyone", o.Class)
	}
}

// A model that answers without calling a tool did nothing: judged so.
func TestAnswerWithoutToolCall(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(func(int, *braintest.Request) braintest.Reply { return braintest.Reply{Content: "Sure, done!"} })
	defer srv.Close()
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL()}, w, "clear")
	o, err := a.Play(context.Background(), episode(b, w, "hide_contact", 1))
	if err != nil {
		t.Fatal(err)
	}
	if o.Calls != 0 || o.Severity == engine.SeverityOK || o.Called != "" {
		t.Errorf("outcome %+v: an answer alone changes nothing", o)
	}
}

// A recorded cassette replays the same episodes with no endpoint; the key
// is not in it; a request it lacks is an error, not a live call.
func TestCassetteRecordsAndReplays(t *testing.T) {
	w, b := world(t)
	srv := braintest.New(braintest.Reader)
	path := filepath.Join(t.TempDir(), "c.json")
	rec, err := brain.OpenCassette(path, true)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := newAgent(t, brain.Settings{Model: "m", URL: srv.BaseURL(), Key: "sk-secret", Cassette: rec}, w, "clear")
	var want []personas.Outcome
	for seed := uint64(1); seed <= 4; seed++ {
		o, err := a.Play(context.Background(), episode(b, w, "hide_contact", seed))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, o)
	}
	srv.Close()
	if err := rec.Save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "sk-secret") {
		t.Error("the cassette holds the key")
	}
	if rec.Len() != srv.Requests() || rec.Added() != rec.Len() {
		t.Errorf("cassette of %d (%d added) after %d requests", rec.Len(), rec.Added(), srv.Requests())
	}
	play, err := brain.OpenCassette(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if play.Hash() != rec.Hash() {
		t.Error("the cassette read back hashes differently")
	}
	a2, _ := newAgent(t, brain.Settings{Model: "m", Cassette: play}, w, "clear")
	for i, seed := 0, uint64(1); seed <= 4; i, seed = i+1, seed+1 {
		o, err := a2.Play(context.Background(), episode(b, w, "hide_contact", seed))
		if err != nil {
			t.Fatal(err)
		}
		if o.Class != want[i].Class || o.Calls != want[i].Calls || len(o.Trace.Steps) != len(want[i].Trace.Steps) {
			t.Errorf("seed %d replayed as %s/%d calls, recorded %s/%d", seed, o.Class, o.Calls, want[i].Class, want[i].Calls)
		}
	}
	_, err = a2.Play(context.Background(), episode(b, w, "hide_contact", 99))
	if !errors.Is(err, brain.ErrNotRecorded) {
		t.Errorf("an unrecorded request: %v, want ErrNotRecorded", err)
	}
}

func TestRequestHashIgnoresKeyOrder(t *testing.T) {
	a, err := brain.RequestHash([]byte(`{"b":1,"a":{"y":2,"x":[1,2]}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := brain.RequestHash([]byte(`{"a":{"x":[1,2],"y":2},"b":1}`))
	c, _ := brain.RequestHash([]byte(`{"a":{"x":[2,1],"y":2},"b":1}`))
	if a != b || a == c {
		t.Errorf("hashes %s %s %s: key order must not matter, array order must", a, b, c)
	}
}

func TestBadCassettes(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"version": `{"version":9,"entries":[]}`,
		"hash":    `{"version":1,"entries":[{"request":"abc","response":{}}]}`,
		"unknown": `{"version":1,"entries":[],"extra":1}`,
		"notjson": `{"version":1,`,
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := brain.OpenCassette(p, false); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: err %v, want an error naming the file", name, err)
		}
	}
	if _, err := brain.OpenCassette(filepath.Join(dir, "missing"), false); err == nil {
		t.Error("a missing cassette replays nothing: want an error")
	}
}

func TestSettingsCheck(t *testing.T) {
	hot := 3.0
	for name, s := range map[string]brain.Settings{
		"no model": {URL: "http://127.0.0.1:1/v1"},
		"no url":   {Model: "m"},
		"bad url":  {Model: "m", URL: "ftp://x"},
		"hot":      {Model: "m", URL: "http://127.0.0.1:1/v1", Temperature: &hot},
		"steps":    {Model: "m", URL: "http://127.0.0.1:1/v1", MaxSteps: 10_000},
	} {
		if _, err := brain.NewClient(s); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}
