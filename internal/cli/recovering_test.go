package cli

import (
	"strings"
	"testing"
)

// TestRunStillRecovering: the landing view cut at 50 s ends while lane b
// (exponential backoff) drains its backlog, its attempts and the server's
// load falling, 15 s after the outage: it is still recovering; lane a
// (fixed interval) storms at a steady rate and never recovered.
func TestRunStillRecovering(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "run", "-duration", "50s")
	for _, want := range []string{
		"[a fixed] Never recovered — a retry storm.",
		"[b exponential] Still recovering when the run ended.",
	} {
		if !strings.Contains(out, want) {
			i := strings.LastIndex(out, "\n[a ")
			t.Errorf("run -duration 50s: no %q in its verdicts:\n%s", want, out[max(i, 0):])
		}
	}
}
