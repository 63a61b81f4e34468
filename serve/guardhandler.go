package serve

import (
	"io"
	"log/slog"
	"net/http"
)

// Guard wraps next in the guard a Server puts in front of /mcp and
// /control: requests whose Host or Origin is not loopback are refused
// (unless allowRemote), a loopback Origin gets CORS headers, and when token
// is set every request must carry "Authorization: Bearer TOKEN". It lets
// another MCP server of herd's (herd mcp) keep exactly the rules of herd
// serve without a copy of them. log may be nil.
func Guard(next http.Handler, token string, allowRemote bool, log *slog.Logger) http.Handler {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	// The guard reads only these three fields of a Server.
	s := &Server{token: token, remote: allowRemote, log: log}
	return s.guard(next)
}
