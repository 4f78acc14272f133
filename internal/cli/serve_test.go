package cli

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestServe runs the default command on a free loopback port: it prints the
// URL to open, serves the page and the health check, and shuts down cleanly
// when its context ends.
func TestServe(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	url, done := startServe(t, ctx)
	for _, path := range []string{"healthz", "", "static/app.js"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("GET /%s: %d", path, resp.StatusCode)
		}
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve returned %v after its context ended", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not shut down")
	}
}

func TestServeBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-addr"}, {"-nope"}, {"-addr", "localhost:0", "extra"},
		{"-run_memory", "1MiB"}, {"-max_memory", "1GiB", "-run_memory", "2GiB"}, {"-max_memory", "much"},
		{"-view_cpu", "0s"}, {"-view_cpu", "10000h"}, {"-view_cpu", "soon"}} {
		err := Run(context.Background(), args, io.Discard, io.Discard)
		if _, ok := err.(usageError); !ok {
			t.Errorf("run %q: %v, want a usage error", args, err)
		}
	}
	if err := Run(context.Background(), []string{"-addr", "256.0.0.1:1"}, io.Discard, io.Discard); err == nil {
		t.Error("an address that cannot be bound gave no error")
	}
}
