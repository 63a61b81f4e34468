// Package field is the error a library returns for a configuration it
// refuses, in the words of the configuration's field: only a command line
// knows its flags, and it maps each field to the flag that sets it.
package field

import (
	"errors"
	"fmt"
)

// Error is a refused configuration field: Field names it as the library's
// configuration does ("Agents", "Load.Duration").
type Error struct {
	Field string
	Err   error
}

func (e *Error) Error() string { return e.Field + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Errorf is an Error for field with a formatted message.
func Errorf(field, format string, args ...any) error {
	return &Error{Field: field, Err: fmt.Errorf(format, args...)}
}

// As finds the Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var fe *Error
	ok := errors.As(err, &fe)
	return fe, ok
}
