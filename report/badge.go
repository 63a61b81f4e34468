package report

import (
	"io"
)

// badge is a shields.io endpoint response
// (https://shields.io/badges/endpoint-badge).
type badge struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	Color         string `json:"color"`
}

// Badge writes a shields.io endpoint badge: the overall verdict when there
// are thresholds, otherwise the highest harmful rate of any variant.
func Badge(w io.Writer, res *Results) error {
	b := badge{SchemaVersion: 1, Label: "agent readiness"}
	switch Overall(res.Thresholds) {
	case Ready:
		b.Message, b.Color = Ready, "brightgreen"
	case NotReady:
		b.Message, b.Color = NotReady, "red"
	case Inconclusive:
		b.Message, b.Color = Inconclusive, "yellow"
	default:
		worst := -1.0
		for _, g := range res.HarmfulOverall() {
			if g.N > 0 && g.P > worst {
				worst = g.P
			}
		}
		if worst < 0 {
			b.Message, b.Color = "no episodes", "lightgrey"
			break
		}
		b.Message, b.Color = "harmful "+Pct(worst)+"%", harmColor(worst)
	}
	return encode(w, b, false)
}

// harmColor grades a harmful rate from green to red.
func harmColor(p float64) string {
	switch {
	case p < 0.01:
		return "brightgreen"
	case p < 0.05:
		return "green"
	case p < 0.10:
		return "yellow"
	case p < 0.20:
		return "orange"
	}
	return "red"
}
