package kit

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSlotsBegin: past its cap a view is refused with a message that
// names the cap; ending one frees its slot.
func TestSlotsBegin(t *testing.T) {
	a := newViewSlots(2, 1, time.Minute)
	_, end1, err := a.begin(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.begin(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.begin(context.Background()); err == nil || !strings.Contains(err.Error(), "server busy: 2 maps") {
		t.Fatalf("a third view: %v, want server busy naming the cap", err)
	}
	end1()
	if _, _, err := a.begin(context.Background()); err != nil {
		t.Fatalf("after one ended: %v", err)
	}
}
