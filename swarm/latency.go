package swarm

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/herd-sh/herd/report"
	"github.com/herd-sh/herd/swarm/target"
)

// Latency histograms record microseconds from 1 µs to 10 minutes at three
// significant digits: any call a per-call timeout lets through fits.
const (
	latencyMinUS   = 1
	latencyMaxUS   = int64(10 * time.Minute / time.Microsecond)
	latencySigFigs = 3
)

// callMeter measures every call of a run that crosses a transport: an HDR
// histogram per tool (and one over all calls), the calls in flight, and
// how calls ended. One meter serves every worker: a call takes its mutex
// for a histogram record (tens of nanoseconds) against a round trip of
// hundreds of microseconds, so it is never the bottleneck, and one
// histogram per tool instead of one per worker keeps memory flat.
type callMeter struct {
	inFlight atomic.Int64

	mu      sync.Mutex
	hists   map[string]*hdr.Histogram
	all     *hdr.Histogram
	classes map[string]*[target.NumClasses]int64 // per tool
}

func newCallMeter() *callMeter {
	return &callMeter{
		hists:   map[string]*hdr.Histogram{},
		all:     hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs),
		classes: map[string]*[target.NumClasses]int64{},
	}
}

// Started counts a call going out.
func (m *callMeter) Started() { m.inFlight.Add(1) }

// Ended records a call's latency and class.
func (m *callMeter) Ended(tool string, took time.Duration, c target.Class) {
	m.inFlight.Add(-1)
	us := min(max(took.Microseconds(), latencyMinUS), latencyMaxUS)
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hists[tool]
	if h == nil {
		h = hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs)
		m.hists[tool] = h
		m.classes[tool] = new([target.NumClasses]int64)
	}
	_ = h.RecordValue(us)
	_ = m.all.RecordValue(us)
	m.classes[tool][c]++
}

// Calls is the number of calls recorded.
func (m *callMeter) Calls() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.all.TotalCount()
}

// histograms are the results document's latency section: "all" first,
// then each tool by name.
func (m *callMeter) histograms() []report.LatencyHistogram {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.all.TotalCount() == 0 {
		return nil
	}
	out := []report.LatencyHistogram{{Tool: report.AllTools, Bars: bars(m.all)}}
	tools := make([]string, 0, len(m.hists))
	for t := range m.hists {
		tools = append(tools, t)
	}
	slices.Sort(tools)
	for _, t := range tools {
		out = append(out, report.LatencyHistogram{Tool: t, Bars: bars(m.hists[t])})
	}
	return out
}

// ClassCount is how many calls of a tool ended in a class.
type ClassCount struct {
	Tool  string
	Class target.Class
	N     int64
}

// classCounts lists every tool × class that happened, tools by name.
func (m *callMeter) classCounts() []ClassCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ClassCount
	for t, cs := range m.classes {
		for c, n := range cs {
			if n > 0 {
				out = append(out, ClassCount{Tool: t, Class: target.Class(c), N: n})
			}
		}
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		if a.Tool != b.Tool {
			if a.Tool < b.Tool {
				return -1
			}
			return 1
		}
		return int(a.Class) - int(b.Class)
	})
	return out
}

// bars are a histogram's non-empty buckets, each at its highest equivalent
// value (what HDR reports percentiles as).
func bars(h *hdr.Histogram) []report.Bar {
	var out []report.Bar
	for _, b := range h.Distribution() {
		if b.Count > 0 {
			out = append(out, report.Bar{ValueUS: b.To, Count: b.Count})
		}
	}
	return out
}

// inFlightSampler samples the calls in flight at a fixed interval. When the
// samples pass maxSamples, every other one is dropped and the interval
// doubles, so a day-long run keeps a bounded series.
type inFlightSampler struct {
	meter    *callMeter
	start    time.Time
	interval time.Duration
	samples  []report.Sample
	stop     chan struct{}
	done     chan struct{}
}

const (
	sampleEvery = 100 * time.Millisecond
	maxSamples  = 2000
)

func startSampler(m *callMeter, start time.Time) *inFlightSampler {
	s := &inFlightSampler{meter: m, start: start, interval: sampleEvery, stop: make(chan struct{}), done: make(chan struct{})}
	go s.run()
	return s
}

func (s *inFlightSampler) run() {
	defer close(s.done)
	t := time.NewTimer(s.interval)
	defer t.Stop()
	next := s.start.Add(s.interval)
	for {
		select {
		case <-s.stop:
			return
		case now := <-t.C:
			s.samples = append(s.samples, report.Sample{T: round3(now.Sub(s.start).Seconds()), InFlight: int(s.meter.inFlight.Load())})
			if len(s.samples) >= maxSamples {
				kept := s.samples[:0]
				for i := 1; i < len(s.samples); i += 2 {
					kept = append(kept, s.samples[i])
				}
				s.samples = kept
				s.interval *= 2
			}
			next = next.Add(s.interval)
			t.Reset(max(time.Until(next), time.Millisecond))
		}
	}
}

// finish stops sampling and returns the series.
func (s *inFlightSampler) finish() []report.Sample {
	close(s.stop)
	<-s.done
	return s.samples
}

func round3(x float64) float64 { return float64(int64(x*1000+0.5)) / 1000 }
