package cli

import (
	"flag"

	"github.com/backofflab/backofflab/scenario"
)

// viewFlag is the flag of a many-run parameter (scenario.ViewTable) as one
// view reads it: seeds or parallel. Its help is the row's, and its value
// is read by the row, so that every view words its range and its errors
// alike.
type viewFlag struct {
	row scenario.Param
	raw string
}

// newViewFlag defines on fs the flag of the many-run row name as view reads
// it, at the row's default for view until the flag is given.
func newViewFlag(fs *flag.FlagSet, name string, view scenario.View) *viewFlag {
	f := &viewFlag{row: scenario.MustViewParam(name, view)}
	f.raw = f.row.Default
	fs.Func(name, f.row.FlagHelp(), func(s string) error { f.raw = s; return nil })
	return f
}

// Int returns the flag's value, or a usage error (a *scenario.ParamError)
// naming the flag, its value and the row's range for the view.
func (f *viewFlag) Int() (int, error) {
	var n int
	if err := f.row.Set(&n, f.row.Name, f.raw); err != nil {
		return 0, usageError{err}
	}
	return n, nil
}

// Raw returns the flag's text as given, or the row's default.
func (f *viewFlag) Raw() string { return f.raw }
