package lint

import (
	"fmt"
	"math"
)

// Dimensions of the rubric, in the order they are reported.
const (
	DimPurpose        = "purpose"
	DimUsage          = "usage"
	DimSideEffects    = "side_effects"
	DimParams         = "params"
	DimLength         = "length"
	DimDisambiguation = "disambiguation"
	DimAnnotations    = "annotations"
)

// Dimensions lists every dimension in report order.
var Dimensions = []string{DimPurpose, DimUsage, DimSideEffects, DimParams, DimLength, DimDisambiguation, DimAnnotations}

// Levels of a finding.
const (
	LevelError   = "error"   // an agent is likely to do damage because of it; fails CI
	LevelWarning = "warning" // an agent is likely to pick wrong or fill arguments wrong
	LevelInfo    = "info"    // would help, not likely to cause harm on its own
)

// Finding is one remark about one tool.
type Finding struct {
	Tool      string `json:"tool"`
	Variant   string `json:"variant"`
	Dimension string `json:"dimension"`
	Level     string `json:"level"`
	Message   string `json:"message"`
	Fix       string `json:"fix"`
}

// DimensionScore is a 0–100 score on one dimension.
type DimensionScore struct {
	Dimension string  `json:"dimension"`
	Score     float64 `json:"score"`
}

// ToolScore is one tool's score on each dimension, and their mean.
type ToolScore struct {
	Tool string `json:"tool"`
	// Effect is the tool's class as the rubric judged it: read, write,
	// destructive or unknown (see Effect).
	Effect     Effect           `json:"effect"`
	Score      float64          `json:"score"`
	Dimensions []DimensionScore `json:"dimensions"`
}

// Dimension returns the tool's score on a dimension (-1 when absent).
func (t ToolScore) Dimension(name string) float64 {
	for _, d := range t.Dimensions {
		if d.Dimension == name {
			return d.Score
		}
	}
	return -1
}

// Counts are the findings per level.
type Counts struct {
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	Infos    int `json:"infos"`
}

func (c Counts) String() string {
	return fmt.Sprintf("%d %s, %d %s, %d info", c.Errors, pluralWord(c.Errors, "error", "errors"),
		c.Warnings, pluralWord(c.Warnings, "warning", "warnings"), c.Infos)
}

func pluralWord(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// Report is the linter's verdict on one variant of a tool set.
type Report struct {
	World   string `json:"world,omitempty"`
	Variant string `json:"variant"`
	// Overridden lists the tools whose text came from a descriptions file.
	Overridden []string `json:"overridden,omitempty"`
	// Score is the mean of the dimension scores, 0–100.
	Score float64 `json:"score"`
	// Dimensions are the per-dimension scores averaged over the tools.
	Dimensions []DimensionScore `json:"dimensions"`
	Counts     Counts           `json:"counts"`
	Tools      []ToolScore      `json:"tools"`
	Findings   []Finding        `json:"findings"`
	// Confusions are the reader model's measurements behind the
	// disambiguation findings.
	Confusions []Confusion `json:"confusions,omitempty"`
	// Tokens is what the tools' definitions cost a model, when counted.
	Tokens *TokenCost `json:"tokens,omitempty"`
	// Notes say what the linter could not measure, and why.
	Notes []string `json:"notes,omitempty"`
}

// Tool returns the named tool's scores and whether it was linted.
func (r *Report) Tool(name string) (ToolScore, bool) {
	for _, t := range r.Tools {
		if t.Tool == name {
			return t, true
		}
	}
	return ToolScore{}, false
}

// Dimension returns the averaged score of a dimension (-1 when absent).
func (r *Report) Dimension(name string) float64 {
	for _, d := range r.Dimensions {
		if d.Dimension == name {
			return d.Score
		}
	}
	return -1
}

// round1 rounds to one decimal, so that reports print and compare stably.
func round1(x float64) float64 { return math.Round(x*10) / 10 }
