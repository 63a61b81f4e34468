package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// An empty --http or --control address is a mistake (an unset variable in
// a script), refused with exit 2: it is not a request for stdio.
func TestServeRefusesAnEmptyAddress(t *testing.T) {
	for _, flag := range []string{"--http", "--control"} {
		code, out, errOut := runHerd(t, "serve", "mock:crm", flag, "")
		if code != exitUsage || !strings.Contains(errOut, flag+": the address is empty") || out != "" {
			t.Errorf("serve %s '': exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
}

// A server that answers an invalid call with HTTP 500 failed; it did not
// reject the call clearly. The adversary's class for it is
// unclear_rejection (failed), never rejected_clearly (ok).
func TestExternalHTTP500IsNoClearRejection(t *testing.T) {
	inner := externalTestHandler()
	failing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Method string `json:"method"`
				Params struct {
					Arguments json.RawMessage `json:"arguments"`
				} `json:"params"`
			}
			if json.Unmarshal(body, &req) == nil && req.Method == "tools/call" {
				var args map[string]any
				ok := false
				if json.Unmarshal(req.Params.Arguments, &args) == nil {
					word, isStr := args["word"].(string)
					ok = isStr && len(word) <= 30 && len(args) == 1
				}
				if !ok {
					http.Error(w, "Internal Server Error", http.StatusInternalServerError)
					return
				}
			}
		}
		inner.ServeHTTP(w, r)
	})
	srv := httptest.NewServer(failing)
	defer srv.Close()
	code, errOut, res := externalRun(t, srv.URL+"/mcp", "--agents", "40", "--seed", "4")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, errOut)
	}
	g := classesOf(res)
	if g["lookup:rejected_clearly"] != 0 || g["lookup:unclear_rejection"] == 0 || g["lookup:answered"] == 0 {
		t.Errorf("an HTTP 500 for an invalid call must be unclear_rejection, not rejected_clearly: classes %v", g)
	}
	for _, tr := range res.Traces {
		if tr.Class == "unclear_rejection" && (len(tr.Steps) == 0 || !strings.Contains(tr.Steps[len(tr.Steps)-1].Result, "server failure")) {
			t.Errorf("trace of agent %d does not say the server failed: %+v", tr.Agent, tr)
		}
	}
}
