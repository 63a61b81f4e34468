package swarm

import "github.com/herd-sh/herd/internal/field"

// FieldError is a configuration the run refuses, in the words of its
// field: Field names a Config field (or one of Load's, "Load.Duration"),
// and a command maps it to the flag that set it. Libraries speak of their
// fields; only the command line knows its flags. The swarm's targets
// (package target) return the same errors.
type FieldError = field.Error

// fieldErr is a FieldError for name with a formatted message.
func fieldErr(name, format string, args ...any) error { return field.Errorf(name, format, args...) }

// AsFieldError finds the FieldError in err's chain, if any.
func AsFieldError(err error) (*FieldError, bool) { return field.As(err) }
