package cli

import (
	"flag"

	"github.com/backofflab/backofflab/scenario"
)

// studyFlag is the flag of a study parameter (scenario.StudyTable) as one
// tool reads it: seeds or parallel. Its help is the row's, and its value
// is read by the row, so that every tool words its range and its errors
// alike.
type studyFlag struct {
	row scenario.Param
	raw string
}

// newStudyFlag defines on fs the flag of the study row name as tool reads
// it, at the row's default for tool until the flag is given.
func newStudyFlag(fs *flag.FlagSet, name string, tool scenario.Tool) *studyFlag {
	f := &studyFlag{row: scenario.MustStudy(name, tool)}
	f.raw = f.row.Default
	fs.Func(name, f.row.FlagHelp(), func(s string) error { f.raw = s; return nil })
	return f
}

// Int returns the flag's value, or a usage error (a *scenario.ParamError)
// naming the flag, its value and the row's range for the tool.
func (f *studyFlag) Int() (int, error) {
	var n int
	if err := f.row.Set(&n, f.row.Name, f.raw); err != nil {
		return 0, usageError{err}
	}
	return n, nil
}

// Raw returns the flag's text as given, or the row's default.
func (f *studyFlag) Raw() string { return f.raw }
