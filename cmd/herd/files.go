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
// (or an interrupted run) never sees half a file.
func writeFileAtomic(path string, render func(io.Writer) error) error {
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".herd-*")
	if err != nil {
		// The error names the temporary file; the user knows only path.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("%s: %w", path, err)
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
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
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
