package personas

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
)

func TestBuiltinPack(t *testing.T) {
	p := Builtin()
	want := []string{"careful", "hasty", "literal", "novice", "retrier", "explorer", "adversarial"}
	if got := p.Names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Names() = %v, want %v", got, want)
	}
	seen := map[Traits]string{}
	for _, x := range p.Personas {
		if err := x.Traits.Validate(); err != nil {
			t.Errorf("%s: %v", x.Name, err)
		}
		if x.Description == "" {
			t.Errorf("%s has no description", x.Name)
		}
		if other, dup := seen[x.Traits]; dup {
			t.Errorf("%s and %s have the same traits", x.Name, other)
		}
		seen[x.Traits] = x.Name
	}
	if p.Get("careful").Traits.Retry != (RetryPolicy{Mode: RetryOnce, IdempotencyKeys: true, HonorRetryAfter: true}) {
		t.Errorf("careful retries once with keys, honouring retry-after: %+v", p.Get("careful").Traits.Retry)
	}
	if p.Get("nobody") != nil {
		t.Error("Get of an unknown name is nil")
	}
	// Builtin returns a fresh pack: changing one does not change the next.
	p.Personas[0].Traits.Noise = 9
	if Builtin().Personas[0].Traits.Noise == 9 {
		t.Error("Builtin shares state between calls")
	}
}

const goodPack = `
pack: team
description: Our agents.
personas:
  intern:
    like: novice
    description: New on the job.
    attention: 0.4
    retry: until_success
  cautious_intern:
    like: intern
    caution: 1
    verify: 1
    retry: {mode: once, max_attempts: 3, idempotency_keys: true, honor_retry_after: false}
    patience: 9
  plain:
    noise: 2
    explore: 0.5
    hostility: 0.1
`

func TestParsePack(t *testing.T) {
	p, err := ParsePack("team.yaml", []byte(goodPack))
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Names(); !reflect.DeepEqual(got, []string{"intern", "cautious_intern", "plain"}) {
		t.Fatalf("names %v", got)
	}
	novice := Builtin().Get("novice").Traits
	intern := p.Get("intern")
	want := novice
	want.Attention = 0.4
	want.Retry.Mode = RetryUntilSuccess // the shorthand sets the mode only
	if intern.Traits != want || intern.Description != "New on the job." {
		t.Errorf("intern = %+v, want %+v", intern, want)
	}
	ci := p.Get("cautious_intern").Traits
	want.Caution, want.Verify, want.Patience = 1, 1, 9
	want.Retry = RetryPolicy{Mode: RetryOnce, MaxAttempts: 3, IdempotencyKeys: true}
	if ci != want {
		t.Errorf("cautious_intern = %+v, want %+v (like: an earlier persona of the pack)", ci, want)
	}
	plain := p.Get("plain").Traits
	wantPlain := Baseline()
	wantPlain.Noise, wantPlain.Explore, wantPlain.Hostility = 2, 0.5, 0.1
	if plain != wantPlain {
		t.Errorf("plain = %+v, want the baseline with three changes %+v", plain, wantPlain)
	}
}

func TestParsePackErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown top key", "personaz: {}\n", `p.yaml:1:1: persona pack: unknown field "personaz" (expected one of: pack, description, personas)`},
		{"unknown trait", "personas:\n  a:\n    atention: 0.5\n", `p.yaml:3:5: persona a: unknown field "atention"`},
		{"out of range", "personas:\n  a:\n    caution: 1.5\n", `p.yaml:3:14: persona a: caution must be in [0, 1], got 1.5`},
		{"zero noise", "personas:\n  a:\n    noise: 0\n", `p.yaml:3:12: persona a: noise must be in (0, 100]`},
		{"not a number", "personas:\n  a:\n    verify: often\n", `p.yaml:3:13: persona a: verify: expected a number, got "often"`},
		{"patience", "personas:\n  a:\n    patience: 0\n", `p.yaml:3:15: persona a: patience must be in [1, 1000], got 0`},
		{"patience float", "personas:\n  a:\n    patience: 2.5\n", `p.yaml:3:15: persona a: patience: expected a whole number, got the number 2.5`},
		{"retry mode", "personas:\n  a:\n    retry: {mode: forever}\n", `p.yaml:3:19: persona a: retry.mode: must be none, once or until_success, got "forever"`},
		{"retry mode null", "personas:\n  a:\n    retry: {mode: null}\n", `p.yaml:3:19: persona a: retry.mode: must be none, once or until_success, got nothing`},
		{"retry shorthand", "personas:\n  a:\n    retry: sometimes\n", `p.yaml:3:12: persona a: retry: must be none, once or until_success (or a mapping of mode, max_attempts, idempotency_keys, ignore_key_advice, honor_retry_after), got "sometimes"`},
		{"retry number", "personas:\n  a:\n    retry: 5\n", `p.yaml:3:12: persona a: retry: must be none, once or until_success (or a mapping of mode, max_attempts, idempotency_keys, ignore_key_advice, honor_retry_after), got the number 5`},
		{"retry key", "personas:\n  a:\n    retry: {keys: true}\n", `p.yaml:3:13: persona a: retry: unknown field "keys"`},
		{"retry bool", "personas:\n  a:\n    retry: {idempotency_keys: 1}\n", `p.yaml:3:31: persona a: retry.idempotency_keys: expected true or false, got the number 1`},
		{"bad like", "personas:\n  a:\n    like: carefull\n", `p.yaml:3:11: persona a: like: no persona "carefull"`},
		{"bad name", "personas:\n  Bad-Name: {}\n", `p.yaml:2:3: persona name "Bad-Name" must be lower case letters, digits and _ (starting with a letter)`},
		{"duplicate", "personas:\n  a: {}\n  a: {}\n", `p.yaml:3:3: personas: "a" given twice (first at line 2)`},
		{"no personas", "pack: x\n", `p.yaml:1:1: persona pack: missing "personas"`},
		{"empty personas", "personas: {}\n", `p.yaml:1:11: personas: the pack defines no persona`},
		{"not a mapping", "personas: [a, b]\n", `p.yaml:1:11: personas: expected a mapping, got a list`},
		{"empty file", "", `p.yaml:1:1: empty persona pack`},
		{"yaml syntax", "personas:\n  a: {\n", `p.yaml:3:1: YAML: did not find expected node content`},
	} {
		_, err := ParsePack("p.yaml", []byte(tc.src))
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		var le *engine.LoadError
		if !errors.As(err, &le) {
			t.Errorf("%s: error is %T, want *engine.LoadError", tc.name, err)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, err, tc.want)
		}
	}
}

func TestParsePackReportsEveryProblem(t *testing.T) {
	_, err := ParsePack("p.yaml", []byte("personas:\n  a:\n    caution: 2\n  b:\n    verify: -1\n"))
	var le *engine.LoadError
	if !errors.As(err, &le) || len(le.Problems) != 2 {
		t.Fatalf("want both problems, got %v", err)
	}
}

func TestLoadPack(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "team.yaml")
	if err := os.WriteFile(path, []byte(goodPack), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPack(path)
	if err != nil || len(p.Personas) != 3 {
		t.Fatalf("LoadPack: %v, %v", p, err)
	}
	if _, err := LoadPack(filepath.Join(dir, "missing.yaml")); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Errorf("a missing file names itself: %v", err)
	}
}

func TestTraitsValidate(t *testing.T) {
	ok := Baseline()
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		mutate func(*Traits)
		want   string
	}{
		{func(t *Traits) { t.Attention = -0.1 }, "attention"},
		{func(t *Traits) { t.Hostility = 1.1 }, "hostility"},
		{func(t *Traits) { t.Noise = 0 }, "noise"},
		{func(t *Traits) { t.Patience = 0 }, "patience"},
		{func(t *Traits) { t.Retry.Mode = "sometimes" }, "retry mode"},
		{func(t *Traits) { t.Retry.MaxAttempts = -1 }, "max_attempts"},
	} {
		tr := ok
		tc.mutate(&tr)
		if err := tr.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error about %s, got %v", tc.want, err)
		}
	}
}
