package mpirt

import (
	"math/rand"
	"testing"
)

// ExpressClear may say yes only when the reference matcher agrees that a
// receive (src, tag) posted now would get the next message it accepts:
// nothing unexpected matches it, and no posted receive shares a message
// with it. It must say yes in the plain cases (nothing queued, or only a
// receive for another source and tag pending).
func TestExpressClearAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	yes := 0
	compat := func(a, b int, any int) bool { return a == any || b == any || a == b }
	for round := 0; round < 200; round++ {
		var queued int32
		q := ctxQueues{queued: &queued}
		var ref refMatcher
		nSrc, nTag := 1+rng.Intn(4), 1+rng.Intn(4)
		pick := func(n, any int, wild float64) int {
			if rng.Float64() < wild {
				return any
			}
			return rng.Intn(n)
		}
		for step := 0; step < 200; step++ {
			src, tag := pick(nSrc, AnySource, 0.2), pick(nTag, AnyTag, 0.2)
			clear := q.expressClearLocked(src, tag)
			want := true
			for _, u := range ref.unexp {
				want = want && !matches(src, tag, &u.hdr)
			}
			for _, r := range ref.posted {
				want = want && !(compat(r.src, src, AnySource) && compat(r.tag, tag, AnyTag))
			}
			if clear && !want {
				t.Fatalf("round %d step %d: ExpressClear(%d, %d) with %d posted, %d unexpected: yes, the reference says no",
					round, step, src, tag, len(ref.posted), len(ref.unexp))
			}
			if clear {
				yes++
			}
			// Move the queues on: a message arrives or a receive is posted.
			s, tg := rng.Intn(nSrc), rng.Intn(nTag)
			if rng.Intn(2) == 0 {
				h := Header{Source: int32(s), Tag: int32(tg)}
				u := &unexpected{hdr: h}
				if ref.arrive(u) == nil {
					q.appendUnexpectedLocked(u)
				} else {
					q.takePostedLocked(&h)
				}
			} else {
				r := &Request{src: pick(nSrc, AnySource, 0.3), tag: pick(nTag, AnyTag, 0.3)}
				if u := ref.post(r); u == nil {
					q.appendPostedLocked(r)
				} else {
					q.findUnexpectedLocked(r.src, r.tag, true)
				}
			}
		}
	}
	if yes == 0 {
		t.Fatal("ExpressClear never said yes")
	}
	// The MPICH-G2 cases: nothing queued, and one receive from another
	// process pending (specified-pending, multimethod).
	var queued int32
	q := ctxQueues{queued: &queued}
	if !q.expressClearLocked(1, 1) || !q.expressClearLocked(AnySource, 1) {
		t.Error("ExpressClear says no on empty queues")
	}
	q.appendPostedLocked(&Request{src: 2, tag: 999})
	if !q.expressClearLocked(1, 1) || !q.expressClearLocked(AnySource, 1) || !q.expressClearLocked(1, AnyTag) {
		t.Error("ExpressClear says no beside a receive for (2, 999)")
	}
	if q.expressClearLocked(2, AnyTag) || q.expressClearLocked(AnySource, 999) || q.expressClearLocked(AnySource, AnyTag) {
		t.Error("ExpressClear says yes to a receive competing with (2, 999)")
	}
	q.appendPostedLocked(&Request{src: 3, tag: 5})
	if !q.expressClearLocked(1, 1) || !q.expressClearLocked(AnySource, 1) || q.expressClearLocked(AnySource, 5) || q.expressClearLocked(1, AnyTag) {
		t.Error("ExpressClear with two receives pending")
	}
}
