package engine

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

func TestDescribe(t *testing.T) {
	w := mustLoad(t, "testdata/shop.yaml")
	d := w.Describe("ambiguous")
	if d.World != "shop" || d.Version != 3 || d.SHA256 != w.Hash || d.Seed != 11 || d.Epoch != "2026-03-01T09:00:00Z" || d.Variant != "ambiguous" {
		t.Fatalf("head: %+v", d)
	}
	if len(d.Types) != len(w.Types) || len(d.Tools) != len(w.Tools) || len(d.Goals) != len(w.Goals) || len(d.Faults) != len(w.Profiles) {
		t.Fatalf("%d types, %d tools, %d goals, %d profiles", len(d.Types), len(d.Tools), len(d.Goals), len(d.Faults))
	}
	var pay ToolDescription
	for _, td := range d.Tools {
		if td.Name == "create_payment" {
			pay = td
		}
	}
	if pay.Description != "Pay." || pay.Kind != "create" || pay.Record != "payment" || pay.Idempotency != "idempotency_key" || len(pay.Params) != 3 {
		t.Fatalf("create_payment under ambiguous: %+v", pay)
	}
	if clear := w.Tool("create_payment").Describe("clear"); clear.Description == pay.Description {
		t.Fatal("the variant does not change the text")
	}
	if other := w.Describe("no_such_variant"); other.Tools[2].Description != w.Tool(other.Tools[2].Name).Description(w.Variants[0]) {
		t.Fatal("an unknown variant shows the first variant's text")
	}
	// The dice profile: get_order alone, the others sharing the default.
	var dice ProfileDescription
	for _, p := range d.Faults {
		if p.Name == "dice" {
			dice = p
		}
	}
	if len(dice.Groups) != 2 || !slices.Equal(dice.Groups[0].Tools, []string{"get_order"}) || dice.Groups[0].Latency != "uniform 5ms–15ms" ||
		dice.Groups[0].Timeout != "2s" || len(dice.Groups[0].Errors) != 5 || dice.Groups[0].Errors[2].RetryAfter != "500ms" ||
		dice.Groups[1].Latency != "lognormal, median 20ms, p99 200ms" || len(dice.Groups[1].Tools) < 2 {
		t.Fatalf("dice: %+v", dice)
	}
	if g := d.Goals[0]; g.Name != "refund_order" || !slices.Equal(g.Knows, []string{"id", "amount"}) || len(g.Outcomes) != 3 || g.Outcomes[2].When != "true" {
		t.Fatalf("goal: %+v", g)
	}
	// Same world, same bytes; lists are [] rather than null.
	a, _ := json.Marshal(d)
	b, _ := json.Marshal(w.Describe("ambiguous"))
	if !bytes.Equal(a, b) || bytes.Contains(a, []byte(":null")) {
		t.Fatalf("JSON not deterministic or has nulls:\n%s", a)
	}
}

func TestDescribeDatetimeDefault(t *testing.T) {
	src := `world: w
variants: [clear, ambiguous]
types:
  note:
    count: 1
    fields:
      id: {type: id, prefix: n_}
      due: {type: datetime, default: "2026-02-03T04:05:06Z"}
tools:
  get_note:
    kind: get
    record: note
    descriptions: {clear: "Get a note.", ambiguous: "Get."}
    params: {id: {type: str, required: true}}
`
	w, err := Parse("w.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	f := w.Describe("clear").Types[0].Fields[1]
	if f.Default != "2026-02-03T04:05:06Z" {
		t.Fatalf("a datetime default is RFC 3339, as records are: %#v", f.Default)
	}
}
