//go:build race

package swarm

// raceDetector: under -race every episode over MCP runs several times
// slower, so tests whose figures depend on throughput relax only their
// lower bounds (what the machine can sustain), never their upper ones.
const raceDetector = true
