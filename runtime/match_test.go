package mpirt

import (
	"math/rand"
	"testing"
)

// refMatcher is the obvious linear implementation of MPI matching; the
// indexed matcher must agree with it on every step.
type refMatcher struct {
	posted []*Request
	unexp  []*unexpected
}

func (m *refMatcher) arrive(u *unexpected) *Request {
	for i, r := range m.posted {
		if matches(r.src, r.tag, &u.hdr) {
			m.posted = append(m.posted[:i], m.posted[i+1:]...)
			return r
		}
	}
	m.unexp = append(m.unexp, u)
	return nil
}

func (m *refMatcher) post(r *Request) *unexpected {
	for i, u := range m.unexp {
		if matches(r.src, r.tag, &u.hdr) {
			m.unexp = append(m.unexp[:i], m.unexp[i+1:]...)
			return u
		}
	}
	m.posted = append(m.posted, r)
	return nil
}

func TestMatcherAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for round := 0; round < 200; round++ {
		var queued int32
		q := ctxQueues{queued: &queued}
		var ref refMatcher
		nSrc, nTag := 1+rng.Intn(5), 1+rng.Intn(6)
		wild := rng.Float64()
		for step := 0; step < 400; step++ {
			// The count the express lane reads follows the queues.
			if int(queued) != q.nPosted+q.nUnexp {
				t.Fatalf("round %d step %d: queued %d, want %d posted + %d unexpected", round, step, queued, q.nPosted, q.nUnexp)
			}
			src, tag := rng.Intn(nSrc), rng.Intn(nTag)
			if rng.Intn(2) == 0 {
				h := Header{Source: int32(src), Tag: int32(tag), SendID: uint64(step + 1)}
				u := &unexpected{hdr: h}
				want := ref.arrive(u)
				got := q.takePostedLocked(&h)
				if got == nil {
					q.appendUnexpectedLocked(u)
				}
				if got != want {
					t.Fatalf("round %d step %d: message (%d,%d) matched %v, want %v", round, step, src, tag, got, want)
				}
			} else {
				if rng.Float64() < wild {
					src = AnySource
				}
				if rng.Float64() < wild {
					tag = AnyTag
				}
				r := &Request{src: src, tag: tag}
				want := ref.post(r)
				got := q.findUnexpectedLocked(src, tag, false)
				if got != want {
					t.Fatalf("round %d step %d: probe (%d,%d) found %v, want %v", round, step, src, tag, got, want)
				}
				if got != nil {
					q.findUnexpectedLocked(src, tag, true)
				} else {
					q.appendPostedLocked(r)
				}
			}
			if q.nPosted != len(ref.posted) || q.nUnexp != len(ref.unexp) {
				t.Fatalf("round %d step %d: %d posted/%d unexpected, want %d/%d", round, step, q.nPosted, q.nUnexp, len(ref.posted), len(ref.unexp))
			}
			// Occasionally cancel a posted receive.
			if len(ref.posted) > 0 && rng.Intn(10) == 0 {
				i := rng.Intn(len(ref.posted))
				r := ref.posted[i]
				ref.posted = append(ref.posted[:i], ref.posted[i+1:]...)
				if !q.removePostedLocked(r) {
					t.Fatalf("round %d step %d: posted receive not found for removal", round, step)
				}
				if q.removePostedLocked(r) {
					t.Fatalf("round %d step %d: receive removed twice", round, step)
				}
			}
		}
	}
}

// Thousands of outstanding receives with distinct tags, matched in
// reverse order, and thousands of unexpected messages: the tables grow
// and shrink back.
func TestMatcherManyOutstanding(t *testing.T) {
	q := ctxQueues{queued: new(int32)}
	const n = 5000
	reqs := make([]*Request, n)
	for i := range reqs {
		reqs[i] = &Request{src: i % 7, tag: i}
		q.appendPostedLocked(reqs[i])
	}
	for i := n - 1; i >= 0; i-- {
		h := Header{Source: int32(i % 7), Tag: int32(i)}
		if r := q.takePostedLocked(&h); r != reqs[i] {
			t.Fatalf("message %d matched the wrong receive", i)
		}
	}
	for i := 0; i < n; i++ {
		q.appendUnexpectedLocked(&unexpected{hdr: Header{Source: int32(i % 3), Tag: int32(i)}})
	}
	for i := n - 1; i >= 0; i-- {
		u := q.findUnexpectedLocked(i%3, i, true)
		if u == nil || int(u.hdr.Tag) != i {
			t.Fatalf("receive %d found %v", i, u)
		}
	}
	if !q.emptyLocked() || q.posted.count != 0 || q.unexp[uBySrcTag].count != 0 || len(q.posted.keys) > 64 {
		t.Fatalf("queues not empty or tables not shrunk: %d posted keys (table %d), %d unexpected keys",
			q.posted.count, len(q.posted.keys), q.unexp[uBySrcTag].count)
	}
}

// The data path allocates nothing once warm: posting and matching a
// receive, and queuing and taking an unexpected message.
func TestMatcherNoAllocs(t *testing.T) {
	q := ctxQueues{queued: new(int32)}
	r := &Request{src: 1, tag: 5}
	h := Header{Source: 1, Tag: 5}
	allocs := testing.AllocsPerRun(1000, func() {
		q.appendPostedLocked(r)
		if q.takePostedLocked(&h) != r {
			panic("no match")
		}
		u := newUnexpected(1, &h, []byte("12345678"))
		q.appendUnexpectedLocked(u)
		if q.findUnexpectedLocked(AnySource, 5, true) != u {
			panic("no unexpected")
		}
		u.release()
	})
	if allocs > 0 {
		t.Fatalf("%v allocations per message", allocs)
	}
}
