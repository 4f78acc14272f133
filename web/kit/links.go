package kit

import (
	"strconv"

	"backofflab/bands"
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
