package main

import (
	"strings"
	"testing"
)

// Shell completion offers the built-in worlds, and for the flags that
// name something of a world the names in the world the command line
// gives; formats and progress modes are fixed lists.
func TestCompletions(t *testing.T) {
	cases := []struct {
		line []string
		want []string
	}{
		{[]string{"swarm", "mock:"}, []string{"mock:crm", "mock:payments", "mock:shop", "mock:email", "mock:files"}},
		{[]string{"swarm", "serve:mock:s"}, []string{"serve:mock:shop"}},
		{[]string{"inspect", "mock:c"}, []string{"mock:crm"}},
		{[]string{"swarm", "mock:shop", "--goal", ""}, []string{"return_and_refund", "cancel_not_return", "redirect_order"}},
		{[]string{"swarm", "serve:mock:shop", "--goal", "c"}, []string{"cancel_not_return"}},
		{[]string{"swarm", "http://127.0.0.1:1/mcp", "--world", "mock:email", "--goal", ""}, []string{"send_receipt", "reply_in_thread", "block_sender"}},
		{[]string{"swarm", "mock:crm", "--variant", "clear,"}, []string{"clear,ambiguous"}},
		{[]string{"swarm", "mock:crm", "--variant", ""}, []string{"clear", "ambiguous"}},
		{[]string{"serve", "mock:payments", "--faults", ""}, []string{"none", "realistic", "hostile"}},
		{[]string{"explain", "mock:crm", "--goal", "hide_contact", "--persona", "ha"}, []string{"hasty"}},
		{[]string{"report", "run.json", "--format", ""}, []string{"terminal", "json", "md", "html", "junit", "badge"}},
		{[]string{"diff", "a.json", "b.json", "--format", ""}, []string{"terminal", "md", "json"}},
		{[]string{"swarm", "mock:crm", "--progress", ""}, []string{"auto", "always", "never"}},
		{[]string{"swarm", "nowhere.yaml", "--goal", ""}, nil}, // no world: nothing to offer
	}
	for _, c := range cases {
		code, out, errs := runHerd(t, append([]string{"__complete"}, c.line...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.line, code, errs)
			continue
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(l, ":") { // the last line is cobra's directive
				got = append(got, l)
			}
		}
		if strings.Join(got, " ") != strings.Join(c.want, " ") {
			t.Errorf("herd %v<TAB>: %q, want %q", c.line, got, c.want)
		}
	}
}
