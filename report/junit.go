package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
}

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit writes JUnit XML for CI systems: one test case per threshold (a
// failure when NOT READY, skipped when INCONCLUSIVE) and one per harmful
// outcome class of each goal and variant (a failure when a threshold on that
// class is NOT READY), each with its rate in system-out.
func JUnit(w io.Writer, res *Results) error {
	props := []junitProperty{
		{"world", fmt.Sprintf("%s v%d", res.Run.World.Name, res.Run.World.Version)},
		{"seed", strconv.FormatUint(res.Run.Seed, 10)},
		{"agents", strconv.Itoa(res.Run.Agents)},
		{"episodes", strconv.Itoa(res.Episodes)},
		{"fingerprint", res.Fingerprint()},
		{"command", res.Run.Command},
	}
	thresholds := junitSuite{Name: "herd.thresholds", Properties: &junitProperties{props}}
	for _, v := range res.Thresholds {
		c := junitCase{Classname: "herd.thresholds", Name: v.Threshold,
			SystemOut: fmt.Sprintf("%s: %s, limit %s (n=%d) %s", v.Result, VerdictValue(v), LimitText(v), v.N, v.Note)}
		markCase(&c, &thresholds, v)
		thresholds.Cases = append(thresholds.Cases, c)
	}
	outcomes := junitSuite{Name: "herd.outcomes"}
	for _, cr := range res.ClassRates() {
		if cr.Severity != SeverityHarmful {
			continue
		}
		c := junitCase{Classname: "herd.outcomes." + cr.Goal, Name: cr.Class + " @" + cr.Variant,
			SystemOut: fmt.Sprintf("%s of %d episodes ended in %s", RateText(cr.Rate), cr.N, cr.Class) + sampledDiffNote(res, cr.Goal, cr.Variant, cr.Class)}
		for _, v := range res.Thresholds {
			if v.Metric == cr.Class && (v.Goal == "" || v.Goal == cr.Goal) && v.Variant == cr.Variant && v.Result == NotReady {
				markCase(&c, &outcomes, v)
				break
			}
		}
		outcomes.Cases = append(outcomes.Cases, c)
	}
	doc := junitSuites{Name: "herd readiness"}
	for _, s := range []*junitSuite{&thresholds, &outcomes} {
		s.Tests = len(s.Cases)
		doc.Tests += s.Tests
		doc.Failures += s.Failures
		doc.Skipped += s.Skipped
		doc.Suites = append(doc.Suites, *s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// markCase turns a NOT READY verdict into a failure and an INCONCLUSIVE one
// into a skip.
func markCase(c *junitCase, s *junitSuite, v Verdict) {
	msg := fmt.Sprintf("%s: %s, limit %s", v.Result, VerdictValue(v), LimitText(v))
	if v.Note != "" {
		msg += " — " + v.Note
	}
	switch v.Result {
	case NotReady:
		c.Failure = &junitMessage{Message: msg, Type: "NOT READY", Text: v.Threshold + ": " + msg}
		s.Failures++
	case Inconclusive:
		c.Skipped = &junitMessage{Message: msg}
		s.Skipped++
	}
}
