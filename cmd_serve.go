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
	playground := web.NewServer(live, web.Options{Logger: log})
	srv := &http.Server{
		Handler:           playground,
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
	// Pages get a going-away close and exports are cut; then the server
	// stops listening, lets the exports' connections end, and waits for
	// the pages' close handshakes, which Shutdown does not track.
	stopLive()
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown: connections still open after the grace period are closed", "err", err, "grace", shutdownGrace)
		srv.Close()
	}
	if err := playground.Wait(sctx); err != nil {
		log.Warn("shutdown: pages did not finish their close handshake in time", "err", err, "grace", shutdownGrace)
	}
	// The shutdown was asked for and done: a page too slow to answer its
	// close frame is no failure of the server's.
	return nil
}

// shutdownGrace bounds a shutdown: the pages' close handshakes and the
// exports' last bytes. A page that does not answer its close frame holds
// the process no longer than this.
const shutdownGrace = 5 * time.Second

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
