package main

import (
	"strings"

	"github.com/herd-sh/herd/engine"
)

// faultProfile resolves --faults against a world, naming the profiles it
// has when it has no such one.
func faultProfile(w *engine.World, name string) (*engine.FaultProfile, error) {
	if p := w.Profile(name); p != nil {
		return p, nil
	}
	names := make([]string, len(w.Profiles))
	for i, p := range w.Profiles {
		names[i] = p.Name
	}
	return nil, usageErrf("--faults: world %s has no fault profile %q (it has %s)", w.Name, name, strings.Join(names, ", "))
}

// goalNames lists a world's goals, comma-separated, in file order.
func goalNames(w *engine.World) string {
	names := make([]string, len(w.Goals))
	for i, g := range w.Goals {
		names[i] = g.Name
	}
	return strings.Join(names, ", ")
}
