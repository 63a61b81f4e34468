package target

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/herd-sh/herd/internal/version"
)

// ProtocolVersion is the MCP version herd's client asks for.
const ProtocolVersion = "2025-11-25"

// connectTimeout bounds connecting and initializing one MCP session.
const connectTimeout = 15 * time.Second

// Options configure how targets are reached.
type Options struct {
	// AllowHosts are the non-loopback hosts the user allowed (--allow-host).
	AllowHosts []string
	// Token is sent as "Authorization: Bearer TOKEN" to HTTP targets.
	Token string
	// CallTimeout is the longest one call may take (0: DefaultCallTimeout).
	CallTimeout time.Duration
	// MaxConns is the most connections open at once: the run's in-flight
	// cap. It sizes the HTTP client's idle pool (so connections are reused,
	// not left in TIME-WAIT by the thousand).
	MaxConns int
	// MaxResponseBytes bounds one answer over HTTP: a JSON response body,
	// or one event of an SSE stream (0: DefaultMaxResponseBytes). A call
	// whose answer is larger fails as a transport error.
	MaxResponseBytes int64
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "herd-swarm", Version: version.String()}, &mcp.ClientOptions{
		// The swarm answers no server requests (sampling, roots): say so.
		Capabilities: &mcp.ClientCapabilities{},
	})
}

// NewHTTPClient is the one HTTP client a run shares: an idle pool as large
// as the run's concurrency, no proxy (the target is this machine), a bearer
// token when given, and no redirect to a host the guard would refuse.
func NewHTTPClient(opts Options) *http.Client {
	n := max(opts.MaxConns, 16) * 2
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           guardedDial(&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}, opts.AllowHosts),
		MaxIdleConns:          n,
		MaxIdleConnsPerHost:   n,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // per-call timeouts come from contexts
	}
	limit := opts.MaxResponseBytes
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	var rt http.RoundTripper = limitBodies{next: tr, max: limit}
	if opts.Token != "" {
		rt = bearer{next: rt, value: "Bearer " + opts.Token}
	}
	allow := opts.AllowHosts
	return &http.Client{
		Transport: rt,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if err := CheckHost(req.URL, allow); err != nil {
				return fmt.Errorf("refusing the redirect: %w", err)
			}
			if len(via) >= 3 {
				return fmt.Errorf("too many redirects")
			}
			return nil
		},
	}
}

type bearer struct {
	next  http.RoundTripper
	value string
}

// RoundTrip sends the token with r, unless r follows a redirect to
// another host or port than the request the caller made: the token is
// for the target, not for wherever it points.
func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	first := r
	for first.Response != nil && first.Response.Request != nil {
		first = first.Response.Request // the client sets Response on each redirect hop
	}
	if !strings.EqualFold(first.URL.Host, r.URL.Host) {
		return b.next.RoundTrip(r)
	}
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", b.value)
	return b.next.RoundTrip(r)
}

// guardedDial dials as d does, except that a "localhost" or "*.localhost"
// name is dialled as 127.0.0.1 without asking a resolver (which could
// answer a public address and aim the load there), and that every
// connection's peer must be loopback unless its host was allowed by name.
func guardedDial(d *net.Dialer, allow []string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(strings.ToLower(host), ".")
		if name == "localhost" || strings.HasSuffix(name, ".localhost") {
			return d.DialContext(ctx, network, net.JoinHostPort("127.0.0.1", port))
		}
		for _, a := range allow {
			if strings.EqualFold(strings.TrimSpace(a), host) {
				return d.DialContext(ctx, network, addr)
			}
		}
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if ta, ok := c.RemoteAddr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
			c.Close()
			return nil, fmt.Errorf("refusing %s: it connected to %s, which is not loopback, and the host was not allowed by name", addr, c.RemoteAddr())
		}
		return c, nil
	}
}

// connectHTTP opens an MCP session over Streamable HTTP.
func connectHTTP(ctx context.Context, endpoint string, hc *http.Client) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: hc,
		MaxRetries: -1, // a load test counts a failure; it does not hide it
		// Nothing the swarm needs comes unasked, and one GET stream per
		// session would double the connections.
		DisableStandaloneSSE: true,
	}
	cs, err := newClient().Connect(ctx, tr, &mcp.ClientSessionOptions{ProtocolVersion: ProtocolVersion})
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", endpoint, err)
	}
	return cs, nil
}
