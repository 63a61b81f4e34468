package main

import (
	"strings"
	"testing"
)

// An empty --http or --control address is a mistake (an unset variable in
// a script), refused with exit 2: it is not a request for stdio.
func TestServeRefusesAnEmptyAddress(t *testing.T) {
	for _, flag := range []string{"--http", "--control"} {
		code, out, errOut := runHerd(t, "serve", "mock:crm", flag, "")
		if code != exitUsage || !strings.Contains(errOut, flag+": the address is empty") || out != "" {
			t.Errorf("serve %s '': exit %d, stdout %q, stderr %q", flag, code, out, errOut)
		}
	}
}
