package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/herd-sh/herd/report"
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

// fullDisk is a temporary file on a full disk: every write fails.
type fullDisk struct{ name string }

func (f *fullDisk) Write([]byte) (int, error) {
	return 0, &fs.PathError{Op: "write", Path: f.name, Err: syscall.ENOSPC}
}
func (f *fullDisk) Name() string            { return f.name }
func (f *fullDisk) Chmod(os.FileMode) error { return nil }
func (f *fullDisk) Close() error            { return nil }

// A write that fails on a full disk names the file asked for, not the
// temporary file, and leaves neither in place.
func TestWriteOnAFullDiskNamesThePath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	tmp := filepath.Join(dir, ".herd-123")
	err := writeFileVia(path, func(w io.Writer) error { _, err := io.WriteString(w, "{}"); return err },
		func(string, string) (tempFile, error) { return &fullDisk{name: tmp}, nil })
	if err == nil || err.Error() != path+": no space left on device" {
		t.Fatalf("error %v, want %q", err, path+": no space left on device")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("the file exists after a failed write")
	}
}

// A finished run whose results file cannot be written (/dev/full: every
// write fails as on a full disk) is not lost: its results document is
// kept in the temporary directory and stderr says where.
func TestFinishedRunSurvivesAFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	code, _, errOut := runHerd(t, "swarm", "mock:crm", "--agents", "50", "--json", "/dev/full", "--progress", "never")
	if code != exitUsage || !strings.Contains(errOut, "--json: /dev/full: no space left on device") || strings.Contains(errOut, ".herd-") {
		t.Fatalf("exit %d, stderr:\n%s", code, errOut)
	}
	kept, _ := filepath.Glob(filepath.Join(tmp, "herd-results-*.json"))
	if len(kept) != 1 || !strings.Contains(errOut, "kept in "+kept[0]) {
		t.Fatalf("kept %v; stderr:\n%s", kept, errOut)
	}
	res, err := report.ReadFile(kept[0])
	if err != nil || res.Episodes != 50 {
		t.Fatalf("the kept results: %v %+v", err, res)
	}
	if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode().IsRegular() {
		t.Fatalf("/dev/full is no longer a device: %v %v", fi.Mode(), err)
	}
}
