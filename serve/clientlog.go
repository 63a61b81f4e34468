package serve

import (
	"context"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/engine"
)

// What a client asks for with logging/setLevel (MCP's logging capability)
// is what happens to its own session, as notifications/message from the
// logger "herd": each call at debug, a call the world refused at notice, a
// call that met an injected fault at warning. herd's own log still goes to
// its stderr only. Nothing is sent before the client sets a level.

// mcpLevels maps MCP's syslog level names to slog levels (as the SDK does).
var mcpLevels = map[mcp.LoggingLevel]slog.Level{
	"debug":     mcp.LevelDebug,
	"info":      mcp.LevelInfo,
	"notice":    mcp.LevelNotice,
	"warning":   mcp.LevelWarning,
	"error":     mcp.LevelError,
	"critical":  mcp.LevelCritical,
	"alert":     mcp.LevelAlert,
	"emergency": mcp.LevelEmergency,
}

// noteLogLevel remembers the level a logging/setLevel request sets, so a
// call can tell without building a message whether the client wants it.
// The SDK answers the request and filters by the same level.
func (ws *worldSession) noteLogLevel(req mcp.Request) {
	p, ok := req.GetParams().(*mcp.SetLoggingLevelParams)
	if !ok || p == nil {
		return
	}
	if l, ok := mcpLevels[p.Level]; ok {
		ws.logLevel.Store(&l)
	}
}

// tellClient sends the client what its call did, at the level that call
// deserves, if the client asked for that level.
func (s *Server) tellClient(ctx context.Context, req mcp.Request, ws *worldSession, res *engine.Result) {
	want := ws.logLevel.Load()
	// From protocol 2026-07-28 on, a request carries its own level in _meta
	// (none: nothing is sent); the SDK filters by it the same way.
	if p, ok := req.GetParams().(*mcp.CallToolParams); ok && p != nil {
		if name, ok := p.Meta[mcp.MetaKeyLogLevel].(string); ok {
			if l, ok := mcpLevels[mcp.LoggingLevel(name)]; ok {
				want = &l
			}
		}
	}
	if want == nil {
		return
	}
	level, mcpLevel := mcp.LevelDebug, mcp.LoggingLevel("debug")
	switch {
	case res.Fault != "":
		level, mcpLevel = mcp.LevelWarning, "warning"
	case res.Err != nil:
		level, mcpLevel = mcp.LevelNotice, "notice"
	}
	if level < *want {
		return
	}
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return
	}
	data := map[string]any{"session": ws.id, "tool": res.Tool, "ok": res.Err == nil}
	if res.Err != nil {
		data["code"] = res.Err.Code
	}
	if res.Fault != "" {
		data["fault"] = res.Fault
	}
	if err := ss.Log(ctx, &mcp.LoggingMessageParams{Logger: "herd", Level: mcpLevel, Data: data}); err != nil {
		s.log.Debug("log message to client not sent", "session", ws.id, "err", err)
	}
}
