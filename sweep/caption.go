package sweep

import (
	"fmt"
	"strings"

	"github.com/backofflab/backofflab/scenario"
)

// ScenarioParts names what every cell of a map over p runs, name=value:
// each lane (scenario.LaneParts), then the run's shared parameters
// (scenario.SharedParts), leaving out the axes', whose values are the
// map's.
func ScenarioParts(p *scenario.Params, axes ...string) []string {
	var out []string
	for i := range p.Lanes {
		out = append(out, scenario.LaneParts(p, i, axes...)...)
	}
	return append(out, scenario.SharedParts(p, axes...)...)
}

// Captions say what each exported chart of the map s over p shows, by the
// chart's id: a lane's letter for its map, and "a/b" for the difference
// of lane b from lane a, for every ordered pair of lanes. Each names the
// map's axes with their ranges and steps, its seeds and its scenario
// (ScenarioParts).
func Captions(s Spec, p *scenario.Params) map[string]string {
	axis := func(a Axis) string {
		vs := a.Values()
		if len(vs) == 0 {
			return a.Name
		}
		return fmt.Sprintf("%s %s → %s (%d steps, %s)", a.Name, vs[0], vs[len(vs)-1], a.Steps, a.Scale)
	}
	var what []string
	what = append(what, "x: "+axis(s.X))
	if s.Y.Name != "" {
		what = append(what, "y: "+axis(s.Y))
	}
	if s.Seeds > 1 {
		what = append(what, fmt.Sprintf("%d seeds per cell", s.Seeds))
	}
	what = append(what, ScenarioParts(p, s.X.Name, s.Y.Name)...)
	tail := strings.Join(what, " · ")
	letter := func(i int) string { return scenario.LaneNames[i : i+1] }
	title := func(i int) string { return scenario.StrategyTitle(p.Lanes[i].Strategy) }
	n := min(len(p.Lanes), len(scenario.LaneNames))
	out := make(map[string]string, n*n)
	for a := range n {
		out[letter(a)] = fmt.Sprintf("backofflab phase map · lane %s: %s · %s", letter(a), title(a), tail)
		for b := range n {
			if a != b {
				out[letter(a)+"/"+letter(b)] = fmt.Sprintf("backofflab phase map · lane %s (%s) vs lane %s (%s) · %s",
					letter(a), title(a), letter(b), title(b), tail)
			}
		}
	}
	return out
}
