// Package budget accounts for the memory that runs take, so that no request
// can grow the process without bound: each run (a live session, an export)
// has an Account of its own, and every Account of a server draws on one Pool
// that all of them share.
//
// Accounting is explicit: the code that allocates state whose size a request
// decides (queues, client tables, recorded ticks) calls Grow before it grows
// and Shrink when it lets go. Fixed overheads (a goroutine, a socket buffer)
// are left to the Pool's headroom.
package budget

import (
	"fmt"
	"math"
	"math/big"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
)

// Pool is the memory shared by every run of a process: the server-wide
// budget. Its methods may be called concurrently.
type Pool struct {
	max  int64
	used atomic.Int64
}

// NewPool returns a pool of max bytes.
func NewPool(max int64) *Pool { return &Pool{max: max} }

// Max returns the pool's size in bytes.
func (p *Pool) Max() int64 { return p.max }

// Used returns the bytes its runs hold now.
func (p *Pool) Used() int64 { return p.used.Load() }

// Free returns the bytes not held by any run.
func (p *Pool) Free() int64 { return p.max - p.used.Load() }

func (p *Pool) take(n int64) bool { return takeWithin(&p.used, n, p.max) }

// takeWithin adds n to *used unless that would pass limit, and reports
// whether it did, however many goroutines take at once.
func takeWithin(used *atomic.Int64, n, limit int64) bool {
	for {
		u := used.Load()
		if u+n > limit {
			return false
		}
		if used.CompareAndSwap(u, u+n) {
			return true
		}
	}
}

func (p *Pool) give(n int64) { p.used.Add(-n) }

// Account is one run's budget: at most its limit, and only while its pool (if
// any) has room. An Account is used by one goroutine at a time, but its
// shares (Share) may each be used by a goroutine of its own.
type Account struct {
	pool  *Pool
	limit int64
	used  atomic.Int64

	// A share (Share) passes every change on to lead, which holds what
	// all its shares hold.
	lead *Account
}

// Share returns an account of at most limit bytes that draws on r: what it
// takes counts against r's limit and r's pool too. Shares of one account may
// be used at once, each by a goroutine of its own. A share's limit is its
// own, whatever its sibling shares hold: the parts of one run (a
// simulation's lanes) each get a fixed part of its budget, so that whether
// one part fits never depends on how far the others have got.
func (r *Account) Share(limit int64) *Account {
	return &Account{lead: r, limit: limit}
}

// NewAccount returns a budget of limit bytes drawn from p; a nil p means the
// run's limit alone bounds it.
func NewAccount(p *Pool, limit int64) *Account { return &Account{pool: p, limit: limit} }

// Limit returns the account's limit in bytes.
func (r *Account) Limit() int64 { return r.limit }

// Used returns the bytes the account holds.
func (r *Account) Used() int64 { return r.used.Load() }

// Grow takes n more bytes, or returns an *ExceededError and takes nothing
// when the account's limit, its lead's (for a share) or its pool would be
// exceeded. A nil Account allows everything.
func (r *Account) Grow(n int64) error {
	if r == nil || n <= 0 {
		return nil
	}
	if r.lead != nil {
		// A share is used by one goroutine: nothing but it changes
		// its own use.
		if u := r.used.Load(); u+n > r.limit {
			return &ExceededError{Limit: r.limit, Of: r.lead.limit}
		}
		if err := r.lead.Grow(n); err != nil {
			return err
		}
		r.used.Add(n)
		return nil
	}
	if !takeWithin(&r.used, n, r.limit) {
		return &ExceededError{Limit: r.limit}
	}
	if r.pool != nil && !r.pool.take(n) {
		r.used.Add(-n)
		return &ExceededError{Limit: r.pool.max, Shared: true}
	}
	return nil
}

// Shrink gives back n bytes taken by Grow.
func (r *Account) Shrink(n int64) {
	if r == nil || n <= 0 {
		return
	}
	for {
		u := r.used.Load()
		m := min(n, u)
		if r.used.CompareAndSwap(u, u-m) {
			n = m
			break
		}
	}
	switch {
	case r.lead != nil:
		r.lead.Shrink(n)
	case r.pool != nil:
		r.pool.give(n)
	}
}

// Close gives back everything the account holds. It may grow again.
func (r *Account) Close() {
	if r != nil {
		r.Shrink(r.used.Load())
	}
}

// ExceededError says which budget a Grow would have exceeded.
type ExceededError struct {
	Limit  int64 // the budget's size in bytes
	Shared bool  // the server-wide pool, not the run's own limit
	// Of is, for a share of a run's budget (Account.Share), the run's
	// limit in bytes; 0 for the run's own.
	Of int64
}

func (e *ExceededError) Error() string {
	switch {
	case e.Shared:
		return "the server's memory budget (" + Bytes(e.Limit) + ", shared by every page and export)"
	case e.Of > 0 && e.Of != e.Limit:
		// The shares of a run are its simulation's lanes.
		return "the memory budget of a run (" + Bytes(e.Of) + "; " + Bytes(e.Limit) + " a lane)"
	}
	return "the memory budget of a run (" + Bytes(e.Limit) + ")"
}

// Bytes formats n bytes for people: "256 MiB", "1.5 GiB", "12 KiB".
func Bytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), ""
	for _, s := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v /= unit
		suffix = s
		if v < unit {
			break
		}
	}
	if v == float64(int64(v)) {
		return fmt.Sprintf("%d %s", int64(v), suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}

// ParseBytes reads a size such as "256MiB", "1.5GiB", "512MB", "64KiB" or
// a plain number of bytes. Units are case-insensitive; KB, MB and GB are
// powers of 1000, KiB, MiB and GiB powers of 1024.
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := strings.IndexFunc(t, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := t, ""
	if i >= 0 {
		num, unit = t[:i], strings.TrimSpace(t[i:])
	}
	mult, ok := units[strings.ToLower(unit)]
	v, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" || v < 0 || v*mult >= math.MaxInt64 {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes with an optional unit (KiB, MiB, GiB, KB, MB, GB)", s)
	}
	// A fraction of a byte would be dropped in silence (1.5 would be 1 B):
	// a size is a whole number of bytes, worked out exactly in decimal.
	exact, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, fmt.Errorf("%q is not a size: want a number of bytes with an optional unit (KiB, MiB, GiB, KB, MB, GB)", s)
	}
	if exact.Mul(exact, new(big.Rat).SetInt64(int64(mult))); !exact.IsInt() {
		return 0, fmt.Errorf("%q is not a whole number of bytes (%s): want a number of bytes with an optional unit (KiB, MiB, GiB, KB, MB, GB)",
			s, exact.FloatString(3))
	}
	return exact.Num().Int64(), nil
}

var units = map[string]float64{
	"": 1, "b": 1,
	"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
	"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40,
	"k": 1 << 10, "m": 1 << 20, "g": 1 << 30,
}

// Size is a number of bytes as a command-line flag: it reads what
// ParseBytes reads and prints as Bytes does.
type Size int64

// String returns the size in the form Bytes writes.
func (s *Size) String() string { return Bytes(int64(*s)) }

// Set reads a size with ParseBytes.
func (s *Size) Set(v string) error {
	n, err := ParseBytes(v)
	if err != nil {
		return err
	}
	*s = Size(n)
	return nil
}

// MachineMemory returns the machine's memory in bytes as Linux reports it
// (MemTotal in /proc/meminfo), or 0 where it cannot be read.
func MachineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
