package main

import (
	"os"
	"runtime/debug"
)

// gcPercent is the GC target of herd's long-running commands (swarm and
// serve). Both keep a small live heap — a swarm's aggregation is streaming,
// a served world's sessions are bounded (journal limit, session limit) —
// while allocating briefly for every call: collecting at 4× the live heap
// instead of 2× buys a tenth (swarm) to a third (serve) of the CPU per call
// for tens of megabytes.
const gcPercent = 400

// setGCTarget sets gcPercent unless GOGC is set, which wins. A stdio swarm's
// herd serve subprocesses inherit the environment, so they run at the same
// setting: GOGC when the user gave it, gcPercent (set by each) when not.
func setGCTarget() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
}
