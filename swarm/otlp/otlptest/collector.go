// Package otlptest is an in-process OTLP HTTP trace collector for tests: an
// httptest server on 127.0.0.1 that decodes what exporters send (protobuf
// or JSON, gzipped or not) and keeps every span.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// maxBody bounds one request, as a real collector does.
const maxBody = 64 << 20

// Span is one received span, flattened.
type Span struct {
	TraceID, SpanID, ParentID string // hex; ParentID "" for a root span
	Name                      string
	Kind                      tracepb.Span_SpanKind
	Start, End                time.Time
	Attrs                     map[string]any // string, int64, float64 or bool
	Resource                  map[string]any
	StatusError               bool
	StatusMessage             string
}

// Collector receives OTLP traces at URL()+"/v1/traces".
type Collector struct {
	srv *httptest.Server

	mu       sync.Mutex
	spans    []Span
	requests int
	failWith int // HTTP status to answer every request with; 0: accept
	errs     []string
}

// Start starts a collector and stops it when the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	c := &Collector{}
	c.srv = httptest.NewServer(http.HandlerFunc(c.handle))
	t.Cleanup(c.srv.Close)
	return c
}

// URL is the collector's base URL (http://127.0.0.1:PORT), without the
// traces path.
func (c *Collector) URL() string { return c.srv.URL }

// Close stops the collector now (it is also stopped when the test ends):
// for a test of an endpoint where nothing listens any more.
func (c *Collector) Close() { c.srv.Close() }

// FailWith makes the collector refuse every later request with status.
func (c *Collector) FailWith(status int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failWith = status
}

// Spans returns a copy of the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Requests is the number of export requests received.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.requests
}

// Errors lists the requests the collector could not decode.
func (c *Collector) Errors() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.errs...)
}

func (c *Collector) handle(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.requests++
	fail := c.failWith
	c.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		c.fail(w, http.StatusNotFound, fmt.Sprintf("%s %s: only POST /v1/traces is served", r.Method, r.URL.Path))
		return
	}
	if fail != 0 {
		http.Error(w, "refused by the test", fail)
		return
	}
	var body io.Reader = http.MaxBytesReader(w, r.Body, maxBody)
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(body)
		if err != nil {
			c.fail(w, http.StatusBadRequest, "gzip: "+err.Error())
			return
		}
		defer zr.Close()
		body = zr
	}
	data, err := io.ReadAll(body)
	if err != nil {
		c.fail(w, http.StatusBadRequest, "reading body: "+err.Error())
		return
	}
	var req coltracepb.ExportTraceServiceRequest
	ct := r.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/x-protobuf"):
		err = proto.Unmarshal(data, &req)
	case strings.HasPrefix(ct, "application/json"):
		err = protojson.Unmarshal(data, &req)
	default:
		c.fail(w, http.StatusUnsupportedMediaType, "content type "+ct)
		return
	}
	if err != nil {
		c.fail(w, http.StatusBadRequest, "decoding: "+err.Error())
		return
	}
	c.keep(&req)
	resp, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(resp)
}

func (c *Collector) fail(w http.ResponseWriter, status int, msg string) {
	c.mu.Lock()
	c.errs = append(c.errs, msg)
	c.mu.Unlock()
	http.Error(w, msg, status)
}

func (c *Collector) keep(req *coltracepb.ExportTraceServiceRequest) {
	var got []Span
	for _, rs := range req.GetResourceSpans() {
		res := attrMap(rs.GetResource().GetAttributes())
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					TraceID:       hex.EncodeToString(s.GetTraceId()),
					SpanID:        hex.EncodeToString(s.GetSpanId()),
					Name:          s.GetName(),
					Kind:          s.GetKind(),
					Start:         time.Unix(0, int64(s.GetStartTimeUnixNano())),
					End:           time.Unix(0, int64(s.GetEndTimeUnixNano())),
					Attrs:         attrMap(s.GetAttributes()),
					Resource:      res,
					StatusError:   s.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR,
					StatusMessage: s.GetStatus().GetMessage(),
				}
				if len(s.GetParentSpanId()) > 0 {
					sp.ParentID = hex.EncodeToString(s.GetParentSpanId())
				}
				got = append(got, sp)
			}
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, got...)
	c.mu.Unlock()
}

func attrMap(kvs []*commonpb.KeyValue) map[string]any {
	m := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch x := v.GetValue().(type) {
		case *commonpb.AnyValue_StringValue:
			m[kv.GetKey()] = x.StringValue
		case *commonpb.AnyValue_IntValue:
			m[kv.GetKey()] = x.IntValue
		case *commonpb.AnyValue_DoubleValue:
			m[kv.GetKey()] = x.DoubleValue
		case *commonpb.AnyValue_BoolValue:
			m[kv.GetKey()] = x.BoolValue
		default:
			m[kv.GetKey()] = v.String()
		}
	}
	return m
}
