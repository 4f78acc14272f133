package kit

import (
	"net/url"
	"slices"
	"strconv"

	"github.com/backofflab/backofflab/bands"
	"github.com/backofflab/backofflab/scenario"
)

// BandsQuery is the seed bands view's own query: a playground's
// canonical query (the scenario, and the speed it played at) and seeds.
func BandsQuery(query string, seeds int) string {
	return query + "&" + bands.SeedsParam + "=" + strconv.Itoa(seeds)
}

// BandsLink is the seed bands view's URL for a playground's canonical
// query, as the playground's "Run K seeds" link opens it: the link lives
// here, not in either view, so that the playground need not import the
// bands' view, which imports the playground's state.
func BandsLink(query string, seeds int) string { return "/bands?" + BandsQuery(query, seeds) }

// AdviseKeeps reports whether the advice's view keeps the parameter
// name of a playground's query: the system and the outage (every shared
// row of scenario.Table) and lane a's values, its settings today. The
// other lanes are the advice's to fill, and the playground's own
// parameters (its speed, a lane's source, the live changes) are not a
// request's.
func AdviseKeeps(name string) bool {
	row, lane, ok := scenario.Lookup(name)
	inTable := slices.ContainsFunc(scenario.Table, func(p scenario.Param) bool { return p.Name == row.Name })
	return ok && inTable && (lane == 0) == row.Lane
}

// AdviseLink is the advice's URL for a playground's query (a phase map's
// scenario), with the same system and outage and lane a as the settings
// today: the link lives here, as BandsLink does, so that neither view
// imports the other.
func AdviseLink(query string) string {
	q, err := url.ParseQuery(query)
	if err != nil { // a query of ours, canonical: a bug
		return "/advise"
	}
	for name := range q {
		if !AdviseKeeps(name) {
			delete(q, name)
		}
	}
	return "/advise?" + q.Encode()
}
