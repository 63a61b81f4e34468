package swarm

import (
	"github.com/herd-sh/herd/lint"
	"github.com/herd-sh/herd/report"
)

// LintFindings lints the tool descriptions under each variant of the run,
// as the run's results document records them (every command that runs a
// swarm records the same findings).
func (cfg Config) LintFindings() []report.LintFinding {
	var out []report.LintFinding
	for _, v := range cfg.Variants {
		out = append(out, LintResults(lint.Lint(cfg.World, v, cfg.Descriptions[v]))...)
	}
	return out
}

// LintResults are a lint report's findings as a results document holds
// them: the same fields, in the document's own type (lint builds no
// results documents).
func LintResults(r lint.Report) []report.LintFinding {
	out := make([]report.LintFinding, len(r.Findings))
	for i, f := range r.Findings {
		out[i] = report.LintFinding(f)
	}
	return out
}

// LintTokens counts, per variant of the run, what the world's tool
// definitions cost a model, for the results document's lint_tokens.
func (cfg Config) LintTokens() []report.LintTokens {
	tok, err := lint.NewTokenizer(lint.DefaultEncoding)
	if err != nil {
		return nil // DefaultEncoding is one of lint.Encodings
	}
	var out []report.LintTokens
	for _, v := range cfg.Variants {
		out = append(out, ResultsTokens(v, tok.Cost(lint.FromWorld(cfg.World, v, cfg.Descriptions[v]))))
	}
	return out
}

// ResultsTokens is a token cost as the results document holds it.
func ResultsTokens(variant string, c *lint.TokenCost) report.LintTokens {
	lt := report.LintTokens{Variant: variant, Encoding: c.Encoding, Total: int64(c.Total)}
	for _, t := range c.Tools {
		lt.Tools = append(lt.Tools, report.LintToolTokens{Tool: t.Tool, Tokens: int64(t.Tokens)})
	}
	return lt
}
