package simengine

import "fmt"

// check returns what is wrong with q's structure, or nil: every entry in
// the bucket of its key's highest bit that differs from last, bucket 0's
// live entries in seq order, every run's entries in (time, seq) order and
// none after its latest time, at most one live entry per client and one
// for every client that has an event, the count right, and every block
// in a bucket, a run or the pool.
func (q *queue) check() error {
	seen := map[int32]bool{}
	blocks := 0
	for i, e := range q.early {
		if key(e.at) >= q.last {
			return fmt.Errorf("early event %+v at or after last %#x", e, q.last)
		}
		if i > 0 && e.before(q.early[(i-1)/2]) {
			return fmt.Errorf("early event %d %+v before its parent", i, e)
		}
		if int(e.c) < len(*q.owners) && q.live(e) {
			if seen[e.c] {
				return fmt.Errorf("client %d has two live events", e.c)
			}
			seen[e.c] = true
		}
	}
	for i := range q.buckets {
		var b []event
		if i == 0 {
			b = q.b0[q.head0:]
		} else {
			q.each(i, func(e event) { b = append(b, e) })
		}
		var prev *event
		for j := range b {
			e := b[j]
			if k := key(e.at); k < q.last || q.bucketOf(k) != i {
				return fmt.Errorf("event %+v in bucket %d, last %#x", e, i, q.last)
			}
			if int(e.c) >= len(*q.owners) || !q.live(e) {
				continue
			}
			if !q.has(e.c) {
				return fmt.Errorf("live event %+v of a client with no event", e)
			}
			if seen[e.c] {
				return fmt.Errorf("client %d has two live events", e.c)
			}
			seen[e.c] = true
			if i == 0 && prev != nil && !prev.before(e) {
				return fmt.Errorf("bucket 0: %+v after %+v", e, *prev)
			}
			prev = &b[j]
		}
	}
	for i := range q.runs {
		r := &q.runs[i]
		var prev *event
		var err error
		n := 0
		q.eachRun(r, func(e event) {
			n++
			if err != nil {
				return
			}
			if prev != nil && !prev.before(e) {
				err = fmt.Errorf("run %d: %+v after %+v", i, e, *prev)
			}
			if r.n > 0 && e.at > r.at {
				err = fmt.Errorf("run %d: %+v after its latest time %v", i, e, r.at)
			}
			prev = &e
			if int(e.c) >= len(*q.owners) || !q.live(e) {
				return
			}
			if !q.has(e.c) {
				err = fmt.Errorf("live event %+v of a client with no event", e)
			} else if seen[e.c] {
				err = fmt.Errorf("client %d has two live events", e.c)
			}
			seen[e.c] = true
		})
		if err != nil {
			return err
		}
		if n != r.n {
			return fmt.Errorf("run %d: %d entries, %d counted", i, n, r.n)
		}
		if r.head == nil {
			if r.n != 0 || len(r.ids) != 0 {
				return fmt.Errorf("run %d unclaimed with %d entries in %d blocks", i, r.n, len(r.ids))
			}
			continue
		}
		ids := r.ids[r.first:]
		if len(ids) == 0 || r.head != q.blocks[ids[0]] || r.tail != q.blocks[ids[len(ids)-1]] {
			return fmt.Errorf("run %d: its head or tail is not its first or last block", i)
		}
		if want := r.ti - r.hi + (len(ids)-1)*blockLen; r.n != want {
			return fmt.Errorf("run %d: %d entries, its blocks hold %d", i, r.n, want)
		}
		blocks += len(ids)
	}
	for c := range len(*q.owners) {
		if q.has(int32(c)) != seen[int32(c)] {
			return fmt.Errorf("client %d: has an event %v, live entry %v", c, q.has(int32(c)), seen[int32(c)])
		}
	}
	if len(seen) != q.n {
		return fmt.Errorf("%d live events, %d counted", len(seen), q.n)
	}
	blocks += len(q.free)
	for i := range q.buckets {
		b := &q.buckets[i]
		if len(b.ids) != max(min(1, len(b.ids)), (b.n+blockLen-1)/blockLen) {
			return fmt.Errorf("bucket %d: %d blocks for %d events", i, len(b.ids), b.n)
		}
		if full := q.full[i>>6]&(1<<(i&63)) != 0; i > 0 && full != (b.n > 0) {
			return fmt.Errorf("bucket %d: %d events, marked full %v", i, b.n, full)
		}
		if len(b.ids) > 0 && b.tail != q.blocks[b.ids[len(b.ids)-1]] {
			return fmt.Errorf("bucket %d: its tail is not its last block", i)
		}
		blocks += len(b.ids)
	}
	if blocks != len(q.blocks) {
		return fmt.Errorf("%d blocks in buckets and free, %d made", blocks, len(q.blocks))
	}
	return nil
}
