package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"backofflab/web"
)

// serve is the default command: the playground on localhost until ctx ends,
// then a graceful shutdown in which live pages get a going-away close.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("backofflab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:8080", "address to serve the playground on")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage, "\nFlags of the playground:\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(stderr, nil))
	live, stopLive := context.WithCancel(context.Background())
	defer stopLive()
	srv := &http.Server{
		Handler:           web.NewServer(live, web.Options{Logger: log}),
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "backofflab playground: open %s\n", pageURL(*addr, ln.Addr()))

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	stopLive()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	return nil
}

// pageURL is the address to open: the host asked for (localhost unless
// given) and the port actually bound (which -addr :0 leaves to the system).
func pageURL(asked string, bound net.Addr) string {
	host, _, _ := net.SplitHostPort(asked)
	if host == "" {
		host = "localhost"
	}
	_, port, _ := net.SplitHostPort(bound.String())
	return "http://" + net.JoinHostPort(host, port) + "/"
}
