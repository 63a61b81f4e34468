package engine

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the loader. A world file may come from
// an untrusted pull request, so whatever it holds, Parse must answer with a
// world or a LoadError — never a panic, never a hang. When a world does
// load, a session on it must serve every tool without panicking either.
//
//	go test -run '^$' -fuzz=FuzzParse -fuzzminimizetime=1s ./engine
//
// -fuzzminimizetime=1s matters: by default each new input is minimized for
// a minute, and an execution here seeds and exercises a whole world, so a
// short run would spend nearly all its time minimizing.
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*.yaml", "testdata/bad/*.yaml", "../worlds/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	// Small worlds mutate into more shapes per second than big ones.
	f.Add(world("", ""))
	f.Add(world("      n: {type: int, gen: amount, min: 500}\n      s: {type: enum, values: [a, b], weights: [1, 2]}", `
  find_item:
    kind: list
    record: item
    descriptions: {clear: Find., ambiguous: Find.}
    params:
      q: {type: str}
      n: {type: int}
    search: {param: q, fields: [id]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		w, err := Parse("fuzz.yaml", data)
		if err != nil {
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("Parse returned %T, want *LoadError: %v", err, err)
			}
			return
		}
		exercise(t, w)
	})
}

// FuzzRestore feeds arbitrary bytes to Session.Restore, which decodes what
// a control-plane client sends: whatever they hold, Restore must answer
// with an error that leaves the session as it was, or restore a session
// that serves calls and snapshots back to what it restores from.
//
//	go test -run '^$' -fuzz=FuzzRestore -fuzzminimizetime=1s ./engine
func FuzzRestore(f *testing.F) {
	w := mustLoad(f, "testdata/shop.yaml")
	b := mustSeed(f, w, w.DefaultSeed)
	for _, s := range []*Session{b.NewSession(0, nil), busySession(f, b, 1)} {
		snap, err := s.Snapshot()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(snap)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s := b.NewSession(2, nil)
		before := s.StateJSON()
		if err := s.Restore(data); err != nil {
			if !bytes.Equal(s.StateJSON(), before) {
				t.Fatalf("a refused restore (%v) changed the session", err)
			}
			return
		}
		snap, err := s.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		again := b.NewSession(3, nil)
		if err := again.Restore(snap); err != nil {
			t.Fatalf("restoring a restored session's snapshot: %v", err)
		}
		if got, _ := again.Snapshot(); !bytes.Equal(got, snap) {
			t.Fatalf("snapshot after a second restore differs: %s", firstDiff(got, snap))
		}
		for _, tool := range w.Tools {
			s.Call(tool.Name, sampleArgs(tool, b))
		}
		_, _ = s.CheckInvariants()
	})
}

// exercise calls every tool of a loaded world once with arguments built from
// its schema, under every fault profile, then judges every goal.
func exercise(t *testing.T, w *World) {
	b, err := w.Seed(w.DefaultSeed + 1)
	if err != nil {
		return // another seed may break an invariant: that is a clean error
	}
	for _, p := range w.Profiles {
		s := b.NewSession(1, p)
		for _, g := range w.Goals {
			if _, err := g.Begin(s, 3); err != nil {
				t.Fatalf("goal %s: Begin: %v", g.Name, err)
			}
			break
		}
		for _, tool := range w.Tools {
			s.Call(tool.Name, sampleArgs(tool, b))
			s.Call(tool.Name, nil)
		}
		_ = s.StateJSON()
		if snap, err := s.Snapshot(); err == nil {
			if err := b.NewSession(2, p).Restore(snap); err != nil {
				t.Fatalf("restore of a fresh snapshot failed: %v", err)
			}
		}
		_, _ = s.CheckInvariants()
	}
	for _, g := range w.Goals {
		s := b.NewSession(9, nil)
		a, err := g.Begin(s, 5)
		if err != nil {
			t.Fatalf("goal %s: Begin: %v", g.Name, err)
		}
		for _, tool := range w.Tools {
			s.Call(tool.Name, sampleArgs(tool, b))
		}
		_, _ = a.Judge()
	}
}

// sampleArgs fills each param with a plausible value: the first seeded id
// for the key, the default or lowest allowed value otherwise.
func sampleArgs(t *Tool, b *Base) map[string]any {
	args := map[string]any{}
	for _, p := range t.Params {
		switch p.Type {
		case ParamStr:
			v := "abcdefghij"
			if p.Name == t.Key && t.Record != nil && len(b.Records(t.Record)) > 0 {
				v = b.Records(t.Record)[0].ID()
			}
			args[p.Name] = v
		case ParamEnum:
			args[p.Name] = p.Values[0]
		case ParamInt, ParamFloat:
			x := 1.0
			if p.Min != nil {
				x = *p.Min
			}
			args[p.Name] = x
		case ParamBool:
			args[p.Name] = true
		}
	}
	return args
}
