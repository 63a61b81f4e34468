package report

import "io"

// JSON writes the document itself, indented and in canonical order: the
// machine-readable report is the results document.
func JSON(w io.Writer, res *Results) error { return res.Write(w) }
