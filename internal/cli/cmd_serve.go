package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"runtime/debug"
	"strings"
	"time"

	"github.com/backofflab/backofflab/budget"
	"github.com/backofflab/backofflab/scenario"
	"github.com/backofflab/backofflab/web"
	"github.com/backofflab/backofflab/web/kit"
)

// serve is the default command: the playground on localhost until ctx ends,
// then a graceful shutdown in which live pages get a going-away close.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	addr, opt, err := serveFlags(args, stderr)
	if err != nil {
		return err
	}
	// The budgets count what runs hold; the Go heap may take about twice
	// that between collections. A soft limit on the heap makes the
	// collector work harder before the process outgrows its budget.
	debug.SetMemoryLimit(2*opt.Limits.MaxMemory + 256<<20)
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	opt.Logger = slog.New(slog.NewTextHandler(stderr, nil))
	live, stopLive := context.WithCancel(context.Background())
	defer stopLive()
	playground := web.NewServer(live, opt)
	srv := &http.Server{
		Handler:           playground,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(stdout, "backofflab playground: open %s\n", pageURL(addr, ln.Addr()))

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	opt.Logger.Info("shutting down")
	// Pages get a going-away close and exports are cut; then the server
	// stops listening, lets the exports' connections end, and waits for
	// the pages' close handshakes, which Shutdown does not track.
	stopLive()
	shutdown(opt.Logger, srv, playground)
	// The shutdown was asked for and done: a page too slow to answer its
	// close frame is no failure of the server's.
	return nil
}

// serveFlags reads the playground's flags: the address to listen on and
// the server's options but its logger.
func serveFlags(args []string, stderr io.Writer) (string, web.Options, error) {
	fs := flag.NewFlagSet("backofflab", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "localhost:8080", "address to serve the playground on")
	hostList := fs.String("host", "", "comma-separated host names the playground answers to besides localhost,\n"+
		"loopback addresses and -addr's host: its public names when deployed, such as play.example.com")
	maxMemory := budget.Size(kit.DefaultLimits.MaxMemory)
	fs.Var(&maxMemory, "max_memory", "memory budget shared by every page and export (default a quarter of the machine's);\n"+
		"when it is taken, new pages and exports are told the server is busy")
	runMemory := budget.Size(kit.DefaultLimits.RunMemory)
	fs.Var(&runMemory, "run_memory", "memory budget of one page's or export's run: a lane whose queues outgrow its share (the budget over the lanes) stops,\n"+
		"and its verdict says so")
	viewCPU := fs.Duration("view_cpu", kit.DefaultLimits.ViewCPU, "CPU time one phase map, seed band or contention study may take: one estimated\n"+
		"past it is refused before it starts, one that runs past twice it is stopped")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage, "\nFlags of the playground:\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args); err != nil {
		return "", web.Options{}, err
	}
	hosts, err := servedHosts(*addr, *hostList)
	if err != nil {
		return "", web.Options{}, usageError{err}
	}
	if runMemory < minRunMemory || maxMemory < runMemory {
		return "", web.Options{}, usageError{&scenario.ParamError{Name: "run_memory", Value: runMemory.String(),
			Allow: fmt.Sprintf("a size from %s to -max_memory (%s)", budget.Bytes(minRunMemory), maxMemory.String())}}
	}
	if *viewCPU < time.Second || *viewCPU > maxViewCPU {
		return "", web.Options{}, usageError{&scenario.ParamError{Name: "view_cpu", Value: viewCPU.String(),
			Allow: fmt.Sprintf("a duration from 1s to %s", maxViewCPU)}}
	}
	lim := kit.DefaultLimits
	lim.MaxMemory, lim.RunMemory, lim.ViewCPU = int64(maxMemory), int64(runMemory), *viewCPU
	return *addr, web.Options{Hosts: hosts, Limits: lim}, nil
}

// shutdown stops srv within shutdownGrace: it stops listening, lets the
// exports' connections end, and waits for the pages' close handshakes.
// What is still open after the grace is closed and logged.
func shutdown(log *slog.Logger, srv *http.Server, playground *web.Server) {
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		log.Warn("shutdown: connections still open after the grace period are closed", "err", err, "grace", shutdownGrace)
		srv.Close()
	}
	if err := playground.Wait(sctx); err != nil {
		log.Warn("shutdown: pages did not finish their close handshake in time", "err", err, "grace", shutdownGrace)
	}
}

// minRunMemory is the smallest run budget: the initial state of the
// largest run a page may ask for (four lanes of 20 000 clients) is ~3.5 MiB.
const minRunMemory = 16 << 20

// maxViewCPU bounds -view_cpu: a week of one core is past any view a
// person waits for, and far from overflowing a duration.
const maxViewCPU = 7 * 24 * time.Hour

// shutdownGrace bounds a shutdown: the pages' close handshakes and the
// exports' last bytes. A page that does not answer its close frame holds
// the process no longer than this.
const shutdownGrace = 5 * time.Second

// servedHosts returns the names the playground answers to besides loopback
// ones: those of -host (host names or IP addresses separated by commas,
// without port or scheme, since hosts compare by name), and -addr's host.
func servedHosts(addr, list string) ([]string, error) {
	var hosts []string
	for h := range strings.SplitSeq(list, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if !validHost(h) {
			return nil, &scenario.ParamError{Name: "host", Value: h,
				Allow: "host names or IP addresses without port or scheme, separated by commas, such as play.example.com,192.0.2.7"}
		}
		hosts = append(hosts, h)
	}
	if h, _, err := net.SplitHostPort(addr); err == nil && h != "" {
		hosts = append(hosts, h)
	}
	return hosts, nil
}

// validHost reports whether h is an IP address ([::1] or ::1 for IPv6) or
// a DNS name: labels of letters, digits, hyphens and underscores.
func validHost(h string) bool {
	if _, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")); err == nil {
		return true
	}
	if len(h) > 253 {
		return false
	}
	for l := range strings.SplitSeq(strings.TrimSuffix(h, "."), ".") {
		if l == "" || len(l) > 63 {
			return false
		}
		for _, c := range l {
			if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
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
