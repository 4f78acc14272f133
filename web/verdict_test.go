package web

import (
	"testing"

	"backofflab/scenario"
)

func TestVerdictOf(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	base := scenario.Summary{BaselineOK: 95.44, PeakConcurrency: 865, Amplification: 1.094}
	with := func(mod func(*scenario.Summary)) scenario.Summary {
		s := base
		mod(&s)
		return s
	}
	for _, tc := range []struct {
		name string
		s    scenario.Summary
		ph   runPhase
		text string
		tone string
	}{
		{"before the scheduled outage", base, runPhase{scheduled: true},
			"baseline 95.4 ok/s · no outage yet · peak concurrency 865 · 1.09 attempts per request", ""},
		{"no outage at all", base, runPhase{},
			"baseline 95.4 ok/s · no outage · peak concurrency 865 · 1.09 attempts per request", ""},
		{"outage in progress", base, runPhase{down: true, anyOutage: true},
			"baseline 95.4 ok/s · outage in progress · peak concurrency 865 · 1.09 attempts per request", ""},
		{"collapsed so far", with(func(s *scenario.Summary) { s.Collapsed = true }), runPhase{anyOutage: true},
			"baseline 95.4 ok/s · not recovered yet · peak concurrency 865 · 1.09 attempts per request", "warn"},
		{"collapsed at the end", with(func(s *scenario.Summary) { s.Collapsed = true }), runPhase{anyOutage: true, done: true},
			"baseline 95.4 ok/s · collapsed: neither recovered · peak concurrency 865 · 1.09 attempts per request", "bad"},
		{"server back, service not yet", with(func(s *scenario.Summary) { s.ServerRecoveredAfter = f(1.6) }), runPhase{anyOutage: true},
			"baseline 95.4 ok/s · server recovered 1.6 s after the outage · service not recovered yet · peak concurrency 865 · 1.09 attempts per request", ""},
		{"recovered", with(func(s *scenario.Summary) { s.ServerRecoveredAfter, s.ServiceRecoveredAfter = f(1.6), f(36) }), runPhase{anyOutage: true, done: true},
			"baseline 95.4 ok/s · server recovered 1.6 s after the outage · service recovered 36.0 s after · peak concurrency 865 · 1.09 attempts per request", "good"},
		{"stopped by the budget", with(func(s *scenario.Summary) {
			s.Collapsed, s.Stopped = true, "collapsed: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB)"
		}), runPhase{anyOutage: true},
			"baseline 95.4 ok/s · collapsed: stopped at 15 856 640 queued requests at t = 1.6 s, the memory budget of a run (128 MiB) · peak concurrency 865 · 1.09 attempts per request", "bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := verdictOf(tc.s, tc.ph)
			if v.Text != tc.text || v.Tone != tc.tone {
				t.Errorf("verdictOf = %q (%q)\nwant        %q (%q)", v.Text, v.Tone, tc.text, tc.tone)
			}
		})
	}
}
