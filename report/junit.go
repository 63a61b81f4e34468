package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"time"
)

// The shape is the one CI tools read (Jenkins' junit-10 schema, which
// GitHub and GitLab reporters accept): testsuites > testsuite >
// (properties?, testcase*); tests, failures, errors, skipped and time on
// both levels, consistent with the cases; time in seconds.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name       string           `xml:"name,attr"`
	Tests      int              `xml:"tests,attr"`
	Failures   int              `xml:"failures,attr"`
	Errors     int              `xml:"errors,attr"`
	Skipped    int              `xml:"skipped,attr"`
	Time       string           `xml:"time,attr"`
	Timestamp  string           `xml:"timestamp,attr,omitempty"`
	Hostname   string           `xml:"hostname,attr,omitempty"`
	Properties *junitProperties `xml:"properties,omitempty"`
	Cases      []junitCase      `xml:"testcase"`
	seconds    float64
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
	Time      string        `xml:"time,attr"`
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
// outcome class of each goal and variant, each with its rate in
// system-out. An outcome case is judged only when a threshold covers its
// class (a threshold on the class, for its goal or all goals, under its
// variant or all): by that limit on the case's own rate, with the same rule
// as every verdict. A case no threshold covers is skipped, saying so: a
// 26% destroyed_data rate is never a green test.
//
// Times: the testsuites and the outcome suite carry the run's measured wall
// time; each outcome case its share of it, the wall time split evenly over
// the run's episodes and, within a goal and variant, over its cases.
// Thresholds are judged after the run and take no time. Without timing
// (a document that has none) every time is 0.
func JUnit(w io.Writer, res *Results) error {
	props := []junitProperty{
		{"world", fmt.Sprintf("%s v%d", res.Run.World.Name, res.Run.World.Version)},
		{"seed", strconv.FormatUint(res.Run.Seed, 10)},
		{"agents", strconv.Itoa(res.Run.Agents)},
		{"episodes", strconv.Itoa(res.Episodes)},
		{"fingerprint", res.Fingerprint()},
		{"command", res.Run.Command},
	}
	seconds := 0.0
	if res.Timing != nil && res.Timing.Seconds > 0 {
		seconds = res.Timing.Seconds
	}
	thresholds := junitSuite{Name: "herd.thresholds", Properties: &junitProperties{props}}
	for _, v := range res.Thresholds {
		c := junitCase{Classname: "herd.thresholds", Name: v.Threshold, Time: junitTime(0),
			SystemOut: fmt.Sprintf("%s: %s, limit %s (n=%d) %s", v.Result, VerdictValue(v), LimitText(v), v.N, v.Note)}
		markCase(&c, &thresholds, v)
		thresholds.Cases = append(thresholds.Cases, c)
	}
	outcomes := junitSuite{Name: "herd.outcomes", seconds: seconds}
	rates := res.ClassRates()
	perGoalVariant := map[goalVariant]int{}
	for _, cr := range rates {
		if cr.Severity == SeverityHarmful {
			perGoalVariant[goalVariant{cr.Goal, cr.Variant}]++
		}
	}
	for _, cr := range rates {
		if cr.Severity != SeverityHarmful {
			continue
		}
		share := 0.0
		if res.Episodes > 0 {
			share = seconds * float64(cr.N) / float64(res.Episodes) / float64(perGoalVariant[goalVariant{cr.Goal, cr.Variant}])
		}
		c := junitCase{Classname: "herd.outcomes." + cr.Goal, Name: cr.Class + " @" + cr.Variant, Time: junitTime(share),
			SystemOut: fmt.Sprintf("%s of %d episodes ended in %s", RateText(cr.Rate), cr.N, cr.Class) + sampledDiffNote(res, cr.Goal, cr.Variant, cr.Class)}
		if v, ok := coveringVerdict(res, cr); ok {
			c.SystemOut += fmt.Sprintf("; judged by %s: %s", v.Threshold, v.Result)
			markCase(&c, &outcomes, v)
		} else {
			msg := fmt.Sprintf("no threshold covers %s; set one, e.g. '%s:%s<1%%'", cr.Class, cr.Goal, cr.Class)
			c.Skipped = &junitMessage{Message: msg}
			outcomes.Skipped++
		}
		outcomes.Cases = append(outcomes.Cases, c)
	}
	doc := junitSuites{Name: "herd readiness", Time: junitTime(seconds)}
	for _, s := range []*junitSuite{&thresholds, &outcomes} {
		s.Tests = len(s.Cases)
		s.Time = junitTime(s.seconds)
		if res.Timing != nil {
			s.Timestamp = junitTimestamp(res.Timing.Started)
			s.Hostname = res.Timing.Host
		}
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

// coveringVerdict judges one goal × class × variant rate by the first
// threshold on that class whose goal and variant include it, with that
// threshold's limit and the rule every verdict follows.
func coveringVerdict(res *Results, cr ClassRate) (Verdict, bool) {
	for _, v := range res.Thresholds {
		if v.Metric != cr.Class || (v.Goal != "" && v.Goal != cr.Goal) {
			continue
		}
		t, err := ParseThreshold(v.Threshold)
		if err != nil || (t.Variant != "" && t.Variant != cr.Variant) {
			continue
		}
		t.Scope, t.Variant = cr.Goal, cr.Variant
		return evaluate(res, t), true
	}
	return Verdict{}, false
}

// junitTime is seconds as JUnit writes them: a decimal with millisecond
// precision.
func junitTime(s float64) string {
	return strconv.FormatFloat(s, 'f', 3, 64)
}

// junitTimestamp is an RFC 3339 start time as the schema's xs:dateTime
// without a zone ("2026-01-02T15:04:05"), or "" when it is not one.
func junitTimestamp(started string) string {
	t, err := time.Parse(time.RFC3339, started)
	if err != nil {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05")
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
