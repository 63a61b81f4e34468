package serve

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/control"
	"github.com/herd-sh/herd/engine"
)

// A served world sends its instructions field as the MCP instructions,
// never its description: mock:shop's description spells out the
// double-refund trap, and an agent under test told what is measured is
// not under test. Every built-in world has neutral instructions: none
// names a goal, an outcome class or an invariant.
func TestServeSendsNeutralInstructions(t *testing.T) {
	for _, name := range []string{"crm", "payments", "shop", "email", "files"} {
		w, err := engine.LoadFile("../worlds/" + name + ".yaml")
		if err != nil {
			t.Fatal(err)
		}
		s := newTestServer(t, Options{World: w})
		got := connectMemory(t, s, "").InitializeResult().Instructions
		if got == "" || got != w.Instructions {
			t.Errorf("%s: instructions %q; want the world's instructions field %q", name, got, w.Instructions)
		}
		if got == w.Description || strings.Contains(got, "judge") {
			t.Errorf("%s: the instructions say what is measured: %q", name, got)
		}
		var measured []string
		for _, g := range w.Goals {
			measured = append(measured, g.Name)
			for _, oc := range g.Outcomes {
				measured = append(measured, oc.Class, strings.ReplaceAll(oc.Class, "_", " "))
			}
		}
		for _, inv := range w.Invariants {
			measured = append(measured, inv.Name)
		}
		for _, m := range measured {
			if strings.Contains(strings.ToLower(got), m) {
				t.Errorf("%s: the instructions name %q, which a run measures: %q", name, m, got)
			}
		}
	}
}

// The world:// resource an agent can read carries the instructions too,
// never the world file's description (mock:shop's names its trap); the
// control plane, read by test harnesses, keeps the description.
func TestWorldResourceDoesNotLeakTheDescription(t *testing.T) {
	w, err := engine.LoadFile("../worlds/shop.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s := newTestServer(t, Options{World: w})
	cs := connectMemory(t, s, "")
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "world://shop"})
	if err != nil {
		t.Fatal(err)
	}
	var doc control.WorldDoc
	if err := json.Unmarshal([]byte(res.Contents[0].Text), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Description != w.Instructions || strings.Contains(res.Contents[0].Text, w.Description) {
		t.Fatalf("world://shop shows %q; want the instructions %q", doc.Description, w.Instructions)
	}
	if got := s.worldDoc().Description; got != w.Description {
		t.Fatalf("the control plane's world document lost the description: %q", got)
	}
}
