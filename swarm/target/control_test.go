package target

import (
	"encoding/json"
	"maps"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
)

// The reset answer a served world puts in a result's _meta, after a trip
// through JSON as the SDK decodes it, reads back into the calls of the
// dropped journal; replayed on a fresh session of the same key, they leave
// the state the served session had.
func TestMetaResetAnswerReplays(t *testing.T) {
	w, b := seededCRM(t, 42)
	const key = uint64(1<<63 + 5) // past 2^53: must survive as a string
	served := b.NewSession(key, w.Profile("hostile"))
	// As herd serve does, every call starts on a whole millisecond: that is
	// what makes a journal replay exactly.
	call := func(tool, id string) {
		el := served.Elapsed()
		served.Sleep(el.Truncate(time.Millisecond) + time.Millisecond - el)
		served.Call(tool, map[string]any{"id": id})
	}
	for i := range 12 {
		id := "c_000" + strconv.Itoa(1+i%9)
		call("get_contact", id)
		call("archive_contact", id)
	}
	call("get_contact", "c_9999")
	ans, err := json.Marshal(mcp.Meta{control.ResetMeta: control.MetaResetAnswer{
		Session: "s1", Seed: "42", Key: strconv.FormatUint(key, 10), Goal: "hide_contact", Target: "c_0003",
		Journal: served.JournalCalls(),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var meta mcp.Meta
	if err := json.Unmarshal(ans, &meta); err != nil {
		t.Fatal(err)
	}
	got, err := readMetaReset(meta, &control.Reset{Seed: 42, Key: key, Goal: "hide_contact", ReturnJournal: true})
	if err != nil {
		t.Fatal(err)
	}
	if got.Goal != "hide_contact" || got.Target != "c_0003" || len(got.Journal) != served.Calls() {
		t.Fatalf("read goal %q target %q and %d calls, want hide_contact c_0003 and %d", got.Goal, got.Target, len(got.Journal), served.Calls())
	}
	if last := got.Journal[len(got.Journal)-1]; last.Error == nil || last.Error.Code != "not_found" {
		t.Errorf("the last call's error: %+v", last.Error)
	}
	faults := 0
	for _, c := range got.Journal {
		if c.Fault != "" {
			faults++
		}
	}
	if faults == 0 {
		t.Fatal("no call drew a fault: the replay would not check the fault dice")
	}
	local := b.NewSession(key, w.Profile("hostile"))
	if n, err := replayCalls(local, got.Journal); err != nil || n != served.Calls() {
		t.Fatalf("replay: %d calls, %v", n, err)
	}
	if string(local.StateJSON()) != string(served.StateJSON()) {
		t.Error("the replayed state differs from the served one")
	}
}

// An answer that is not the one to the reset asked is refused, saying why.
func TestReadMetaResetRefusesOtherAnswers(t *testing.T) {
	asked := &control.Reset{Seed: 42, Key: 7, Goal: "hide_contact", ReturnJournal: true}
	good := map[string]any{"session": "s1", "seed": "42", "key": "7", "goal": "hide_contact", "target": "c_0003",
		"journal": []any{map[string]any{"tool": "get_contact", "args": map[string]any{"id": "c_0003"}, "at_ms": 0.0, "ok": true}}}
	if _, err := readMetaReset(mcp.Meta{control.ResetMeta: good}, asked); err != nil {
		t.Fatalf("the good answer: %v", err)
	}
	with := func(field string, v any) mcp.Meta {
		m := maps.Clone(good)
		if v == nil {
			delete(m, field)
		} else {
			m[field] = v
		}
		return mcp.Meta{control.ResetMeta: m}
	}
	for _, c := range []struct {
		name string
		meta mcp.Meta
		want string
	}{
		{"no answer", mcp.Meta{}, "has no _meta"},
		{"not an object", mcp.Meta{control.ResetMeta: "42"}, "want an object, got string"},
		{"another key", with("key", "8"), `asked for seed 42 key 7, got seed "42" key "8"`},
		{"another seed", with("seed", "41"), `got seed "41" key "7"`},
		{"a number for a key", with("key", 7.0), `key ""`},
		{"no journal", with("journal", nil), "no journal in the answer"},
		{"journal not a list", with("journal", "[]"), "journal: want an array, got string"},
		{"a call without at_ms", with("journal", []any{map[string]any{"tool": "get_contact"}}), `journal call 1: want "tool" and "at_ms"`},
		{"a call not an object", with("journal", []any{"get_contact"}), "journal call 1: want an object, got string"},
	} {
		if _, err := readMetaReset(c.meta, asked); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.want)
		}
	}
}
