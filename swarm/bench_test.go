package swarm

import (
	"context"
	"testing"

	"github.com/herd-sh/herd/personas"
	"github.com/herd-sh/herd/worlds"
)

func benchPlan(b *testing.B, agents int, variants []string) *Plan {
	w, err := worlds.Resolve("mock:crm")
	if err != nil {
		b.Fatal(err)
	}
	var mix []MixEntry
	for _, p := range personas.Builtin().Personas {
		mix = append(mix, MixEntry{Persona: p, Weight: 1})
	}
	p, err := NewPlan(Config{World: w, WorldRef: "mock:crm", Seed: 42, Agents: agents, Mix: mix, Variants: variants, Workers: 1})
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSwarmCRM measures whole-swarm throughput on one worker: ns/op
// is the cost of one agent's episode including aggregation.
func BenchmarkSwarmCRM(b *testing.B) {
	p := benchPlan(b, b.N, nil)
	b.ReportAllocs()
	b.ResetTimer()
	if _, err := p.Run(context.Background(), InProcess{}); err != nil {
		b.Fatal(err)
	}
}
