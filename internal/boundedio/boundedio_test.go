package boundedio

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestReadFileRefusesWhatIsNotAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	for _, path := range []string{fifo, "/dev/zero", dir} {
		if _, err := os.Stat(path); err != nil {
			continue
		}
		start := time.Now()
		_, err := ReadFile(path, 1<<20)
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: err %v, want ErrNotRegular naming the path", path, err)
		}
		if took := time.Since(start); took > time.Second {
			t.Errorf("%s: refused after %s", path, took)
		}
	}
}

func TestReadFileLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(path, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	var tl *TooLargeError
	if _, err := ReadFile(path, 4); !errors.As(err, &tl) || tl.Limit != 4 || !strings.Contains(err.Error(), path) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Read(strings.NewReader("12345"), 4); !errors.As(err, &tl) {
		t.Errorf("Read over the limit: %v", err)
	}
}
