package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// writeOutput sends what render writes to path, or to standard output when
// path is "". Either way it is rendered whole first, so a render error
// leaves neither half a file nor half a report on the terminal. Every
// command that writes a report or results file goes through here or
// writeFileAtomic.
func writeOutput(s *streams, path string, render func(io.Writer) error) error {
	if path != "" {
		if err := writeFileAtomic(path, render); err != nil {
			return usageErr(err)
		}
		return nil
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	_, err := s.out.Write(buf.Bytes())
	return err
}

// writeFileAtomic renders into memory and renames into place, so a reader
// (or an interrupted run) never sees half a file. A path that exists and
// is not a regular file (/dev/stdout, a FIFO, /dev/full) is written in
// place: renaming over it would replace the device or pipe. Errors name
// path, never the temporary file the user did not ask for.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	return writeFileVia(path, render, osTempFile)
}

// tempFile is the temporary file writeFileVia writes before renaming it
// into place (an *os.File; a test's stand-in fails as a full disk does).
type tempFile interface {
	io.Writer
	Name() string
	Chmod(os.FileMode) error
	Close() error
}

// osTempFile creates a temporary file next to where it will be renamed.
func osTempFile(dir, pattern string) (tempFile, error) { return os.CreateTemp(dir, pattern) }

// writeFileVia is writeFileAtomic with the temporary file made by create.
func writeFileVia(path string, render func(io.Writer) error, create func(dir, pattern string) (tempFile, error)) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		return writeInPlace(path, buf.Bytes())
	}
	tmp, err := create(filepath.Dir(path), ".herd-*")
	if err != nil {
		return fmt.Errorf("%s: %w", path, withoutPath(err))
	}
	_, err = tmp.Write(buf.Bytes())
	if err == nil {
		// CreateTemp makes the file private; a report is an ordinary file.
		err = tmp.Chmod(0o644)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("%s: %w", path, withoutPath(err))
	}
	return nil
}

// writeInPlace writes data to the device or pipe at path.
func writeInPlace(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("%s: %w", path, withoutPath(err))
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, withoutPath(err))
	}
	return nil
}

// withoutPath is err without the path an *fs.PathError or *os.LinkError
// names (a temporary file's, or path again): the caller names path.
func withoutPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// isTerminal reports whether w is a character device (a terminal), so
// tables can use box-drawing lines and progress can draw bars; anything
// else gets plain ASCII.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
