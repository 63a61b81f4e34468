package target

import (
	"net"
	"net/url"
	"strings"

	"github.com/herd-sh/herd/internal/field"
)

// CheckHost refuses a URL whose host is not loopback, unless allow names
// it. It looks at the name as written and resolves nothing, so a refused
// host is never contacted, not even by a DNS query: a load test aimed at
// someone else's machine by a typo stops here.
func CheckHost(u *url.URL, allow []string) error {
	host := u.Hostname()
	if IsLoopback(host) {
		return nil
	}
	for _, a := range allow {
		if strings.EqualFold(strings.TrimSpace(a), host) {
			return nil
		}
	}
	return field.Errorf("AllowHosts", "target %s: host %q is not loopback; herd only load-tests this machine unless the host is allowed by name (and you have the right to load it)", u.Redacted(), host)
}

// IsLoopback reports whether host (a name or an IP literal, without port)
// is this machine: localhost, 127.0.0.0/8 or ::1.
func IsLoopback(host string) bool {
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
