package scenario

import (
	"fmt"
	"testing"
)

func TestVerdict(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	base := Summary{BaselineOK: 95.44, PeakConcurrency: 865, Amplification: 1.094,
		Attempts: 9331, Requests: 8529, Succeeded: 8509, Open: 20}
	with := func(mod func(*Summary)) Summary {
		s := base
		mod(&s)
		return s
	}
	const counts = "; 9331 attempts for 8529 requests (amplification 1.09): 8509 ok, 0 gave up, 20 open"
	for _, tc := range []struct {
		name     string
		s        Summary
		ph       Phase
		headline string
		tone     string
	}{
		{"before the scheduled outage", base, Phase{Scheduled: true},
			"baseline 95.4 ok/s; no outage yet; peak concurrency 865", ""},
		{"no outage at all", base, Phase{},
			"baseline 95.4 ok/s; no outage; peak concurrency 865", ""},
		{"no outage ended, at the end", base, Finished,
			"baseline 95.4 ok/s; no outage ended; peak concurrency 865", ""},
		{"outage in progress", base, Phase{Down: true, AnyOutage: true},
			"baseline 95.4 ok/s; outage in progress; peak concurrency 865", ""},
		{"collapsed so far", with(func(s *Summary) { s.Collapsed = true }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; not recovered yet; peak concurrency 865", ToneWarn},
		{"collapsed at the end", with(func(s *Summary) { s.Collapsed = true }), Finished,
			"baseline 95.4 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 865", ToneBad},
		{"server back, service not yet", with(func(s *Summary) { s.ServerRecoveredAfter = f(1.6) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; server recovered 1.6s after the outage, service not yet; peak concurrency 865", ""},
		{"server back, service never", with(func(s *Summary) { s.ServerRecoveredAfter = f(1.6) }), Finished,
			"baseline 95.4 ok/s; server recovered 1.6s after the outage, service recovered never; peak concurrency 865", ""},
		{"service back, server not yet", with(func(s *Summary) { s.ServiceRecoveredAfter = f(3) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; service recovered 3.0s after the outage, server not yet; peak concurrency 865", ToneGood},
		{"recovered", with(func(s *Summary) { s.ServerRecoveredAfter, s.ServiceRecoveredAfter = f(1.6), f(36) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; server recovered 1.6s after the outage, service recovered 36.0s after the outage; peak concurrency 865", ToneGood},
		{"stopped by the budget", with(func(s *Summary) {
			s.Collapsed, s.Stopped = true, "collapsed: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB)"
		}), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; COLLAPSED: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB); peak concurrency 865", ToneBad},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.s.Verdict(tc.ph)
			if v.Headline != tc.headline || v.Tone != tc.tone {
				t.Errorf("Verdict = %q (%q)\nwant      %q (%q)", v.Headline, v.Tone, tc.headline, tc.tone)
			}
			if v.Text != tc.headline+counts {
				t.Errorf("Text = %q, want the headline and %q", v.Text, counts)
			}
			if h := tc.s.Headline(tc.ph); h != (Verdict{Headline: v.Headline, Tone: v.Tone}) {
				t.Errorf("Headline = %+v, want Verdict's without its text", h)
			}
		})
	}
}

// A finished lane's verdict, as backofflab run prints it.
func ExampleSummary_Verdict() {
	after := 1.6
	s := Summary{BaselineOK: 95.4, ServerRecoveredAfter: &after, PeakConcurrency: 865,
		Attempts: 9331, Requests: 8529, Amplification: 9331.0 / 8529, Succeeded: 8509, Open: 20}
	fmt.Println(s.Verdict(Finished).Text)
	// Output:
	// baseline 95.4 ok/s; server recovered 1.6s after the outage, service recovered never; peak concurrency 865; 9331 attempts for 8529 requests (amplification 1.09): 8509 ok, 0 gave up, 20 open
}
