package swarm

import (
	"cmp"
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
	codes   map[toolCode]int64                   // tool errors per tool × code
	// ok and failed split the calls of all by how they ended: a result,
	// or anything else but a cancellation.
	ok, failed *hdr.Histogram
	warmup     int64 // calls counted but not timed (EndedWarmup)
}

// toolCode is a tool and the code of a tool error it answered.
type toolCode struct{ tool, code string }

// Tool error codes come from the server: an external one could answer a
// fresh code every call. Past maxCodesPerTool distinct codes for a tool, or
// for a code longer than maxCodeLen, the error counts under code "".
const (
	maxCodesPerTool = 32
	maxCodeLen      = 64
)

func newCallMeter() *callMeter {
	return &callMeter{
		hists:   map[string]*hdr.Histogram{},
		all:     hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs),
		ok:      hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs),
		failed:  hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs),
		classes: map[string]*[target.NumClasses]int64{},
		codes:   map[toolCode]int64{},
	}
}

// Started counts a call going out.
func (m *callMeter) Started() { m.inFlight.Add(1) }

// Ended records a call's latency and class (and a tool error's code).
func (m *callMeter) Ended(tool string, took time.Duration, c target.Class, code string) {
	m.inFlight.Add(-1)
	us := min(max(took.Microseconds(), latencyMinUS), latencyMaxUS)
	m.mu.Lock()
	defer m.mu.Unlock()
	h := m.hists[tool]
	if h == nil {
		h = hdr.New(latencyMinUS, latencyMaxUS, latencySigFigs)
		m.hists[tool] = h
	}
	_ = h.RecordValue(us)
	_ = m.all.RecordValue(us)
	switch c {
	case target.ClassOK:
		_ = m.ok.RecordValue(us)
	case target.ClassCancelled:
	default:
		_ = m.failed.RecordValue(us)
	}
	m.count(tool, c, code)
}

// EndedWarmup counts a call's class (and a tool error's code) without
// recording its latency: a connection's first calls, which a cold server
// answers slowly for reasons of its own start.
func (m *callMeter) EndedWarmup(tool string, c target.Class, code string) {
	m.inFlight.Add(-1)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.warmup++
	m.count(tool, c, code)
}

// count counts a call of tool that ended in c (m.mu held).
func (m *callMeter) count(tool string, c target.Class, code string) {
	if m.classes[tool] == nil {
		m.classes[tool] = new([target.NumClasses]int64)
	}
	m.classes[tool][c]++
	if c == target.ClassToolError {
		k := toolCode{tool, code}
		if _, seen := m.codes[k]; !seen && (len(code) > maxCodeLen || m.codesOf(tool) >= maxCodesPerTool) {
			k.code = ""
		}
		m.codes[k]++
	}
}

// codesOf counts the distinct codes recorded for tool (m.mu held).
func (m *callMeter) codesOf(tool string) int {
	n := 0
	for k := range m.codes {
		if k.tool == tool {
			n++
		}
	}
	return n
}

// Calls is the number of calls recorded, warm-up calls among them.
func (m *callMeter) Calls() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.all.TotalCount() + m.warmup
}

// split is the latency of ok calls and of the others, over every tool
// (nil where there were none), and the warm-up calls left untimed.
func (m *callMeter) split() (ok, failed *report.LatencyHistogram, warmup int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ok.TotalCount() > 0 {
		ok = &report.LatencyHistogram{Tool: "ok", Bars: bars(m.ok)}
	}
	if m.failed.TotalCount() > 0 {
		failed = &report.LatencyHistogram{Tool: "error", Bars: bars(m.failed)}
	}
	return ok, failed, m.warmup
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

// ClassCount is how many calls of a tool ended in a class; tool errors
// are counted per code.
type ClassCount struct {
	Tool  string
	Class target.Class
	Code  string // a tool error's code ("" when the answer names none)
	N     int64
}

// classCounts lists every tool × class (× code) that happened: tools by
// name, classes in their order, codes by name.
func (m *callMeter) classCounts() []ClassCount {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ClassCount
	for t, cs := range m.classes {
		for c, n := range cs {
			if n > 0 && target.Class(c) != target.ClassToolError {
				out = append(out, ClassCount{Tool: t, Class: target.Class(c), N: n})
			}
		}
	}
	for k, n := range m.codes {
		out = append(out, ClassCount{Tool: k.tool, Class: target.ClassToolError, Code: k.code, N: n})
	}
	slices.SortFunc(out, func(a, b ClassCount) int {
		return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(a.Class, b.Class), cmp.Compare(a.Code, b.Code))
	})
	return out
}

// callClasses are the results document's calls by class.
func callClasses(cs []ClassCount) []report.CallClass {
	if len(cs) == 0 {
		return nil
	}
	out := make([]report.CallClass, len(cs))
	for i, c := range cs {
		out[i] = report.CallClass{Tool: c.Tool, Class: c.Class.String(), Code: c.Code, N: c.N}
	}
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
