// Package static holds the server's shared browser assets, embedded in
// the binary so that the page needs no network: ECharts (vendored,
// Apache-2.0), the scripts of the views that have no package of their
// own and common.js, the kit every view's script shares (a view package,
// such as the playground, embeds its scripts itself), and their style
// sheet.
package static

import "embed"

// FS holds every asset under its path relative to this folder, such as
// common.js and vendor/echarts/echarts.min.js.
//
//go:embed *.js *.css vendor
var FS embed.FS
