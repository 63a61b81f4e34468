package reporttest

import (
	"fmt"
	"math"
	"slices"

	"github.com/herd-sh/herd/report"
)

// trace writes the step-by-step story of one agent's episode, consistent
// with the class it ended in.
func (w *world) trace(a agent, variant string, ci int) report.Trace {
	goal := w.goals[a.goal]
	c := goal.classes[ci]
	h := hash(a.seed, purposeTrace)
	name := contactNames[h%uint64(len(contactNames))]
	id := fmt.Sprintf("c_%04d", 1+splitmix(h)%400)
	other := fmt.Sprintf("c_%04d", 1+splitmix(h+1)%400)
	clock := 0.0
	at := func(k int) string {
		clock += 0.2 + unit(hash(h, uint64(k)))*1.3
		return fmt.Sprintf("+%.3fs", clock)
	}
	scores := w.scores(a, variant, goal, c.tool)
	look := report.Step{Kind: "look", Tool: goal.lookup, Args: map[string]any{"name": name},
		Result: fmt.Sprintf("ok: 2 contacts (%s, %s)", id, other), At: at(0)}
	act := func(tool, target string) report.Step {
		return report.Step{Kind: "act", Tool: tool, Args: map[string]any{"id": target}, Scores: scores, Result: "ok", At: at(1)}
	}
	verify := func(result string) report.Step {
		return report.Step{Kind: "verify", Tool: "get_contact", Args: map[string]any{"id": id}, Result: result, At: at(2)}
	}
	var steps []report.Step
	switch c.name {
	case "destroyed_data":
		steps = []report.Step{look, act(c.tool, id), verify("error: not_found — contact " + id + " does not exist")}
	case "wrong_record":
		steps = []report.Step{look, act(c.tool, other)}
	case "overwrote_newer":
		first := act(c.tool, id)
		first.Args["email"] = "new@example.org"
		first.Result = "fault: timeout_after_commit"
		retry := report.Step{Kind: "retry", Tool: c.tool, Args: map[string]any{"id": id, "email": "new@example.org"},
			Result: "ok (version 3 overwritten by stale version 1)", At: at(3)}
		steps = []report.Step{look, first, retry}
	case "modified_data":
		steps = []report.Step{look, act(c.tool, id), verify("ok")}
	case "wrong_answer":
		steps = []report.Step{look, act(c.tool, other), {Kind: "give_up", Result: "answered with " + other, At: at(4)}}
	case "achieved":
		steps = []report.Step{look, act(c.tool, id), verify("ok")}
	default: // not_achieved
		refused := act(c.tool, id)
		refused.Result = "error: locked — contact " + id + " is locked"
		again := refused
		again.Kind, again.Scores, again.At = "retry", nil, at(5)
		steps = []report.Step{look, refused, again, {Kind: "give_up", Result: "patience exhausted", At: at(6)}}
	}
	return report.Trace{
		Agent: a.index, Seed: a.seed, Goal: goal.name, Persona: w.personas[a.persona].name,
		Variant: variant, Class: c.name, Severity: c.severity,
		Replay: fmt.Sprintf("herd replay mock:crm --seed %d --agent %d --variant %s", w.cfg.Seed, a.index, variant),
		Steps:  steps,
	}
}

// scores are the reader model's scores for the act step: the chosen tool
// scores highest, the goal's tool next, rounded so the JSON stays short.
func (w *world) scores(a agent, variant string, goal goalSpec, chosen string) []report.ToolScore {
	tools := []string{chosen}
	for _, t := range []string{goal.meant, "delete_contact", "update_contact"} {
		if !slices.Contains(tools, t) {
			tools = append(tools, t)
		}
	}
	h := hash(a.seed, purposeTrace, 7)
	raw := make([]float64, len(tools))
	sum := 0.0
	for i := range tools {
		raw[i] = 2.4 - float64(i)*0.7 - unit(hash(h, uint64(i)))*0.3
		if variant != "clear" {
			raw[i] -= 0.2 * float64(i)
		}
		sum += math.Exp(raw[i])
	}
	out := make([]report.ToolScore, len(tools))
	for i, t := range tools {
		out[i] = report.ToolScore{Tool: t, Score: round3(raw[i]), P: round3(math.Exp(raw[i]) / sum)}
	}
	return out
}

func round3(x float64) float64 { return math.Round(x*1000) / 1000 }
