package calibrate

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/herd-sh/herd/internal/safetext"
	"github.com/herd-sh/herd/personas"
)

// WriteText writes the report for a terminal: the fitted mix and whether
// it fits, first-choice agreement, the variant effects, then per goal and
// variant the agent's outcome shares beside the fitted mix's and the
// closest persona's.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	h := r.Header
	fmt.Fprintf(&b, "herd calibration — %s played %s (seed %d, faults %s, variants %s)\n",
		safetext.Terminal(h.Player, 120), safetext.Terminal(h.World, 120), h.Seed, safetext.Terminal(h.Faults, 120), safetext.Terminal(strings.Join(h.Variants, ", "), 120))
	fmt.Fprintf(&b, "personas: %d episodes each per goal and variant (seed %d)\n\n", r.Samples, r.Seed)
	if r.Fit.Fits {
		fmt.Fprintf(&b, "FIT: the mix below explains the agent's outcomes (G = %.1f, p = %.3f by parametric bootstrap, %d replicates)\n", r.Fit.G, r.Fit.P, r.Fit.Reps)
	} else {
		fmt.Fprintf(&b, "DOES NOT FIT: no mix of these personas explains the agent's outcomes (G = %.1f, p = %.3f < %.2f); the closest mix is shown, read it as a bound, not a stand-in\n", r.Fit.G, r.Fit.P, r.Fit.Alpha)
	}
	b.WriteString("\nBest-fitting persona mix (maximum likelihood, 95% bootstrap intervals)\n")
	mix := slices.Clone(r.Mix)
	slices.SortStableFunc(mix, func(a, c Share) int {
		switch {
		case a.Weight > c.Weight:
			return -1
		case a.Weight < c.Weight:
			return 1
		}
		return 0
	})
	for _, s := range mix {
		if s.Hi < 0.005 {
			continue
		}
		fmt.Fprintf(&b, "  %-12s %5.1f%%  [%.1f–%.1f]\n", safetext.Terminal(s.Persona, 120), 100*s.Weight, 100*s.Lo, 100*s.Hi)
	}
	b.WriteString("\nFirst-choice agreement on the agent's own episodes (Cohen's κ; same goal targets, same seeds)\n")
	for _, a := range append(slices.Clone(r.Agreement), r.MixAgreement) {
		fmt.Fprintf(&b, "  %-12s κ %5.2f  (agree %4.1f%%)\n", safetext.Terminal(a.Persona, 120), a.Kappa, 100*a.Observed)
	}
	if len(r.Effects) > 0 {
		b.WriteString("\nVariant effects on the harmful rate: the agent (paired, Newcombe) vs the fitted mix (bootstrap)\n")
		for _, e := range r.Effects {
			verdict := "same direction, overlapping size"
			switch {
			case !e.SameDirection:
				verdict = "OPPOSITE DIRECTION"
			case !e.Overlap:
				verdict = "same direction, different size"
			}
			fmt.Fprintf(&b, "  %-16s %s → %s: agent %+.1f pp [%+.1f, %+.1f], mix %+.1f pp [%+.1f, %+.1f] — %s\n",
				safetext.Terminal(e.Goal, 120), safetext.Terminal(e.From, 120), safetext.Terminal(e.To, 120),
				100*e.Agent, 100*e.AgentCI.Lo, 100*e.AgentCI.Hi, 100*e.Mix, 100*e.MixCI.Lo, 100*e.MixCI.Hi, verdict)
		}
	}
	b.WriteString("\nOutcomes per goal and variant: the agent, the fitted mix, and each persona (shares)\n")
	for _, c := range r.Cells {
		fmt.Fprintf(&b, "  %s @%s (%d episodes)\n", safetext.Terminal(c.Goal, 120), safetext.Terminal(c.Variant, 120), c.N)
		fmt.Fprintf(&b, "    %-22s %7s %7s", "class", "agent", "mix")
		for _, p := range r.Personas {
			fmt.Fprintf(&b, " %8.8s", p)
		}
		b.WriteByte('\n')
		for k, cl := range c.Classes {
			fmt.Fprintf(&b, "    %-22.22s %6.1f%% %6.1f%%", safetext.Terminal(cl, 120), 100*c.Agent[k], 100*c.Fitted[k])
			for p := range r.Personas {
				fmt.Fprintf(&b, " %7.1f%%", 100*c.Personas[p][k])
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WritePack writes the fitted mix as a persona pack: the personas with a
// weight of at least half a percent, each with its share, so that a swarm
// given the pack (and no mix) plays the mix that predicts the agent.
// usage, when given, is a comment line saying how to use it.
func (r *Report) WritePack(w io.Writer, pack []*personas.Persona, usage string) error {
	var out []*personas.Persona
	for i, s := range r.Mix {
		if s.Weight < 0.005 {
			continue
		}
		p := *pack[i]
		p.Weight = s.Weight
		out = append(out, &p)
	}
	note := "fitted"
	if !r.Fit.Fits {
		note = "closest (it does NOT fit: p < alpha)"
	}
	comment := []string{
		fmt.Sprintf("The persona mix %s to %s on %s by herd calibrate (G %.1f, p %.3f).", note, r.Header.Player, r.Header.World, r.Fit.G, r.Fit.P),
	}
	if usage != "" {
		comment = append(comment, usage)
	}
	return personas.WritePack(w, "fitted-"+sanitize(r.Header.Player), "personas weighted to predict "+r.Header.Player, comment, out)
}

func sanitize(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' {
			b.WriteRune(c)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}
