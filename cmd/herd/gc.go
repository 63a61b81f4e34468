package main

import (
	"github.com/herd-sh/herd/internal/gctarget"
)

// setGCTarget sets the collector's target of herd's long-running commands
// (swarm and serve): GOGC=400, the heap's growth capped at 48 MiB above
// the live heap (package gctarget says why). GOGC, when set, wins. A stdio
// swarm's herd serve subprocesses inherit the environment, so they run at
// the same setting: GOGC when the user gave it, gctarget's (set by each)
// when not. The limit moves for the rest of the process.
func setGCTarget() { gctarget.SetFromEnv() }
