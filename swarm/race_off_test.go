//go:build !race

package swarm

const raceDetector = false
