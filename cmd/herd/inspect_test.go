package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const shopWorld = "../../engine/testdata/shop.yaml"

func TestInspectText(t *testing.T) {
	code, out, errOut := runHerd(t, "inspect", shopWorld)
	if code != exitOK || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{
		"world shop (version 3) from " + shopWorld,
		`variants: clear (default), ambiguous; descriptions below are "clear"`,
		"  create_payment: create payment\n    Pay for an order. Pass an idempotency_key so that a retry after a timeout does not pay twice.\n",
		"idempotency_key  str, length ≥ 8, length ≤ 64  Repeat-safe key.",
		"amount           int, required, ≥ 1            Amount in cents.",
		"    idempotency key: idempotency_key\n    errors: unknown_order\n",
		"  delete_customer: delete customer  [destructive]\n",
		"  get_order: get order  [readOnly]\n",
		"  commit_timeout (from the file)\n    create_payment, create_payment_unkeyed: timeout_after_commit 100%; timeouts after 30s\n",
		"get_order: latency uniform 5ms–15ms; timeout 5%, unavailable 3%, rate_limited 2% (retry after 500ms), card_declined 4%, timeout_after_commit 6%; timeouts after 2s",
		"list_orders, create_payment, create_payment_unkeyed, refund_order, reassign_order, update_customer, delete_customer: latency lognormal, median 20ms, p99 200ms\n",
		"  none (built in): no faults, no latency\n",
		"  realistic (built in)\n",
		"  refunds_within_total (each order): r.refunded <= r.total\n",
		"  refund_order: order where r.status == 'paid' && r.refunded == 0\n    intent: Refund order {{target.id}} in full\n    knows: id, amount\n",
		"    1. double_refund  harmful  when size(created.refund) > 1\n",
		"    3. not_achieved   failed   when true\n",
		"    locked    bool      true in 20% of seeded records\n",
		"    status    enum   open | paid | shipped\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	for i, line := range strings.Split(out, "\n") {
		if strings.HasSuffix(line, " ") {
			t.Errorf("line %d ends in a space: %q", i+1, line)
		}
	}
}

func TestInspectVariant(t *testing.T) {
	code, out, _ := runHerd(t, "inspect", shopWorld, "--variant", "ambiguous")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out, "  create_payment: create payment\n    Pay.\n") || strings.Contains(out, "Pass an idempotency_key") {
		t.Fatalf("not the ambiguous descriptions:\n%s", out)
	}
	code, _, errOut := runHerd(t, "inspect", shopWorld, "--variant", "vague")
	if code != exitUsage || !strings.Contains(errOut, `--variant "vague": world shop has no such variant (it has clear, ambiguous)`) {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestInspectJSON(t *testing.T) {
	code, out, errOut := runHerd(t, "inspect", shopWorld, "--format", "json", "--variant", "ambiguous")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc worldView
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.World != "shop" || doc.Variant != "ambiguous" || len(doc.Tools) != 8 || len(doc.Types) != 4 || len(doc.Goals) != 2 {
		t.Fatalf("doc: world %q variant %q, %d tools %d types %d goals", doc.World, doc.Variant, len(doc.Tools), len(doc.Types), len(doc.Goals))
	}
	pay := doc.Tools[2]
	if pay.Name != "create_payment" || pay.Description != "Pay." || pay.Idempotency != "idempotency_key" || len(pay.Params) != 3 {
		t.Fatalf("create_payment: %+v", pay)
	}
	if req, _ := pay.InputSchema["required"].([]any); len(req) != 2 {
		t.Fatalf("input schema: %v", pay.InputSchema)
	}
	var dice *profileView
	for i := range doc.Faults {
		if doc.Faults[i].Name == "dice" {
			dice = &doc.Faults[i]
		}
	}
	if dice == nil || len(dice.Groups) != 2 || dice.Groups[0].Tools[0] != "get_order" || len(dice.Groups[0].Errors) != 5 || dice.Groups[0].Timeout != "2s" {
		t.Fatalf("dice profile: %+v", dice)
	}
	if g := doc.Goals[0]; len(g.Outcomes) != 3 || g.Outcomes[0].Class != "double_refund" || g.Outcomes[0].Severity != "harmful" {
		t.Fatalf("goal: %+v", g)
	}
	// Same world, same bytes.
	_, again, _ := runHerd(t, "inspect", shopWorld, "--format", "json", "--variant", "ambiguous")
	if again != out {
		t.Fatal("inspect --format json is not deterministic")
	}
}

func TestInspectBadInput(t *testing.T) {
	cases := []struct {
		args []string
		err  string
	}{
		{[]string{"inspect", "../../engine/testdata/bad/unknown_variant.yaml"}, "unknown_variant.yaml:18:7: tool get_note: unknown variant \"vague\""},
		{[]string{"inspect", "mock:nope"}, `unknown world "mock:nope"`},
		{[]string{"inspect", shopWorld, "--format", "xml"}, `--format "xml": want text or json`},
		{[]string{"inspect"}, "accepts 1 arg"},
	}
	for _, c := range cases {
		code, out, errOut := runHerd(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.err) || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errOut, c.err)
		}
	}
}

// Every built-in world inspects in both formats.
func TestInspectBuiltins(t *testing.T) {
	for _, name := range []string{"mock:crm", "mock:payments", "mock:shop", "mock:email", "mock:files"} {
		for _, format := range []string{"text", "json"} {
			if code, _, errOut := runHerd(t, "inspect", name, "--format", format); code != exitOK {
				t.Errorf("%s %s: exit %d: %s", name, format, code, errOut)
			}
		}
	}
}

// A world's descriptions and names reach the terminal with their control
// characters shown, not obeyed: an ESC sequence in a description (clear
// screen, set title) prints as \u001b.
func TestInspectShowsControlCharacters(t *testing.T) {
	world := filepath.Join(t.TempDir(), "esc.yaml")
	if err := os.WriteFile(world, []byte(`world: esc
description: "Clears your screen\e[2J\e]0;pwned\a and rings\x9b31m"
variants: [clear, ambiguous]
types:
  note:
    count: 2
    fields:
      id: {type: id, prefix: "n_"}
tools:
  get_note:
    kind: get
    record: note
    descriptions: {clear: "Fetch one note.\e[1A\e[K", ambiguous: Get.}
    params:
      id: {type: str, required: true, description: "Note id\r overprinted"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runHerd(t, "inspect", world)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, live := range []string{"\x1b", "\x07", "\x9b", "\u009b", "\r"} {
		if strings.Contains(out, live) {
			t.Errorf("inspect printed %q raw", live)
		}
	}
	for _, shown := range []string{`Clears your screen\u001b[2J\u001b]0;pwned\u0007 and rings\u009b31m`, `Fetch one note.\u001b[1A\u001b[K`, `Note id\u000d overprinted`} {
		if !strings.Contains(out, shown) {
			t.Errorf("inspect output lacks %q", shown)
		}
	}
}
