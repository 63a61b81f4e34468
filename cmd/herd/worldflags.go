package main

import (
	"strings"

	"github.com/herd-sh/herd/engine"
)

// faultProfile resolves --faults against a world, naming the profiles it
// has when it has no such one.
func faultProfile(w *engine.World, name string) (*engine.FaultProfile, error) {
	p, err := w.FindProfile(name)
	if err != nil {
		return nil, usageErrf("--faults: %v", err)
	}
	return p, nil
}

// goalNames lists a world's goals, comma-separated, in file order.
func goalNames(w *engine.World) string {
	names := make([]string, len(w.Goals))
	for i, g := range w.Goals {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}
