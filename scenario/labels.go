package scenario

import "slices"

// Plain-language labels of the vocabulary, for the page: it shows each
// beside its vocabulary name (a legend "clients waiting to retry
// in_backoff", a control "minimum delay a.min_delay"), so that a reader who
// does not know the names can follow and one who does can still find them.
// Each is a column of its name's row: a column's in columnTable, a
// parameter's in Table (TestEveryNameHasALabel).

// ColumnLabel returns the column name's label, or the name itself for a
// name that is not a column.
func ColumnLabel(name string) string {
	if i := slices.IndexFunc(columnTable, func(c column) bool { return c.name == name }); i >= 0 {
		return columnTable[i].label
	}
	return name
}

// Label returns the parameter's label, or its name when it has none.
func (p Param) Label() string {
	if p.label != "" {
		return p.label
	}
	return p.Name
}

// ChoiceLabel returns the words for value of enum parameter param: its
// label where the value is a name a reader would have to know, else the
// value itself, which is a plain word.
func ChoiceLabel(param, value string) string {
	i := slices.IndexFunc(Table, func(p Param) bool { return p.Name == param })
	if i >= 0 {
		if l, ok := Table[i].choiceLabels[value]; ok {
			return l
		}
	}
	return value
}
