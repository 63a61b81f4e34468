package examples_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// fakeRelease is a release folder as goreleaser publishes it: the archive
// for this platform (holding a herd that prints its version) and
// checksums.txt.
func fakeRelease(t *testing.T, version string, corrupt bool) http.Handler {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	body := []byte("#!/bin/sh\necho \"herd " + version + " (release archive)\"\n")
	if err := tw.WriteHeader(&tar.Header{Name: "herd", Mode: 0o755, Size: int64(len(body))}); err != nil {
		t.Fatal(err)
	}
	tw.Write(body)
	tw.Close()
	gz.Close()
	archive := "herd_" + strings.TrimPrefix(version, "v") + "_" + runtime.GOOS + "_" + runtime.GOARCH + ".tar.gz"
	sum := sha256.Sum256(buf.Bytes())
	hexSum := hex.EncodeToString(sum[:])
	if corrupt {
		hexSum = strings.Repeat("0", 64)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/"+version+"/"+archive, func(w http.ResponseWriter, _ *http.Request) { w.Write(buf.Bytes()) })
	mux.HandleFunc("/"+version+"/checksums.txt", func(w http.ResponseWriter, _ *http.Request) {
		w.Write([]byte(hexSum + "  " + archive + "\n" + strings.Repeat("1", 64) + "  other.tar.gz\n"))
	})
	return mux
}

// A pinned release is installed from its archive after the checksum is
// checked; a mismatch fails the step instead of falling back; an archive
// that cannot be fetched falls back to go install.
func TestActionInstallsTheReleaseArchive(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("the action's release download runs on Linux and macOS runners")
	}
	for _, tool := range []string{"curl", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s on this machine: the download path needs it", tool)
		}
	}
	good := httptest.NewServer(fakeRelease(t, "v9.9.9", false))
	defer good.Close()
	bad := httptest.NewServer(fakeRelease(t, "v9.9.9", true))
	defer bad.Close()

	tmp := t.TempDir()
	gobin := filepath.Join(tmp, "bin")
	r := script(t, time.Minute, tmp, []string{"HERD_VERSION=v9.9.9", "HERD_RELEASE_URL=" + good.URL, "GOBIN=" + gobin},
		actionScript("install.sh"))
	if r.code != 0 || !strings.Contains(r.stdout, "checksum verified") || !strings.Contains(r.stdout, "herd v9.9.9 (release archive)") {
		t.Fatalf("install from the release archive: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if st, err := os.Stat(filepath.Join(gobin, "herd")); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("no executable herd in GOBIN: %v", err)
	}

	r = script(t, time.Minute, tmp, []string{"HERD_VERSION=v9.9.9", "HERD_RELEASE_URL=" + bad.URL, "GOBIN=" + filepath.Join(tmp, "bin2")},
		actionScript("install.sh"))
	if r.code == 0 || !strings.Contains(r.stderr, "does not match the release's checksums.txt") || strings.Contains(r.stdout, "falling back") {
		t.Fatalf("a corrupt archive must fail, not fall back: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// No such release at that address: the fallback is tried (and fails
	// here, offline, for a version that does not exist).
	r = script(t, 2*time.Minute, tmp, []string{"HERD_VERSION=v9.9.8", "HERD_RELEASE_URL=" + good.URL, "GOBIN=" + filepath.Join(tmp, "bin3"),
		"GOPROXY=off", "GOFLAGS=-mod=mod"}, actionScript("install.sh"))
	if r.code == 0 || !strings.Contains(r.stdout, "falling back to go install github.com/herd-sh/herd/cmd/herd@v9.9.8") {
		t.Fatalf("a missing archive must fall back to go install: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// The pinned version the action installs when herd-version is empty is a
// version install.sh accepts.
func TestActionPinnedVersion(t *testing.T) {
	b, err := os.ReadFile(actionScript("VERSION"))
	if err != nil {
		t.Fatal(err)
	}
	v := strings.TrimSpace(string(b))
	if v != "local" && !strings.HasPrefix(v, "v") {
		t.Fatalf("VERSION %q: want local (before the first release) or a release such as v1.2.3", v)
	}
}
