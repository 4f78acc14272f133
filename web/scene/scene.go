// Package scene holds what every view of a scenario shares: a URL's
// scenario and its one decoding (decode.go: Scenario, Decode,
// DecodeScenario, the speed and the lanes' sources), the rows of the
// charts that draw a run (charts.go: ChartSpecs, with their ECharts
// options), the vocabulary's names set apart as code in a page's
// sentences (prose.go, prose.templ: ProseOf, Prose), and a lane's values
// and number boxes as a page sets them (lane.go). The views (the
// playground, the seed bands, the phase map, the advice, the library
// import and export) import it, never one another.
package scene
