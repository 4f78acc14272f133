package strategies

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// tokenBucket is gRPC's retry throttling as a test-only limit, with shared
// state: a bucket of Max tokens that loses one per failure and gains Ratio
// per success, retries allowed while more than half full. It also counts
// what it is told and asked.
type tokenBucket struct {
	cfg    bucketConfig
	tokens float64
	seen   [3]int // outcomes recorded, by Outcome
	asked  int    // AllowRetry calls
}

type bucketConfig struct{ Max, Ratio float64 }

func newBucket(max, ratio float64) *tokenBucket {
	return &tokenBucket{cfg: bucketConfig{max, ratio}, tokens: max}
}

func (b *tokenBucket) AllowRetry(*State, time.Duration, *rand.Rand) bool {
	b.asked++
	return b.tokens > b.cfg.Max/2
}

func (b *tokenBucket) Record(_ *State, _ time.Duration, o Outcome) {
	b.seen[o]++
	if o == Success {
		b.tokens = min(b.cfg.Max, b.tokens+b.cfg.Ratio)
	} else {
		b.tokens = max(0, b.tokens-1)
	}
}

func (b *tokenBucket) Config() any { return b.cfg }

func (b *tokenBucket) recorded() int { return b.seen[Success] + b.seen[Error] + b.seen[Timeout] }

// breaker refuses every first attempt while open.
type breaker struct{ open bool }

func (*breaker) AllowRetry(*State, time.Duration, *rand.Rand) bool { return true }
func (*breaker) Record(*State, time.Duration, Outcome)             {}
func (b *breaker) AllowFirst(*State, time.Duration, *rand.Rand) bool {
	return !b.open
}

var (
	_ SharedLimiter = (*tokenBucket)(nil)
	_ FirstLimiter  = (*breaker)(nil)
)

// oldRetry is Policy.Retry as it was before limits, with MaxAttempts and
// Deadline written inline: the reference the limits must match.
func oldRetry(st Strategy, maxAttempts int, deadline time.Duration, s *State, now time.Duration, rng *rand.Rand) (time.Duration, bool) {
	if maxAttempts > 0 && int(s.Retries)+1 >= maxAttempts {
		return 0, false
	}
	d := st.Next(s, now, rng)
	if d < 0 {
		return 0, false
	}
	if deadline > 0 && now+d-s.RequestStart >= deadline {
		return 0, false
	}
	s.Retries++
	s.AttemptStart = now + d
	return d, true
}

// TestLimitsMatchInlineChecks: for every strategy and combination of
// max_attempts and deadline, Policy.Retry gives the same waits, the same
// give-ups, the same states and draws the same random numbers as the
// inline checks it replaced, over requests whose attempts fail after
// random times.
func TestLimitsMatchInlineChecks(t *testing.T) {
	limits := []struct {
		maxAttempts int
		deadline    time.Duration
	}{{0, 0}, {1, 0}, {3, 0}, {0, 2 * time.Second}, {0, 30 * time.Second}, {5, 3 * time.Second}, {1, time.Second}}
	for _, name := range Names() {
		for _, lim := range limits {
			t.Run(fmt.Sprintf("%s/max_attempts=%d/deadline=%v", name, lim.maxAttempts, lim.deadline), func(t *testing.T) {
				p := mustDefaults(t, name)
				p.MaxAttempts, p.Deadline = lim.maxAttempts, lim.deadline
				pol := mustPolicy(t, p)
				want := 0
				if lim.maxAttempts > 0 {
					want++
				}
				if lim.deadline > 0 {
					want++
				}
				if got := len(pol.Limiters()); got != want {
					t.Fatalf("%d limits, want %d", got, want)
				}
				rngNew, rngOld, rngTime := newRNG(900), newRNG(900), newRNG(901)
				for req := range 300 {
					var sNew, sOld State
					start := time.Duration(req) * time.Second
					pol.Begin(&sNew, start, 7*time.Second)
					sOld = State{RequestStart: start, AttemptStart: start}
					pol.Strategy.Begin(&sOld, 7*time.Second)
					for r := range 40 {
						now := sNew.AttemptStart + time.Duration(rngTime.Int64N(int64(3*time.Second)))
						dn, okn := pol.Retry(&sNew, now, rngNew)
						do, oko := oldRetry(pol.Strategy, lim.maxAttempts, lim.deadline, &sOld, now, rngOld)
						if dn != do || okn != oko || sNew != sOld {
							t.Fatalf("request %d retry %d: got %v %v %+v, want %v %v %+v", req, r, dn, okn, sNew, do, oko, sOld)
						}
						if !okn {
							break
						}
					}
				}
				if rngNew.Uint64() != rngOld.Uint64() {
					t.Fatal("the random streams parted")
				}
			})
		}
	}
}

func TestMaxAttemptsLimit(t *testing.T) {
	cases := []struct {
		n, retries int
		want       bool
	}{
		{1, 0, false},
		{2, 0, true},
		{2, 1, false},
		{5, 3, true},
		{5, 4, false},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("n=%d/retries=%d", c.n, c.retries), func(t *testing.T) {
			m := &MaxAttemptsLimiter{N: c.n}
			if got := m.AllowRetry(&State{Retries: int32(c.retries)}, 0, nil); got != c.want {
				t.Errorf("AllowRetry = %v, want %v", got, c.want)
			}
		})
	}
}

func TestDeadlineLimit(t *testing.T) {
	s := time.Second
	cases := []struct {
		name            string
		d, requestStart time.Duration
		at              time.Duration
		want            bool
	}{
		{"before", 10 * s, 5 * s, 14 * s, true},
		{"at_the_deadline", 10 * s, 5 * s, 15 * s, false},
		{"after", 10 * s, 5 * s, 16 * s, false},
		{"just_before", 10 * s, 0, 10*s - 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := &DeadlineLimiter{D: c.d}
			st := &State{RequestStart: c.requestStart}
			if !d.AllowRetry(st, 0, nil) {
				t.Error("AllowRetry said no; the deadline is AllowWait's")
			}
			if got := d.AllowWait(st, c.requestStart, c.at); got != c.want {
				t.Errorf("AllowWait(at %v) = %v, want %v", c.at, got, c.want)
			}
		})
	}
}

// TestPolicyTellsEveryOutcome drives a Policy with a token bucket as a
// client would: every attempt ends once, in a success, an error or a
// timeout, and the bucket hears of each exactly once; it throttles retries
// once failures drain it, and is asked only when MaxAttempts allows.
func TestPolicyTellsEveryOutcome(t *testing.T) {
	cases := []struct {
		name        string
		pFail       float64 // the chance that an attempt fails
		maxAttempts int
	}{
		{"healthy", 0.1, 0},
		{"half_down", 0.5, 4},
		{"down", 1, 0},
		{"down_max_attempts", 1, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newBucket(10, 0.1)
			var limits []Limiter
			if c.maxAttempts > 0 {
				limits = append(limits, &MaxAttemptsLimiter{N: c.maxAttempts})
			}
			pol := NewPolicy(Fixed{Delay: 100 * time.Millisecond}, append(limits, b)...)
			rng, outcomes := newRNG(910), newRNG(911)
			var s State
			now := time.Duration(0)
			attempts, ended, retries, gaveUp, maxed := 0, [3]int{}, 0, 0, 0
			for range 2000 {
				pol.Begin(&s, now, time.Second)
				if !pol.AllowFirst(&s, now, rng) {
					t.Fatal("a first attempt was refused without a FirstLimiter")
				}
				for {
					attempts++
					now = s.AttemptStart + 50*time.Millisecond
					o := Success
					if outcomes.Float64() < c.pFail {
						o = Outcome(1 + outcomes.IntN(2)) // Error or Timeout
					}
					ended[o]++
					pol.Record(&s, now, o)
					if o == Success {
						break
					}
					if c.maxAttempts > 0 && int(s.Retries)+1 >= c.maxAttempts {
						maxed++
					}
					if _, ok := pol.Retry(&s, now, rng); !ok {
						gaveUp++
						break
					}
					retries++
				}
				now += time.Second
			}
			if b.seen != ended || b.recorded() != attempts {
				t.Errorf("bucket saw %v (%d), want %v (%d attempts)", b.seen, b.recorded(), ended, attempts)
			}
			failures := ended[Error] + ended[Timeout]
			if b.asked != failures-maxed {
				t.Errorf("bucket asked %d times, want %d (failures %d, %d stopped by max_attempts first)",
					b.asked, failures-maxed, failures, maxed)
			}
			if c.pFail == 1 && retries >= failures/2 {
				t.Errorf("%d retries for %d failures: the bucket did not throttle", retries, failures)
			}
			t.Logf("%d attempts, outcomes %v, %d retries, %d gave up, %.1f tokens", attempts, ended, retries, gaveUp, b.tokens)
		})
	}
}

// TestPolicyRefusalDrawsNothing: a limit that refuses a retry does so
// before the strategy draws its wait, so neither the random stream nor the
// strategy's memory moves.
func TestPolicyRefusalDrawsNothing(t *testing.T) {
	b := newBucket(2, 0)
	b.tokens = 0 // empty: every retry refused
	pol := NewPolicy(Exponential{Base: time.Second, Cap: time.Minute, Factor: 2, Jitter: 0.5}, b)
	rng, ref := newRNG(920), newRNG(920)
	var s State
	pol.Begin(&s, 0, 0)
	before := s
	if _, ok := pol.Retry(&s, time.Second, rng); ok {
		t.Fatal("retry allowed by an empty bucket")
	}
	if s != before || rng.Uint64() != ref.Uint64() {
		t.Errorf("a refused retry changed the state (%+v -> %+v) or drew a number", before, s)
	}
}

// TestPolicyAsksInListOrder: a limit before MaxAttemptsLimiter is asked even
// when MaxAttempts then refuses; one after it is not.
func TestPolicyAsksInListOrder(t *testing.T) {
	for _, c := range []struct {
		name      string
		first     bool // the bucket leads the list
		wantAsked int
	}{{"bucket_first", true, 1}, {"max_attempts_first", false, 0}} {
		t.Run(c.name, func(t *testing.T) {
			b, m := newBucket(10, 0.1), &MaxAttemptsLimiter{N: 1}
			limits := []Limiter{m, b}
			if c.first {
				limits = []Limiter{b, m}
			}
			pol := NewPolicy(Fixed{Delay: time.Second}, limits...)
			var s State
			pol.Begin(&s, 0, 0)
			if _, ok := pol.Retry(&s, 0, newRNG(930)); ok {
				t.Fatal("max_attempts 1 allowed a retry")
			}
			if b.asked != c.wantAsked {
				t.Errorf("bucket asked %d times, want %d", b.asked, c.wantAsked)
			}
		})
	}
}

// TestPolicyFirstLimit: a FirstLimiter decides whether a request starts.
func TestPolicyFirstLimit(t *testing.T) {
	for _, open := range []bool{false, true} {
		t.Run(fmt.Sprint("open=", open), func(t *testing.T) {
			pol := NewPolicy(Fixed{Delay: time.Second}, &breaker{open: open})
			var s State
			pol.Begin(&s, 0, 0)
			if got := pol.AllowFirst(&s, 0, newRNG(940)); got != !open {
				t.Errorf("AllowFirst = %v with the breaker open=%v", got, open)
			}
		})
	}
}

// TestPolicyKeep: a rebuilt Policy keeps a shared limit's object, and so
// its state, when its type and Config are unchanged, and starts afresh
// otherwise; stateless limits are the new Policy's own.
func TestPolicyKeep(t *testing.T) {
	old := newBucket(10, 0.1)
	old.tokens = 3
	oldPol := NewPolicy(Fixed{Delay: time.Second}, &MaxAttemptsLimiter{N: 3}, old)
	cases := []struct {
		name   string
		bucket *tokenBucket
		old    *Policy
		keep   bool
	}{
		{"same_config", newBucket(10, 0.1), oldPol, true},
		{"other_max", newBucket(20, 0.1), oldPol, false},
		{"other_ratio", newBucket(10, 0.2), oldPol, false},
		{"no_old_policy", newBucket(10, 0.1), nil, false},
		{"old_without_bucket", newBucket(10, 0.1), NewPolicy(None{}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := &MaxAttemptsLimiter{N: 4}
			pol := NewPolicy(Exponential{Base: time.Second, Cap: time.Minute, Factor: 2}, m, c.bucket)
			pol.Keep(c.old)
			got := pol.Limiters()
			if got[0] != m {
				t.Errorf("MaxAttemptsLimiter replaced by %#v", got[0])
			}
			want := Limiter(c.bucket)
			if c.keep {
				want = old
			}
			if got[1] != want {
				t.Fatalf("bucket %p, want %p (kept: %v)", got[1], want, c.keep)
			}
			// The kept bucket is the one the Policy tells and asks.
			b := got[1].(*tokenBucket)
			seen := b.recorded()
			var s State
			pol.Begin(&s, 0, 0)
			pol.Record(&s, 0, Timeout)
			pol.Retry(&s, 0, newRNG(960))
			if b.recorded() != seen+1 {
				t.Error("the Policy does not tell the bucket it holds")
			}
		})
	}
}

// reserver is a test-only ReserveLimiter: each yes takes one token from its
// stock (retries and first attempts apart) and Release gives it back.
type reserver struct {
	stock, taken [2]int // by first: [retry, first]
	released     [2]int
}

func (r *reserver) take(first int) bool {
	if r.stock[first] == 0 {
		return false
	}
	r.stock[first]--
	r.taken[first]++
	return true
}

func (r *reserver) AllowRetry(*State, time.Duration, *rand.Rand) bool { return r.take(0) }
func (r *reserver) AllowFirst(*State, time.Duration, *rand.Rand) bool { return r.take(1) }
func (*reserver) Record(*State, time.Duration, Outcome)               {}
func (r *reserver) Release(_ *State, _ time.Duration, first bool) {
	i := 0
	if first {
		i = 1
	}
	r.stock[i]++
	r.released[i]++
}

// refuser refuses every retry and every first attempt.
type refuser struct{}

func (refuser) AllowRetry(*State, time.Duration, *rand.Rand) bool { return false }
func (refuser) AllowFirst(*State, time.Duration, *rand.Rand) bool { return false }
func (refuser) Record(*State, time.Duration, Outcome)             {}

var (
	_ ReserveLimiter = (*reserver)(nil)
	_ FirstLimiter   = (*reserver)(nil)
	_ FirstLimiter   = refuser{}
)

// TestPolicyReleases: what a ReserveLimiter's yes took comes back when the
// attempt is refused after it (by a later limit, the strategy's Stop, the
// deadline), not when the refusal comes first or the attempt goes.
func TestPolicyReleases(t *testing.T) {
	cases := []struct {
		name         string
		strategy     Strategy
		limits       func(r *reserver) []Limiter
		ok           bool
		wantReleased int // retries' releases
	}{
		{"allowed", Fixed{Delay: time.Second}, func(r *reserver) []Limiter { return []Limiter{r} }, true, 0},
		{"later_limit_refuses", Fixed{Delay: time.Second}, func(r *reserver) []Limiter { return []Limiter{r, refuser{}} }, false, 1},
		{"earlier_limit_refuses", Fixed{Delay: time.Second}, func(r *reserver) []Limiter { return []Limiter{refuser{}, r} }, false, 0},
		{"max_attempts_refuses", Fixed{Delay: time.Second}, func(r *reserver) []Limiter { return []Limiter{&MaxAttemptsLimiter{N: 1}, r} }, false, 0},
		{"strategy_stops", None{}, func(r *reserver) []Limiter { return []Limiter{r} }, false, 1},
		{"deadline_refuses", Fixed{Delay: time.Minute}, func(r *reserver) []Limiter { return []Limiter{&DeadlineLimiter{D: time.Second}, r} }, false, 1},
		{"later_deadline_refuses", Fixed{Delay: time.Minute}, func(r *reserver) []Limiter { return []Limiter{r, &DeadlineLimiter{D: time.Second}} }, false, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &reserver{stock: [2]int{5, 5}}
			pol := NewPolicy(c.strategy, c.limits(r)...)
			var s State
			pol.Begin(&s, 0, 0)
			if _, ok := pol.Retry(&s, 0, newRNG(980)); ok != c.ok {
				t.Fatalf("Retry = %v, want %v", ok, c.ok)
			}
			if r.released[0] != c.wantReleased || r.released[1] != 0 {
				t.Errorf("released %v, want %d retry tokens", r.released, c.wantReleased)
			}
			if want := 5 - r.taken[0] + r.released[0]; r.stock[0] != want {
				t.Errorf("stock %d, want %d", r.stock[0], want)
			}
		})
	}
	t.Run("first_refused_later", func(t *testing.T) {
		r := &reserver{stock: [2]int{5, 5}}
		pol := NewPolicy(Fixed{Delay: time.Second}, r, refuser{})
		var s State
		pol.Begin(&s, 0, 0)
		if pol.AllowFirst(&s, 0, newRNG(981)) {
			t.Fatal("AllowFirst allowed what a FirstLimiter refused")
		}
		if r.stock != [2]int{5, 5} || r.released != [2]int{0, 1} {
			t.Errorf("stock %v released %v, want the first attempt's token back", r.stock, r.released)
		}
	})
	t.Run("first_allowed", func(t *testing.T) {
		r := &reserver{stock: [2]int{5, 5}}
		pol := NewPolicy(Fixed{Delay: time.Second}, r)
		var s State
		pol.Begin(&s, 0, 0)
		if !pol.AllowFirst(&s, 0, newRNG(982)) || r.stock != [2]int{5, 4} || r.released != [2]int{} {
			t.Errorf("stock %v released %v, want one first-attempt token taken", r.stock, r.released)
		}
	})
}
