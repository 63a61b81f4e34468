// Package otlp exports a swarm run to an OpenTelemetry collector over OTLP
// HTTP: one span per agent episode, with one child span per tool call the
// agent made, so that a run can be explored in Jaeger, Tempo or Honeycomb
// next to the traces of a real agent.
//
// An Exporter is a swarm.Observer. It is off unless asked for (herd swarm
// --otlp ENDPOINT): with an observer the swarm traces every episode, which
// costs time. Spans are batched and nothing is dropped — a slow collector
// slows the run down rather than losing spans — until an export fails:
// from then on the exporter stops sending, so a dead collector cannot stall
// a million-agent run, and Shutdown reports what was lost.
//
// The engine and the personas know nothing of this package.
package otlp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/herd-sh/herd/internal/version"
)

// TracesPath is the OTLP HTTP path for traces, added to an endpoint given
// without a path.
const TracesPath = "/v1/traces"

// Batching. A larger queue than the SDK's default (2048) keeps the worker
// goroutines from waiting on every export of a fast in-process run.
const (
	maxQueue     = 16384
	maxBatch     = 2048
	batchTimeout = time.Second
	// exportTimeout bounds one export request, retries included: a
	// collector that has not answered by then is taken as gone.
	exportTimeout = 15 * time.Second
	// dialTimeout bounds the check that something listens at the endpoint.
	dialTimeout = 3 * time.Second
)

// Run describes the run; it becomes the spans' resource, so every span of a
// run can be found by world and seed.
type Run struct {
	World   string // world name, e.g. "crm"
	Source  string // how the user named it: "mock:crm" or a path
	Seed    uint64
	Agents  int
	Faults  string
	Shard   string // "k/n", "" when unsharded
	Command string // the reproducing command line
}

// Exporter turns finished episodes into spans. It is safe for concurrent
// use; create it with New and end it with Shutdown.
type Exporter struct {
	endpoint string
	tp       *sdktrace.TracerProvider
	tracer   trace.Tracer
	guard    *guardedExporter

	episodes atomic.Int64
	calls    atomic.Int64
	closed   atomic.Bool
}

// Stats is what an exporter did.
type Stats struct {
	Endpoint string
	Episodes int64 // episodes turned into spans
	Calls    int64 // tool-call spans
	Sent     int64 // spans the collector accepted
	Lost     int64 // spans not delivered (after Err)
	Err      error // the first failed export, nil when every span arrived
}

// Spans is the number of spans the exporter made.
func (s Stats) Spans() int64 { return s.Episodes + s.Calls }

// ParseEndpoint reads an OTLP HTTP endpoint: a URL with scheme http or
// https, or a bare host:port (taken as http). Without a path, the
// standard traces path is added: "http://127.0.0.1:4318" becomes
// "http://127.0.0.1:4318/v1/traces".
func ParseEndpoint(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("empty endpoint: want a URL such as http://127.0.0.1:4318")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a URL: %v", s, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("%q: scheme %q: OTLP over HTTP needs http or https (gRPC is not supported)", s, u.Scheme)
	}
	if u.Host == "" || u.Hostname() == "" {
		return "", fmt.Errorf("%q has no host", s)
	}
	if u.User != nil {
		return "", fmt.Errorf("%q: put credentials in OTEL_EXPORTER_OTLP_HEADERS, not in the URL", s)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = TracesPath
	}
	return u.String(), nil
}

// New connects an exporter to endpoint (see ParseEndpoint). It checks that
// something accepts connections there, so a typo in the port fails before
// the run instead of after it. Headers (an API key) come from the standard
// OTEL_EXPORTER_OTLP_HEADERS variable.
func New(ctx context.Context, endpoint string, run Run) (*Exporter, error) {
	ep, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	if err := reachable(ctx, ep); err != nil {
		return nil, err
	}
	client, err := otlptracehttp.New(ctx,
		otlptracehttp.WithEndpointURL(ep),
		otlptracehttp.WithTimeout(exportTimeout),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{
			Enabled:         true,
			InitialInterval: 250 * time.Millisecond,
			MaxInterval:     2 * time.Second,
			MaxElapsedTime:  exportTimeout,
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep, err)
	}
	guard := &guardedExporter{next: client}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(runResource(run)),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithBatcher(guard,
			sdktrace.WithBlocking(),
			sdktrace.WithMaxQueueSize(maxQueue),
			sdktrace.WithMaxExportBatchSize(maxBatch),
			sdktrace.WithBatchTimeout(batchTimeout),
			sdktrace.WithExportTimeout(exportTimeout+5*time.Second),
		),
	)
	return &Exporter{
		endpoint: ep,
		tp:       tp,
		tracer:   tp.Tracer("github.com/herd-sh/herd/swarm", trace.WithInstrumentationVersion(version.String())),
		guard:    guard,
	}, nil
}

// reachable dials the endpoint's host and port once.
func reachable(ctx context.Context, endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return err
	}
	port := u.Port()
	if port == "" {
		port = "80"
		if u.Scheme == "https" {
			port = "443"
		}
	}
	d := net.Dialer{Timeout: dialTimeout}
	conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return fmt.Errorf("no OTLP collector at %s: %v", endpoint, err)
	}
	return conn.Close()
}

func runResource(run Run) *resource.Resource {
	attrs := []attribute.KeyValue{
		attribute.String("service.name", "herd"),
		attribute.String("service.version", version.String()),
		attribute.String("herd.world", run.World),
		attribute.String("herd.world.source", run.Source),
		// A seed is a uint64; as a string it keeps every digit (OTLP
		// integers are signed).
		attribute.String("herd.seed", fmt.Sprint(run.Seed)),
		attribute.Int("herd.agents", run.Agents),
		attribute.String("herd.faults", run.Faults),
	}
	if run.Shard != "" {
		attrs = append(attrs, attribute.String("herd.shard", run.Shard))
	}
	if run.Command != "" {
		attrs = append(attrs, attribute.String("herd.command", run.Command))
	}
	return resource.NewSchemaless(attrs...)
}

// Shutdown flushes every span still queued and stops the exporter. It
// waits for the collector at most until ctx is done. Episodes reported
// after Shutdown are ignored.
func (e *Exporter) Shutdown(ctx context.Context) (Stats, error) {
	e.closed.Store(true)
	err := e.tp.Shutdown(ctx)
	st := e.Stats()
	if err != nil && st.Err == nil {
		st.Err = err
	}
	return st, err
}

// Stats reports what the exporter has done so far.
func (e *Exporter) Stats() Stats {
	sent, lost, err := e.guard.stats()
	return Stats{Endpoint: e.endpoint, Episodes: e.episodes.Load(), Calls: e.calls.Load(), Sent: sent, Lost: lost, Err: err}
}

// guardedExporter passes batches on until one fails, then drops the rest:
// after a failed export (the client has already retried) the collector is
// taken as gone, and waiting on it for every later batch would stall the
// run. It never returns an error to the SDK, which would otherwise print
// one line per lost batch through its global logger; Shutdown reports the
// first error instead.
type guardedExporter struct {
	next sdktrace.SpanExporter

	mu         sync.Mutex
	err        error
	sent, lost int64
}

func (g *guardedExporter) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	g.mu.Lock()
	failed := g.err != nil
	g.mu.Unlock()
	if failed {
		g.count(0, len(spans), nil)
		return nil
	}
	if err := g.next.ExportSpans(ctx, spans); err != nil {
		g.count(0, len(spans), err)
		return nil
	}
	g.count(len(spans), 0, nil)
	return nil
}

func (g *guardedExporter) count(sent, lost int, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.sent += int64(sent)
	g.lost += int64(lost)
	if err != nil && g.err == nil {
		g.err = err
	}
}

func (g *guardedExporter) stats() (sent, lost int64, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sent, g.lost, g.err
}

func (g *guardedExporter) Shutdown(ctx context.Context) error { return g.next.Shutdown(ctx) }
