package target

import (
	"errors"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// codeRejectedByTransport is the JSON-RPC code the go-sdk's Streamable
// HTTP client gives a call whose answer was an HTTP error status (500,
// 502, 503, 504, 429) without a JSON-RPC error in its body: its
// "rejected by transport" error, which keeps the connection usable.
const codeRejectedByTransport = -32005

// ServerFailed reports whether err, from a tool call, is an HTTP error
// status with no JSON-RPC error in it: the server (or a proxy before it)
// failed; it did not refuse the call with a reason. An HTTP error whose
// body carries the server's own JSON-RPC error is that error, not this.
func ServerFailed(err error) bool {
	var rpcErr *jsonrpc.Error
	return errors.As(err, &rpcErr) && rpcErr.Code == codeRejectedByTransport
}
