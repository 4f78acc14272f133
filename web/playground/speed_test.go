package playground

import (
	"context"
	"net/url"
	"testing"

	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/simengine"
	"github.com/backofflab/backofflab/web/kit"
	"github.com/backofflab/backofflab/web/scene"
)

// TestDefaultSpeed: a URL without a speed plays at scene.DefaultSpeed, or at 1
// when a lane is real (real clients run in real time); a speed given is
// kept, so that a shared link means what it meant.
func TestDefaultSpeed(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"", scene.DefaultSpeed},
		{"clients=500", scene.DefaultSpeed},
		{"speed=1", "1"},
		{"speed=max", "max"},
		{"b.source=real", "1"},
		{"b.source=real&speed=1", "1"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			q, _ := url.ParseQuery(tc.query)
			sc, errs := scene.Decode(q, kit.DefaultLimits)
			if len(errs) > 0 {
				t.Fatalf("errors %v", errs)
			}
			if sc.Speed.Text != tc.want {
				t.Errorf("speed %q, want %q", sc.Speed.Text, tc.want)
			}
		})
	}
	if v := newView(pageInput{}); v.Speed.Value != scene.DefaultSpeed {
		t.Errorf("the page's speed menu shows %q, want %q", v.Speed.Value, scene.DefaultSpeed)
	}
}

// TestDefaultSpeedTellsTheLandingStory: at the default speed the landing
// view's story fits in about 30 s of watching: a few seconds of the
// steady state, the outage, lane b's recovery, and both verdicts when the
// run ends at 30 s.
func TestDefaultSpeedTellsTheLandingStory(t *testing.T) {
	p := scenario.Defaults()
	sums, err := simengine.Run(context.Background(), p, nil)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := scene.ParseSpeed(scene.DefaultSpeed)
	if err != nil {
		t.Fatal(err)
	}
	wall := func(virtual float64) float64 { return virtual / sp.Factor }
	start, end := p.OutageAt.Seconds(), (p.OutageAt + p.OutageFor).Seconds()
	b := sums[1]
	if !sums[0].Collapsed || b.ServerRecoveredAfter == nil || b.ServiceRecoveredAfter == nil {
		t.Fatalf("the landing view's verdicts: %+v, %+v", sums[0], b)
	}
	back := end + max(*b.ServerRecoveredAfter, *b.ServiceRecoveredAfter)
	t.Logf("at %s×: the outage at %.2f s, the resume at %.2f s, lane b back at %.2f s, the verdicts at %.2f s of watching",
		scene.DefaultSpeed, wall(start), wall(end), wall(back), wall(p.Duration.Seconds()))
	if w := wall(start); w < 3 {
		t.Errorf("the outage starts %.2f s into the page: too soon to see the steady state", w)
	}
	if w := wall(p.Duration.Seconds()); w != 30 {
		t.Errorf("the run ends %.2f s into the page, want 30 s", w)
	}
	if back >= p.Duration.Seconds() {
		t.Errorf("lane b is back at %.1f s, after the run's end", back)
	}
}
