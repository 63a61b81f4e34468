package target

import "time"

// Class is what became of one call over the wire.
type Class uint8

// Call classes. A tool error is an answer (the server said no, clearly); the
// others mean no usable answer came back.
const (
	ClassOK        Class = iota // a result
	ClassToolError              // a result with isError
	ClassProtocol               // a JSON-RPC error, or a result that is not what it should be
	ClassTransport              // the connection failed: refused, reset, the process died
	ClassTimeout                // no answer within the per-call timeout
	ClassMalformed              // an answer that does not decode as a tool result
	ClassCancelled              // cut short by the run itself (stopped, or another call broke the target)
	NumClasses
)

func (c Class) String() string {
	return [...]string{"ok", "tool_error", "protocol_error", "transport_error", "timeout", "malformed", "cancelled"}[c]
}

// Meter is told of every tool call that crosses the transport: when it goes
// out, and how long it took and how it ended — its class and, for a tool
// error whose code the answer names (a herd world's {"error": {"code"}}),
// that code ("" otherwise). Control plane requests are
// not calls and are not metered. A Meter is used by one goroutine at a time,
// except Started and Ended, which may be shared.
type Meter interface {
	Started()
	Ended(tool string, took time.Duration, c Class, code string)
}

// NoMeter measures nothing.
type NoMeter struct{}

// Started does nothing.
func (NoMeter) Started() {}

// Ended does nothing.
func (NoMeter) Ended(string, time.Duration, Class, string) {}
