package realexp

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backofflab/backofflab/internal/testwait"
	"github.com/backofflab/backofflab/strategies"
)

// countLimit is a test-only shared limit, safe for concurrent use, that
// allows everything and counts the outcomes it is told of.
type countLimit struct {
	mu   sync.Mutex
	seen [3]int64 // by strategies.Outcome
}

func (*countLimit) AllowRetry(*strategies.State, time.Duration, *rand.Rand) bool { return true }
func (c *countLimit) Record(_ *strategies.State, _ time.Duration, o strategies.Outcome) {
	c.mu.Lock()
	c.seen[o]++
	c.mu.Unlock()
}

var _ strategies.Limiter = (*countLimit)(nil)

// TestClientTellsEveryOutcome: the real client tells its Policy of every
// attempt that ends, as the success, error or timeout it counted.
func TestClientTellsEveryOutcome(t *testing.T) {
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) % 3 {
		case 0:
			w.Write([]byte("ok"))
		case 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			<-r.Context().Done() // the attempt times out
		}
	}))
	defer srv.Close()
	cfg := clientConfig(srv.URL, 10, 5*ms, 40*ms, strategies.NameFixed)
	cfg.Strategy.MinDelay, cfg.Strategy.MaxAttempts = 5*ms, 3
	p, err := NewPopulation(cfg)
	if err != nil {
		t.Fatal(err)
	}
	lim := &countLimit{}
	p.pol = strategies.NewPolicy(p.pol.Strategy, append(p.pol.Limiters(), lim)...)
	// The run lasts until every outcome came ten times, however slowly a
	// busy machine runs it.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx) }()
	testwait.Eventually(t, "every outcome ten times", func() bool {
		tot := p.Totals()
		return tot.OK >= 10 && tot.Errors >= 10 && tot.Timeouts >= 10
	})
	cancel()
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
	tot := p.Totals()
	if want := [3]int64{tot.OK, tot.Errors, tot.Timeouts}; lim.seen != want {
		t.Errorf("limit saw %v, the client counted ok, errors, timeouts %v", lim.seen, want)
	}
	if tot.OK == 0 || tot.Errors == 0 || tot.Timeouts == 0 {
		t.Errorf("totals %+v: want every outcome", tot)
	}
	// Attempts cut short by the end of the run have no outcome.
	if told := lim.seen[0] + lim.seen[1] + lim.seen[2]; told > tot.Attempts || tot.Attempts-told > int64(cfg.Clients) {
		t.Errorf("%d outcomes told for %d attempts by %d clients", told, tot.Attempts, cfg.Clients)
	}
}

// TestClientLimiters: the real client builds its lane's limiters from its
// config and shares each between its clients' goroutines (under -race,
// their locks). Against a server that fails every attempt the AWS quota
// pays for exactly 500/14 = 35 retries, leaving 10 tokens, and a breaker of all traffic,
// open after 100 failures, lets no attempt through but the ones already
// sent when it opened, at most one per client: a retry due while it is
// open is refused when due. Each runs until its
// limiter has long been spent (hundreds of requests after), however slowly
// a busy machine runs the clients.
func TestClientLimiters(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "down", http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	const clients = 20
	for _, c := range []struct {
		name string
		set  func(p *strategies.Params)
		// spent is the state the run waits for: the limiter spent, and
		// the clients well past it.
		spent func(tot Counts, lim strategies.Limiter) bool
		check func(t *testing.T, tot Counts, lim strategies.Limiter)
	}{
		{"aws_quota", func(p *strategies.Params) { p.AWSQuota = strategies.LimiterOn },
			func(tot Counts, lim strategies.Limiter) bool {
				// At most 35 retries and one attempt per client
				// come before the quota is spent: 245 failures after.
				return lim.(*strategies.AWSQuota).Available() < strategies.DefaultAWSRetryCost && tot.Errors >= 300
			},
			func(t *testing.T, tot Counts, lim strategies.Limiter) {
				if tot.Retries != 35 || lim.(*strategies.AWSQuota).Available() != 10 {
					t.Errorf("%d retries, %d tokens left; want 35, 10", tot.Retries, lim.(*strategies.AWSQuota).Available())
				}
			}},
		{"breaker", func(p *strategies.Params) { p.Breaker = strategies.BreakerAll },
			func(tot Counts, lim strategies.Limiter) bool { return tot.GaveUp >= 300 },
			func(t *testing.T, tot Counts, lim strategies.Limiter) {
				if tot.Attempts > 100+clients || tot.GaveUp < tot.Requests-clients {
					t.Errorf("%d attempts, %d of %d requests given up; want at most %d attempts, the requests given up",
						tot.Attempts, tot.GaveUp, tot.Requests, 100+clients)
				}
				if s := lim.(*strategies.Breaker).State(time.Minute - time.Second); s != strategies.BreakerOpen {
					t.Errorf("breaker %v, want open", s)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A timeout no busy machine reaches on an answer at once:
			// every attempt fails as an error, at the quota's retry cost.
			cfg := clientConfig(srv.URL, clients, 2*ms, testwait.Bound, strategies.NameFixed)
			cfg.Strategy.MinDelay = ms
			c.set(&cfg.Strategy)
			p, err := NewPopulation(cfg)
			if err != nil {
				t.Fatal(err)
			}
			lims := p.pol.Limiters()
			if len(lims) != 1 {
				t.Fatalf("limits %v, want the limiter alone", lims)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ran := make(chan error, 1)
			go func() { ran <- p.Run(ctx) }()
			testwait.Eventually(t, c.name+" spent, hundreds of requests ago", func() bool { return c.spent(p.Totals(), lims[0]) })
			cancel()
			if err := <-ran; err != nil {
				t.Fatal(err)
			}
			tot := p.Totals()
			if tot.OK != 0 || tot.Errors < 100 {
				t.Fatalf("totals %+v: want only errors, at least 100", tot)
			}
			c.check(t, tot, lims[0])
			t.Logf("%s: %d requests, %d attempts, %d retries, %d gave up", c.name, tot.Requests, tot.Attempts, tot.Retries, tot.GaveUp)
		})
	}
}
