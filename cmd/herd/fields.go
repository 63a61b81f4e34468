package main

import (
	"errors"
	"strings"

	"github.com/herd-sh/herd/swarm"
	"github.com/herd-sh/herd/swarm/target"
)

// flagOfField is the flag that sets each configuration field the swarm
// names in its errors (swarm.FieldError): the libraries speak of their
// fields, the command line of its flags.
var flagOfField = map[string]string{
	"Agents":           "agents",
	"Agent":            "agent",
	"Shard":            "shard",
	"Workers":          "workers",
	"Variants":         "variant",
	"Mix":              "mix",
	"Profile":          "faults",
	"Descriptions":     "descriptions",
	"Thresholds":       "threshold",
	"AllowHosts":       "allow-host",
	"AllowWrites":      "allow-writes",
	"Load":             "rate",
	"Rate":             "rate",
	"Arrival":          "arrival",
	"Load.Duration":    "duration",
	"Load.MaxInFlight": "max-in-flight",
	"WorldFile":        "world",
	"Token":            "token",
	"AllowRemote":      "allow-remote",
	"AllowOpenWorld":   "allow-open-world",
	"Select":           "tool",
	"Skip":             "skip-tool",
	"Processes":        "processes",
}

// flagErr maps a library error to the command's: a field error becomes
// one about the flag that set the field (exit 2), an unreachable target
// exits 3, anything else is bad input (exit 2).
func flagErr(err error) error {
	var unreachable *swarm.UnreachableError
	if errors.As(err, &unreachable) {
		return codeErr(exitUnreachable, err)
	}
	if errors.Is(err, target.ErrNoControlPlane) {
		return usageErrf("%v: add --control 127.0.0.1:0 to the command", err)
	}
	if fe, ok := swarm.AsFieldError(err); ok {
		if flag, known := flagOfField[fe.Field]; known {
			// The field's words become the flag's, wherever in the
			// message the field error sits (it may be wrapped in context).
			msg := strings.Replace(err.Error(), fe.Error(), "--"+flag+": "+fe.Err.Error(), 1)
			return usageErr(errors.New(msg))
		}
	}
	return usageErr(err)
}
