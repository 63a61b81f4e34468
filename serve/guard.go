package serve

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/herd-sh/herd/internal/field"
)

// CheckListenAddr resolves the address to listen on: a missing host means
// 127.0.0.1 (":8931" and "8931" listen on loopback, not on every interface),
// and a host that is not loopback is refused unless allowRemote. Names other
// than "localhost" are refused too: herd does not resolve them, so it cannot
// tell where they point.
func CheckListenAddr(addr string, allowRemote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		// A bare port ("8931") is a common way to write it.
		if !strings.Contains(addr, ":") && addr != "" {
			host, port, err = "", addr, nil
		} else {
			return "", fmt.Errorf("address %q: want HOST:PORT, e.g. 127.0.0.1:8931", addr)
		}
	}
	if port == "" {
		return "", fmt.Errorf("address %q: no port (use :0 for any free port)", addr)
	}
	if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return "", fmt.Errorf("address %q: want HOST:PORT with a port number, e.g. 127.0.0.1:8931", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !allowRemote && !isLoopbackHost(host) {
		return "", field.Errorf("AllowRemote", "address %q is not loopback, and serving a world beyond this machine is not allowed", addr)
	}
	return net.JoinHostPort(host, port), nil
}

// isLoopbackHost reports whether host (no port) is localhost or a loopback
// IP address.
func isLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// hostOnly strips the port from a Host header value.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// guard refuses requests that a browser page could forge against a local
// server (DNS rebinding: a Host that is not loopback; cross-site requests:
// an Origin that is not loopback), and requests without the bearer token
// when one is set. Both /mcp and /control sit behind it.
//
// A request from an allowed origin gets CORS headers, so a browser client
// (the MCP Inspector connecting directly) can talk to the server; its
// preflight is answered here, before the token check, since browsers send
// preflights without credentials.
func (s *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg, code := s.refuseOrigin(r)
		if msg == "" {
			if origin := r.Header.Get("Origin"); origin != "" {
				allowCORS(w.Header(), origin)
				if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
					w.WriteHeader(http.StatusNoContent)
					return
				}
			}
			msg, code = s.refuseToken(r)
		}
		if msg != "" {
			s.log.Warn("request refused", "path", r.URL.Path, "remote", r.RemoteAddr, "status", code, "reason", msg)
			if code == http.StatusUnauthorized {
				w.Header().Set("WWW-Authenticate", `Bearer realm="herd"`)
			}
			http.Error(w, msg, code)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// allowCORS lets a page from origin call the server and read its answers,
// including the session id header.
func allowCORS(h http.Header, origin string) {
	h.Set("Access-Control-Allow-Origin", origin)
	h.Add("Vary", "Origin")
	h.Set("Access-Control-Allow-Methods", "GET, POST, DELETE, OPTIONS")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, Accept, Mcp-Session-Id, Mcp-Protocol-Version, Last-Event-Id")
	h.Set("Access-Control-Expose-Headers", "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate")
	h.Set("Access-Control-Max-Age", "600")
}

// refuseOrigin returns why a request's Host or Origin is refused ("" when it
// is not) and the status.
func (s *Server) refuseOrigin(r *http.Request) (string, int) {
	if !s.remote && !isLoopbackHost(hostOnly(r.Host)) {
		return fmt.Sprintf("forbidden: Host %q is not loopback (DNS rebinding protection: this server accepts loopback hosts only)", r.Host), http.StatusForbidden
	}
	if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
		allowed := "loopback origins"
		if s.remote {
			allowed += " or the server's own host"
		}
		return fmt.Sprintf("forbidden: Origin %q is not allowed (only %s)", origin, allowed), http.StatusForbidden
	}
	return "", 0
}

// refuseToken returns why a request is refused for its bearer token.
func (s *Server) refuseToken(r *http.Request) (string, int) {
	if s.token == "" {
		return "", 0
	}
	auth := r.Header.Get("Authorization")
	given, ok := strings.CutPrefix(auth, "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(given)), []byte(s.token)) != 1 {
		if auth == "" {
			return "unauthorized: send Authorization: Bearer TOKEN", http.StatusUnauthorized
		}
		return "unauthorized: wrong bearer token", http.StatusUnauthorized
	}
	return "", 0
}

// originAllowed accepts loopback origins, and with AllowRemote also the
// server's own host (a page served from the same place).
func (s *Server) originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	if isLoopbackHost(u.Hostname()) {
		return true
	}
	return s.remote && strings.EqualFold(u.Host, host)
}
