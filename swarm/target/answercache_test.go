package target

import (
	"fmt"
	"strings"
	"testing"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/worlds"
)

// answerOf is the answer herd serve sends for res: its JSON as the text
// content and as the structured content.
func answerOf(t *testing.T, res engine.Result) *toolAnswer {
	t.Helper()
	body, err := res.AppendValueJSON(nil)
	if err != nil {
		t.Fatal(err)
	}
	if e := res.Err; e != nil {
		body = mustJSON(t, map[string]any{"error": map[string]any{"code": e.Code, "message": e.Message}})
	}
	quoted := mustJSON(t, string(body))
	return &toolAnswer{Content: []byte(`[{"type":"text","text":` + string(quoted) + `}]`), Structured: body, IsError: res.Err != nil}
}

// A result from the cache is the result decoding gives, for every answer
// of every built-in world's records, and the caller's own copy.
func TestAnswerCacheGivesWhatDecodingGives(t *testing.T) {
	for _, name := range []string{"mock:crm", "mock:payments", "mock:shop", "mock:email", "mock:files"} {
		w, err := worlds.Resolve(name)
		if err != nil {
			t.Fatal(err)
		}
		base, err := w.Seed(w.DefaultSeed)
		if err != nil {
			t.Fatal(err)
		}
		var cache answerCache
		for _, tool := range w.Tools {
			if tool.Record == nil {
				continue
			}
			recs := base.Records(tool.Record)
			results := []engine.Result{}
			if tool.Kind == engine.KindList {
				results = append(results, engine.Result{Records: recs[:min(20, len(recs))]}, engine.Result{Records: recs[:min(3, len(recs))]})
			} else {
				for _, r := range recs[:min(5, len(recs))] {
					results = append(results, engine.Result{Record: r})
				}
			}
			for _, res := range results {
				a := answerOf(t, res)
				want, err := decodeResult(w, tool, a.IsError, a.structured(), a.text)
				if err != nil {
					t.Fatalf("%s %s: %v", name, tool.Name, err)
				}
				for try := range 3 {
					got, err := answerResult(w, tool, a, &cache)
					if err != nil {
						t.Fatalf("%s %s, try %d: %v", name, tool.Name, try, err)
					}
					if g, wt := fmt.Sprintf("%+v", resultJSON(t, got)), fmt.Sprintf("%+v", resultJSON(t, want)); g != wt {
						t.Fatalf("%s %s, try %d:\n got %s\nwant %s", name, tool.Name, try, g, wt)
					}
					if got.Tool != want.Tool || got.Committed != want.Committed || got.Deleted != want.Deleted {
						t.Fatalf("%s %s, try %d: got %+v, want %+v", name, tool.Name, try, got, want)
					}
					if len(got.Records) > 1 {
						got.Records[0], got.Records[1] = got.Records[1], got.Records[0] // the caller's to change
					}
				}
			}
		}
		if cache.hits == 0 {
			t.Errorf("%s: the cache never gave a result", name)
		}
	}
}

// resultJSON is what a result holds, as JSON.
func resultJSON(t *testing.T, r engine.Result) string {
	t.Helper()
	var b strings.Builder
	if r.Record != nil {
		b.Write(mustJSON(t, r.Record))
	}
	for _, rec := range r.Records {
		b.Write(mustJSON(t, rec))
	}
	if r.Err != nil {
		fmt.Fprintf(&b, "error %s %s %s", r.Err.Code, r.Err.Message, r.Err.RetryAfter)
	}
	return b.String()
}

// The cache tells answers apart by tool and error flag as well as bytes,
// keeps no small answer, and hands out results nothing can change.
func TestAnswerCacheKeys(t *testing.T) {
	w, base := seededCRM(t, 42)
	list, search := w.Tool("list_contacts"), w.Tool("search_contacts")
	if list == nil || search == nil {
		t.Fatal("mock:crm lost list_contacts or search_contacts")
	}
	recs := base.Records(list.Record)[:20]
	a := answerOf(t, engine.Result{Records: recs})
	var c answerCache
	first, err := answerResult(w, list, a, &c)
	if err != nil || len(first.Records) != 20 {
		t.Fatalf("%v, %d records", err, len(first.Records))
	}
	first.Records[0] = nil // the caller's own slice
	if got, ok := c.get(list, false, a.Structured); !ok || got.Records[0] == nil || got.Tool != "list_contacts" {
		t.Fatalf("the cached result: %v %+v", ok, got)
	}
	if _, ok := c.get(search, false, a.Structured); ok {
		t.Error("another tool's answer of the same bytes came from the cache")
	}
	if _, ok := c.get(list, true, a.Structured); ok {
		t.Error("an error answer came from the cache of a result")
	}
	small := answerOf(t, engine.Result{Err: &engine.ToolError{Code: "not_found", Message: "no contact c_9"}})
	if _, err := answerResult(w, list, small, &c); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.get(list, true, small.Structured); ok || len(small.Structured) >= minCachedAnswerBytes {
		t.Errorf("a %d-byte answer was cached", len(small.Structured))
	}
	// An error's result is the caller's too.
	errAnswer := answerOf(t, engine.Result{Err: &engine.ToolError{Code: "invalid_argument", Message: strings.Repeat("x", 600)}})
	e1, _ := answerResult(w, list, errAnswer, &c)
	e1.Err.Code = "changed"
	if e2, _ := answerResult(w, list, errAnswer, &c); e2.Err == nil || e2.Err.Code != "invalid_argument" {
		t.Errorf("a change to one caller's error reached the next: %+v", e2.Err)
	}
	// Full, it starts over rather than grow.
	for i := range maxCachedAnswers + 10 {
		body := []byte(fmt.Sprintf(`{"items":[],"pad":"%0600d"}`, i))
		c.put(list, false, body, engine.Result{Tool: "list_contacts"})
	}
	if len(c.m) > maxCachedAnswers || c.bytes > maxCachedBytes {
		t.Errorf("the cache holds %d answers, %d bytes", len(c.m), c.bytes)
	}
}
