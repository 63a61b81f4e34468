package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// CallClassOrder is the order of call classes in the document and the
// reports: answers first, then the ways a call can fail to get one. A class
// not listed (written by a newer herd) sorts after these, by name.
var CallClassOrder = []string{"ok", "tool_error", "protocol_error", "transport_error", "timeout", "malformed", "cancelled"}

func callClassRank(c string) int {
	if i := slices.Index(CallClassOrder, c); i >= 0 {
		return i
	}
	return len(CallClassOrder)
}

func compareCallClass(a, b CallClass) int {
	return cmp.Or(cmp.Compare(a.Tool, b.Tool), cmp.Compare(callClassRank(a.Class), callClassRank(b.Class)),
		cmp.Compare(a.Class, b.Class), cmp.Compare(a.Code, b.Code))
}

// normalizeCalls sorts the rows and folds equal tool × class × code rows
// into one: what Merge sums and what every document holds.
func normalizeCalls(cs []CallClass) []CallClass {
	if len(cs) == 0 {
		return nil
	}
	cs = slices.Clone(cs)
	slices.SortStableFunc(cs, compareCallClass)
	out := cs[:0]
	for _, c := range cs {
		if n := len(out); n > 0 && compareCallClass(out[n-1], c) == 0 {
			out[n-1].N = addCount(out[n-1].N, c.N)
			continue
		}
		out = append(out, c)
	}
	return out
}

// CallRow is one tool's calls by how they ended, as the reports show it.
type CallRow struct {
	Tool   string
	Calls  int64
	OK     int64
	Errors string // "not_found 3, locked 1" — tool errors by code
	Failed string // "timeout 2, transport_error 1" — calls with no usable answer
}

// CallRows are the calls by class, a row per tool plus one over all tools
// (first, named AllTools), for the reports. Nil when the run has none (an
// in-process run, or a document from before herd recorded them).
func (r *Results) CallRows() []CallRow {
	if r.Timing == nil || len(r.Timing.Calls) == 0 {
		return nil
	}
	all := make([]CallClass, 0, len(r.Timing.Calls))
	for _, c := range r.Timing.Calls {
		c.Tool = AllTools
		all = append(all, c)
	}
	rows := []CallRow{callRow(AllTools, normalizeCalls(all))}
	calls := normalizeCalls(r.Timing.Calls)
	for i := 0; i < len(calls); {
		j := i
		for j < len(calls) && calls[j].Tool == calls[i].Tool {
			j++
		}
		rows = append(rows, callRow(calls[i].Tool, calls[i:j]))
		i = j
	}
	return rows
}

func callRow(tool string, cs []CallClass) CallRow {
	row := CallRow{Tool: tool}
	var errs, failed []string
	for _, c := range cs {
		row.Calls = addCount(row.Calls, c.N)
		switch c.Class {
		case "ok":
			row.OK = addCount(row.OK, c.N)
		case "tool_error":
			errs = append(errs, cmp.Or(c.Code, "tool_error")+" "+itoa64(c.N))
		default:
			failed = append(failed, c.Class+" "+itoa64(c.N))
		}
	}
	row.Errors, row.Failed = strings.Join(errs, ", "), strings.Join(failed, ", ")
	return row
}

func itoa64(n int64) string {
	return strconv.FormatInt(n, 10)
}
