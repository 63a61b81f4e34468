package report

import "fmt"

// ModelLine is the one line that says a language model played the run:
// which, what it cost in requests and
// tokens, and the cassette it was recorded to or replayed from. "" for a
// persona run.
func ModelLine(res *Results) string {
	m := res.Run.Model
	if m == nil {
		return ""
	}
	s := fmt.Sprintf("model %s · %s requests · %s tokens in, %s out", m.Name, Thousands(m.Requests), Thousands(m.PromptTokens), Thousands(m.OutputTokens))
	if m.Cassette != "" {
		s += " · cassette " + shortHash(m.Cassette)
	}
	return s
}
