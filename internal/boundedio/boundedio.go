// Package boundedio reads the files herd is given — world files, persona
// packs, descriptions files, results files — with a size limit, and only
// regular files: /dev/zero would otherwise be read until memory ran out,
// and a FIFO would block the loader until someone wrote to it.
package boundedio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// TooLargeError is a file or stream longer than its limit.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("more than %d bytes, the limit", e.Limit)
}

// ErrNotRegular is a path that is not a regular file (a FIFO, a device, a
// directory, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ReadFile reads the regular file at path, failing without reading it all
// when it holds more than limit bytes. A path that is not a regular file
// is refused before it is opened (opening a FIFO blocks until it has a
// writer). Errors name the path.
func ReadFile(path string, limit int64) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Op = "open" // what a reader expects: "open x: no such file or directory"
		}
		return nil, err // *PathError names the path
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: fmt.Errorf("%w (%s)", ErrNotRegular, kind(fi.Mode()))}
	}
	if fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Limit: limit}}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been swapped between Stat and Open, or grow while
	// it is read: check what was opened, and read at most limit+1 bytes.
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: ErrNotRegular}
	}
	data, err := Read(f, limit)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: err}
	}
	return data, nil
}

// Read reads r to its end, failing once it has given more than limit
// bytes (standard input, a pipe).
func Read(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return data, nil
}

func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file"
}
