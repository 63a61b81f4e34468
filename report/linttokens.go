package report

import "fmt"

// LintTokens is what one variant's tool definitions cost a model, as the
// description lint counted them: each tool's name, description and input
// schema as JSON, in one encoding (o200k_base, cl100k_base).
type LintTokens struct {
	Variant  string           `json:"variant"`
	Encoding string           `json:"encoding"`
	Total    int64            `json:"total"` // the sum over the tools
	Tools    []LintToolTokens `json:"tools"`
}

// LintToolTokens is one tool's definition's count.
type LintToolTokens struct {
	Tool   string `json:"tool"`
	Tokens int64  `json:"tokens"`
}

// MaxLintTools bounds the tools of one lint_tokens entry (herd refuses
// worlds and servers with more tools than its --max-tools, 2,000 by
// default).
const MaxLintTools = 100_000

// validateLintTokens checks every count is in range and each total is the
// sum of its tools.
func (r *Results) validateLintTokens() error {
	for i, lt := range r.LintTokens {
		if len(lt.Tools) > MaxLintTools {
			return fmt.Errorf("lint_tokens[%d] (%s): %d tools, more than %d", i, lt.Variant, len(lt.Tools), MaxLintTools)
		}
		var sum int64
		for j, t := range lt.Tools {
			if err := checkCount(fmt.Sprintf("lint_tokens[%d].tools[%d].tokens", i, j), t.Tokens); err != nil {
				return err
			}
			sum += t.Tokens // each at most MaxCount, at most MaxLintTools of them: no overflow
		}
		if sum != lt.Total {
			return fmt.Errorf("lint_tokens[%d] (%s): total is %d, the tools add up to %d", i, lt.Variant, lt.Total, sum)
		}
	}
	return nil
}
