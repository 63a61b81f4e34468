package engine

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestRecordAccessors(t *testing.T) {
	w, b := shopBase(t)
	c := b.Records(w.Type("customer"))[0]
	if c.ID() != "cu_0001" || c.RecordType() != w.Type("customer") {
		t.Fatalf("id %q type %v", c.ID(), c.RecordType())
	}
	// nickname is nullable with no default: absent on every seeded record.
	if c.Has("nickname") || c.Get("nickname") != nil || c.String("nickname") != "" {
		t.Fatal("an absent nullable field reads as present")
	}
	if _, ok := c.Map()["nickname"]; ok {
		t.Fatal("Map holds an absent field")
	}
	if c.Get("no_such_field") != nil || c.Has("no_such_field") {
		t.Fatal("unknown field reads as present")
	}
	since, ok := c.Get("since").(time.Time)
	if !ok || !since.Before(w.Epoch) || since.Before(w.Epoch.Add(-90*24*time.Hour)) {
		t.Fatalf("since %v not within 90 days before the epoch", c.Get("since"))
	}
	if s := c.String("since"); s != since.UTC().Format(time.RFC3339Nano) {
		t.Fatalf("String(since) = %q", s)
	}
	if c.String("version") != "1" || c.Get("version") != int64(1) {
		t.Fatalf("version %v", c.Get("version"))
	}
	// JSON: fields in declaration order, the same bytes every time.
	j, err := c.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	order := []string{`"id"`, `"name"`, `"email"`, `"archived"`, `"locked"`, `"version"`, `"since"`}
	last := -1
	for _, k := range order {
		i := strings.Index(string(j), k+":")
		if i <= last {
			t.Fatalf("field %s out of declaration order in %s", k, j)
		}
		last = i
	}
	var m map[string]any
	if err := json.Unmarshal(j, &m); err != nil || m["id"] != "cu_0001" || m["since"] != c.String("since") {
		t.Fatalf("JSON %s: %v", j, err)
	}
	// Result.Value is what an MCP client sees.
	s := b.NewSession(1, nil)
	res := s.Call("list_orders", map[string]any{"limit": 2})
	v := res.Value().(map[string]any)
	if v["count"] != 2 || len(v["items"].([]any)) != 2 {
		t.Fatalf("list value %v", v)
	}
	got := s.Call("get_order", map[string]any{"id": "o_0001"})
	if id := got.Value().(map[string]any)["id"]; id != "o_0001" {
		t.Fatalf("get value id %v", id)
	}
}
