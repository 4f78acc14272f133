// Package static holds the server's shared browser assets, embedded in
// the binary so that the page needs no network: ECharts (vendored,
// Apache-2.0), the pages' scripts (common.js, the kit every view shares;
// the playground's, play-*.js and app.js; those of the views that have no
// package of their own; a view package embeds its script itself) and
// their style sheet.
package static

import "embed"

// FS holds every asset under its path relative to this folder, such as
// app.js and vendor/echarts/echarts.min.js.
//
//go:embed *.js *.css vendor
var FS embed.FS
