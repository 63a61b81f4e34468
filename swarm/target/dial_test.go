package target

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
)

// A *.localhost name is dialled as 127.0.0.1, whatever a resolver would
// say of it (most say nothing: the name is not in DNS).
func TestLocalhostSubdomainIsDialledAsLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte("ok")) }))
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	_, port, _ := net.SplitHostPort(u.Host)
	resp, err := NewHTTPClient(Options{}).Get("http://herd-probe.not-in-dns.localhost:" + port + "/")
	if err != nil {
		t.Fatalf("GET a *.localhost name: %v", err)
	}
	resp.Body.Close()
}

// The bearer token goes to the target, and not to another port it
// redirects to, even on this machine.
func TestTokenNotSentAfterRedirectToAnotherPort(t *testing.T) {
	var mu sync.Mutex
	got := map[string]string{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got["other"] = r.Header.Get("Authorization")
		mu.Unlock()
	}))
	defer other.Close()
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got[r.URL.Path] = r.Header.Get("Authorization")
		mu.Unlock()
		if r.URL.Path == "/away" {
			http.Redirect(w, r, other.URL+"/", http.StatusFound)
			return
		}
		if r.URL.Path == "/here" {
			http.Redirect(w, r, "/landed", http.StatusFound)
		}
	}))
	defer target.Close()
	hc := NewHTTPClient(Options{Token: "s3cret"})
	for _, path := range []string{"/away", "/here"} {
		resp, err := hc.Get(target.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if got["/away"] != "Bearer s3cret" || got["/here"] != "Bearer s3cret" || got["/landed"] != "Bearer s3cret" {
		t.Errorf("the target did not get the token on each of its own requests: %q", got)
	}
	if got["other"] != "" {
		t.Errorf("the token followed the redirect to another port: %q", got["other"])
	}
}
