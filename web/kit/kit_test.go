package kit

import (
	"testing"
	"time"
)

func TestSay(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{{0, "0 s"}, {0.1, "100 ms"}, {0.0005, "0.5 ms"}, {2, "2 s"}, {15, "15 s"}, {90, "90 s"}, {150, "2.5 min"}, {3600, "1 h"}, {7200, "2 h"}, {86400, "24 h"}} {
		if got := Say(time.Duration(tc.sec * float64(time.Second))); got != tc.want {
			t.Errorf("Say(%v s) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}
