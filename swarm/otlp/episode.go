package otlp

import (
	"context"
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/herd-sh/herd/engine"
	"github.com/herd-sh/herd/personas"
)

// maxArgsAttr bounds the JSON of a call's arguments on its span: a hostile
// persona sends long strings on purpose, and collectors cap attributes.
const maxArgsAttr = 1024

// EpisodeDone turns one finished episode into an episode span and one
// child span per tool call (swarm.Observer). outcome.Trace must be set;
// without it only the episode span is made.
//
// In-process episodes run on a virtual clock and take microseconds of real
// time, so the spans show virtual time: the episode span ends when the
// observer sees it and starts its virtual duration earlier; each call
// starts at its virtual offset and lasts until the agent's next step. The
// trace does not say how long the episode's last call took, so a last call
// with nothing after it is a zero-length span.
func (e *Exporter) EpisodeDone(agent int, variant string, o personas.Outcome) {
	if e.closed.Load() {
		return
	}
	var steps []personas.Step
	persona, goal := "", ""
	if o.Trace != nil {
		steps, persona, goal = o.Trace.Steps, o.Trace.Persona, o.Trace.Goal
	}
	ends := stepEnds(steps)
	var length time.Duration
	for _, end := range ends {
		length = max(length, end)
	}
	end := time.Now()
	start := end.Add(-length)

	ctx, ep := e.tracer.Start(context.Background(), "episode "+goal,
		trace.WithTimestamp(start),
		trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(
			attribute.Int("herd.agent", agent),
			attribute.String("herd.variant", variant),
			attribute.String("herd.persona", persona),
			attribute.String("herd.goal", goal),
			attribute.String("herd.outcome.class", o.Class),
			attribute.String("herd.outcome.severity", string(o.Severity)),
			attribute.Int("herd.calls", o.Calls),
			attribute.Int("herd.faults", len(o.Faults)),
			attribute.Bool("herd.recovered", o.Recovered),
			attribute.Int("herd.duplicated", o.Duplicated),
			attribute.String("herd.tool.meant", o.Meant),
			attribute.String("herd.tool.called", o.Called),
		))
	if o.Severity == engine.SeverityHarmful {
		ep.SetStatus(codes.Error, o.Class)
	}
	calls := 0
	for i, s := range steps {
		if s.Tool == "" {
			continue // a wait, a give-up or a note: not a call
		}
		calls++
		_, sp := e.tracer.Start(ctx, "tools/call "+s.Tool,
			trace.WithTimestamp(start.Add(s.At)),
			trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(callAttributes(s)...))
		if isFailure(s.Result) {
			sp.SetStatus(codes.Error, s.Result)
		}
		sp.End(trace.WithTimestamp(start.Add(ends[i])))
	}
	ep.End(trace.WithTimestamp(end))
	e.episodes.Add(1)
	e.calls.Add(int64(calls))
}

// stepEnds is the virtual time each step ends: a call lasts until the
// agent's next step (between them the agent only thinks, which takes no
// virtual time); the last step ends where it began.
func stepEnds(steps []personas.Step) []time.Duration {
	ends := make([]time.Duration, len(steps))
	for i, s := range steps {
		ends[i] = s.At
		if i+1 < len(steps) && steps[i+1].At > s.At {
			ends[i] = steps[i+1].At
		}
	}
	return ends
}

func callAttributes(s personas.Step) []attribute.KeyValue {
	attrs := []attribute.KeyValue{
		// The MCP and GenAI semantic conventions' names, so a collector's
		// tool views pick herd's calls up with a real agent's.
		attribute.String("mcp.method.name", "tools/call"),
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", s.Tool),
		attribute.String("herd.step", s.Kind),
		attribute.String("herd.result", s.Result),
		attribute.Float64("herd.virtual_ms", float64(s.At)/float64(time.Millisecond)),
	}
	if kind, ok := strings.CutPrefix(s.Result, "fault: "); ok {
		kind, _, _ = strings.Cut(kind, " ")
		attrs = append(attrs, attribute.String("herd.fault", kind))
	}
	if len(s.Args) > 0 {
		if b, err := json.Marshal(s.Args); err == nil {
			if len(b) > maxArgsAttr {
				n := maxArgsAttr
				for n > 0 && !utf8.RuneStart(b[n]) {
					n-- // cut on a character boundary
				}
				b = append(b[:n], "…"...)
			}
			attrs = append(attrs, attribute.String("herd.args", string(b)))
		}
	}
	return attrs
}

// isFailure reports whether a step's result line is an error or a fault
// (see personas' describeResult).
func isFailure(result string) bool {
	return strings.HasPrefix(result, "error") || strings.HasPrefix(result, "fault")
}
