// Package templates embeds the files herd renders from, so that the binary
// needs nothing beside it: the report's HTML page (template and stylesheet)
// and its Markdown summary.
package templates

import "embed"

// Report holds the report templates:
//
//	report/report.html.tmpl  the self-contained HTML report (html/template)
//	report/report.css        its stylesheet, inlined into the page
//	report/summary.md.tmpl   the Markdown summary (text/template)
//
//go:embed report
var Report embed.FS
