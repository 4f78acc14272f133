package scenario

import (
	"strings"
	"testing"
	"time"
)

// TestStillRecovering: a lane that has not recovered when the run ends is
// "still recovering" when its attempts and the server's load both fell by
// a tenth or more from the recovery window before the last to the last,
// and "never recovered" otherwise (attempts that fall while the server
// stays full are backoff's doing, not a recovery); a lane that never had
// two windows since the outage is not judged by its trend.
func TestStillRecovering(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name                string
		earlier, recent     int64 // attempts a tick in the two last windows
		loadFrom, loadTo    int   // the server's concurrency in them
		windows             int   // windows of ticks after the outage's end
		recovering          bool
		headline, brief     string
		tone                string
		outcome, detailWord string
	}{
		{"falling from 400/s to 220/s", 40, 22, 2800, 2150, 2, true, "Still recovering when the run ended", "still recovering", ToneWarn,
			"STILL RECOVERING: neither server nor service recovered yet, falling over the last 5s: attempts 220.0/s from 400.0/s, concurrency 2150 from 2800", "over the last 5.0 s its clients sent 220 attempts a second and the server held 2150 requests, down from 400 and 2800"},
		{"falling by exactly a tenth", 40, 36, 1000, 900, 3, true, "Still recovering when the run ended", "still recovering", ToneWarn,
			"STILL RECOVERING", "360 attempts a second and the server held 900 requests"},
		{"attempts falling by less than a tenth", 40, 37, 2800, 2150, 2, false, "Never recovered — a retry storm", "never recovered", ToneBad,
			"COLLAPSED: neither server nor service recovered", "kept retrying"},
		{"attempts falling, the server full", 40, 22, 4000, 3950, 2, false, "Never recovered — a retry storm", "never recovered", ToneBad,
			"COLLAPSED", "kept retrying"},
		{"steady", 40, 40, 4000, 4000, 2, false, "Never recovered — a retry storm", "never recovered", ToneBad,
			"COLLAPSED", "kept retrying"},
		{"rising", 30, 45, 3000, 3500, 2, false, "Never recovered — a retry storm", "never recovered", ToneBad,
			"COLLAPSED", "kept retrying"},
		{"one window only", 40, 22, 2800, 2150, 1, false, "Never recovered — a retry storm", "never recovered", ToneBad,
			"COLLAPSED", "kept retrying"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Defaults()
			d := NewDetector(p)
			at := time.Duration(0)
			tick := func(ok, sent int64, maxC int) {
				at += p.Tick
				d.Tick(at, ok, sent, maxC)
			}
			// 2 s of baseline at 100 ok/s, an outage of 2 s, then no answer
			// and the server full, the attempts as the case says.
			for range 20 {
				tick(10, 10, 5)
			}
			d.OutageStarted()
			for range 20 {
				tick(0, 40, 5)
			}
			d.OutageEnded(at)
			w := d.window
			for k := range tc.windows * w {
				sent, load := tc.recent, tc.loadTo
				if k < (tc.windows-1)*w {
					sent, load = tc.earlier, tc.loadFrom
				}
				tick(0, sent, load)
			}
			// 1000 requests: the attempts make them a storm (2 or more each).
			s := d.Summary(1000, 5000, 200, 0)
			if !s.Collapsed || s.Recovering != tc.recovering {
				t.Fatalf("collapsed %v, recovering %v (earlier %.1f/s, recent %.1f/s): want collapsed and recovering %v",
					s.Collapsed, s.Recovering, s.EarlierAttempts, s.RecentAttempts, tc.recovering)
			}
			v := s.Verdict(Finished)
			if v.Headline != tc.headline || v.Brief != tc.brief || v.Tone != tc.tone {
				t.Errorf("headline %q, brief %q, tone %q: want %q, %q, %q", v.Headline, v.Brief, v.Tone, tc.headline, tc.brief, tc.tone)
			}
			if !strings.Contains(v.Figures, tc.outcome) {
				t.Errorf("figures %q lack %q", v.Figures, tc.outcome)
			}
			if !strings.Contains(v.Details, tc.detailWord) {
				t.Errorf("details %q lack %q", v.Details, tc.detailWord)
			}
			// While the run goes on, the verdict waits: not recovered yet.
			if live := s.Verdict(Phase{AnyOutage: true}); live.Headline != "Not recovered yet" {
				t.Errorf("while running: %q", live.Headline)
			}
		})
	}
}
