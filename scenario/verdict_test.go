package scenario

import (
	"fmt"
	"strings"
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
	// The headline in plain words, case by case: the time to recover is
	// the service's, what the clients felt.
	plain := map[string]string{
		"before the scheduled outage":       "Running normally until the outage",
		"no outage at all":                  "Running normally",
		"no outage ended, at the end":       "No outage to recover from",
		"outage in progress":                "Server stopped — outage in progress",
		"collapsed so far":                  "Not recovered yet",
		"collapsed at the end":              "Never recovered — the server stayed overloaded",
		"server back, service not yet":      "Server calm again, answers not yet back",
		"server back, service never":        "Server calm again, but answers never recovered",
		"service back, server never":        "Recovered 3.0 s after the outage",
		"service back, server not yet":      "Recovered 3.0 s after the outage",
		"recovered":                         "Recovered 36 s after the outage",
		"service back first":                "Recovered as soon as the outage ended",
		"recovered, at the end":             "Recovered 36 s after the outage",
		"stopped by the budget, at the end": "Never recovered — the run was stopped",
		"stopped by the budget":             "Never recovered — the run was stopped",
	}
	const counts = "; 9331 attempts for 8529 requests (amplification 1.09): 8509 ok, 0 gave up, 20 open"
	for _, tc := range []struct {
		name     string
		s        Summary
		ph       Phase
		headline string
		tone     string
		brief    string
	}{
		{"before the scheduled outage", base, Phase{Scheduled: true},
			"baseline 95.4 ok/s; no outage yet; peak concurrency 865", "", "no outage yet"},
		{"no outage at all", base, Phase{},
			"baseline 95.4 ok/s; no outage; peak concurrency 865", "", "no outage"},
		{"no outage ended, at the end", base, Finished,
			"baseline 95.4 ok/s; no outage ended; peak concurrency 865", "", "no outage to recover from"},
		{"outage in progress", base, Phase{Down: true, AnyOutage: true},
			"baseline 95.4 ok/s; outage in progress; peak concurrency 865", "", "outage in progress"},
		{"collapsed so far", with(func(s *Summary) { s.Collapsed = true }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; not recovered yet; peak concurrency 865", ToneWarn, "not recovered yet"},
		{"collapsed at the end", with(func(s *Summary) { s.Collapsed = true }), Finished,
			"baseline 95.4 ok/s; COLLAPSED: neither server nor service recovered; peak concurrency 865", ToneBad, "never recovered"},
		{"server back, service not yet", with(func(s *Summary) { s.ServerRecoveredAfter = f(1.6) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; server back 1.6s after the outage (concurrency at its healthy level), service not yet (ok/s under 90 % of baseline); peak concurrency 865", "", "server back 1.6s after the outage (concurrency at its healthy level), service not yet (ok/s under 90 % of baseline)"},
		{"server back, service never", with(func(s *Summary) { s.ServerRecoveredAfter = f(1.6) }), Finished,
			"baseline 95.4 ok/s; server back 1.6s after the outage (concurrency at its healthy level), service never (ok/s under 90 % of baseline); peak concurrency 865", "", "answers never recovered"},
		{"service back, server never", with(func(s *Summary) { s.ServiceRecoveredAfter = f(3) }), Finished,
			"baseline 95.4 ok/s; service back 3.0s after the outage (ok/s at 90 % of baseline), server never (concurrency above its healthy level); peak concurrency 865", ToneGood, "recovered in 3.0 s"},
		{"service back, server not yet", with(func(s *Summary) { s.ServiceRecoveredAfter = f(3) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; service back 3.0s after the outage (ok/s at 90 % of baseline), server not yet (concurrency above its healthy level); peak concurrency 865", ToneGood, "service back 3.0s after the outage (ok/s at 90 % of baseline), server not yet (concurrency above its healthy level)"},
		{"recovered", with(func(s *Summary) { s.ServerRecoveredAfter, s.ServiceRecoveredAfter = f(1.6), f(36) }), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; server back 1.6s after the outage (concurrency at its healthy level), then service 36.0s after (ok/s at 90 % of baseline); peak concurrency 865", ToneGood, "server back 1.6s after the outage (concurrency at its healthy level), then service 36.0s after (ok/s at 90 % of baseline)"},
		// The service may come back before the server: answers flow while
		// the queue still drains. The clause says so in that order.
		{"service back first", with(func(s *Summary) { s.ServerRecoveredAfter, s.ServiceRecoveredAfter = f(1.2), f(0) }), Finished,
			"baseline 95.4 ok/s; service back 0.0s after the outage (ok/s at 90 % of baseline), then server 1.2s after (concurrency at its healthy level); peak concurrency 865", ToneGood, "recovered at once"},
		{"recovered, at the end", with(func(s *Summary) { s.ServerRecoveredAfter, s.ServiceRecoveredAfter = f(1.6), f(36) }), Finished,
			"baseline 95.4 ok/s; server back 1.6s after the outage (concurrency at its healthy level), then service 36.0s after (ok/s at 90 % of baseline); peak concurrency 865", ToneGood, "recovered in 36 s"},
		{"stopped by the budget, at the end", with(func(s *Summary) { s.Collapsed, s.Stopped = true, "collapsed: stopped at t = 1.6 s" }), Finished,
			"baseline 95.4 ok/s; COLLAPSED: stopped at t = 1.6 s; peak concurrency 865", ToneBad, "never recovered"},
		{"stopped by the budget", with(func(s *Summary) {
			s.Collapsed, s.Stopped = true, "collapsed: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB)"
		}), Phase{AnyOutage: true},
			"baseline 95.4 ok/s; COLLAPSED: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB); peak concurrency 865", ToneBad, "COLLAPSED: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.s.Verdict(tc.ph)
			if v.Figures != tc.headline || v.Tone != tc.tone {
				t.Errorf("Figures = %q (%q)\nwant      %q (%q)", v.Figures, v.Tone, tc.headline, tc.tone)
			}
			if want := plain[tc.name]; v.Headline != want {
				t.Errorf("Headline = %q, want %q", v.Headline, want)
			}
			rate := "Before the outage, the server answered 95 requests a second."
			if strings.HasPrefix(v.Headline, "Running normally") || v.Headline == "No outage to recover from" {
				rate = "The server answered 95 requests a second."
			}
			for _, w := range []string{rate, "At most 865 requests were inside the server at once."} {
				if !strings.Contains(v.Details, w) {
					t.Errorf("Details = %q, want it to say %q", v.Details, w)
				}
			}
			if v.Brief != tc.brief {
				t.Errorf("Brief = %q, want %q", v.Brief, tc.brief)
			}
			if v.Text != v.Headline+". "+tc.headline+counts {
				t.Errorf("Text = %q, want the headline and %q", v.Text, counts)
			}
			if h := tc.s.Headline(tc.ph); h != (Verdict{Headline: v.Headline, Details: v.Details, Tone: v.Tone}) {
				t.Errorf("Headline = %+v, want Verdict's without its figures, text and brief", h)
			}
		})
	}
}

// TestVerdictStorm: a lane that never recovered stormed when its clients
// sent more retries than first attempts (2 attempts per request and more),
// and the headline says so; below, the server's load is to blame.
func TestVerdictStorm(t *testing.T) {
	for _, tc := range []struct {
		amp  float64
		head string
	}{
		{15.5, "Never recovered — a retry storm"},
		{2, "Never recovered — a retry storm"},
		{1.99, "Never recovered — the server stayed overloaded"},
	} {
		s := Summary{BaselineOK: 95.3, Collapsed: true, Amplification: tc.amp}
		if v := s.Verdict(Finished); v.Headline != tc.head {
			t.Errorf("amplification %v: headline %q, want %q", tc.amp, v.Headline, tc.head)
		}
	}
}

// A finished lane's verdict, as backofflab run prints it.
func ExampleSummary_Verdict() {
	after := 1.6
	s := Summary{BaselineOK: 95.4, ServerRecoveredAfter: &after, PeakConcurrency: 865,
		Attempts: 9331, Requests: 8529, Amplification: 9331.0 / 8529, Succeeded: 8509, Open: 20}
	fmt.Println(s.Verdict(Finished).Text)
	// Output:
	// Server calm again, but answers never recovered. baseline 95.4 ok/s; server back 1.6s after the outage (concurrency at its healthy level), service never (ok/s under 90 % of baseline); peak concurrency 865; 9331 attempts for 8529 requests (amplification 1.09): 8509 ok, 0 gave up, 20 open
}

// TestVerdictTiers: a lane with layered retries says, in its headline, how
// many tiers it chains and the server's attempts per request to one
// decimal, and in its text what each inner tier sent; SetTiers derives
// the figure from the bottom tier's attempts, and a lane without tiers
// says nothing of them.
func TestVerdictTiers(t *testing.T) {
	s := Summary{BaselineOK: 95.44, PeakConcurrency: 865, Amplification: 3, Attempts: 300, Requests: 100, GaveUp: 100}
	s.SetTiers([]int64{900, 2701})
	if s.BottomAmplification != 27.01 {
		t.Errorf("BottomAmplification = %v, want 2701/100", s.BottomAmplification)
	}
	v := s.Verdict(Finished)
	if !strings.Contains(v.Details, "Its 3 layers of retries sent 27.0 attempts to the server per request.") {
		t.Errorf("Details = %q, want the layers' attempts per request", v.Details)
	}
	const head = "baseline 95.4 ok/s; no outage ended; peak concurrency 865; 3 tiers: 27.0 server attempts per request"
	if v.Figures != head {
		t.Errorf("Figures = %q\nwant       %q", v.Figures, head)
	}
	const text = "No outage to recover from. " + head + "; 300 attempts for 100 requests (amplification 3.00): 0 ok, 100 gave up, 0 open" +
		"; attempts sent by tier 2: 900, tier 3: 2701 (27.01 at the server per request)"
	if v.Text != text {
		t.Errorf("Text = %q\nwant   %q", v.Text, text)
	}
	s.SetTiers(nil)
	if s.TierAttempts != nil || s.BottomAmplification != 0 || s.LayeredFigure() != "" {
		t.Errorf("without tiers: %+v", s)
	}
}

// TestVerdictAfterAFault: a lane judged after a fault that is not an
// outage (Summary.Fault) is judged as after an outage, and its words name
// the fault, never an outage the run did not have.
func TestVerdictAfterAFault(t *testing.T) {
	back := 13.0
	for _, tc := range []struct {
		name string
		s    Summary
		head string
		tone string
	}{
		{"collapsed, a storm", Summary{BaselineOK: 246.6, Collapsed: true, Amplification: 2.54, Fault: FaultLoadSpike},
			"Never recovered — a retry storm", ToneBad},
		{"collapsed, overloaded", Summary{BaselineOK: 246.6, Collapsed: true, Amplification: 1.2, Fault: FaultCapacityDrop},
			"Never recovered — the server stayed overloaded", ToneBad},
		{"recovered", Summary{BaselineOK: 246.6, ServiceRecoveredAfter: &back, Amplification: 1, Fault: FaultLoadSpike},
			"Recovered 13 s after the load spike", ToneGood},
		{"recovered at once", Summary{BaselineOK: 246.6, ServiceRecoveredAfter: new(0.0), ServerRecoveredAfter: new(0.0), Fault: FaultErrorBurst},
			"Recovered as soon as the error burst ended", ToneGood},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.s.Verdict(Finished)
			if v.Headline != tc.head || v.Tone != tc.tone {
				t.Errorf("headline %q, tone %q; want %q, %q", v.Headline, v.Tone, tc.head, tc.tone)
			}
			for _, text := range []string{v.Details, v.Text, v.Brief} {
				if strings.Contains(text, "outage") {
					t.Errorf("the verdict after a %s speaks of an outage: %q", tc.s.Fault, text)
				}
			}
			if words := FaultWords(tc.s.Fault); !strings.Contains(v.Details, "Before "+words) {
				t.Errorf("details %q do not say the rate before %s", v.Details, words)
			}
		})
	}
}
