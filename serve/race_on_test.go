//go:build race

package serve

// raceDetector: under -race every call is many times slower, so the load
// test runs at a size that still crosses many sessions but ends in seconds.
const raceDetector = true
