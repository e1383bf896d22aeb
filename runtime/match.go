package mpirt

import "sync"

// matcher holds, per context id, the posted receives and the unexpected
// messages, each in arrival order so that the first match found is the one
// MPI's non-overtaking rule requires.
type matcher struct {
	mu     sync.Mutex
	queues []*ctxQueues // indexed by context id
}

type ctxQueues struct {
	postedHead, postedTail *Request
	unexpHead, unexpTail   *unexpected
}

// unexpected is a message (eager with its data, or an RTS) that arrived
// before a matching receive was posted.
type unexpected struct {
	peer int // world rank of the sender
	hdr  Header
	data []byte // eager payload copy
	next *unexpected
}

func (m *matcher) init() {}

// queuesLocked returns the queues of ctx, creating them. Must hold m.mu.
func (m *matcher) queuesLocked(ctx uint32) *ctxQueues {
	if int(ctx) >= len(m.queues) {
		n := make([]*ctxQueues, int(ctx)*2+8)
		copy(n, m.queues)
		m.queues = n
	}
	q := m.queues[ctx]
	if q == nil {
		q = new(ctxQueues)
		m.queues[ctx] = q
	}
	return q
}

func matches(src, tag int, h *Header) bool {
	return (src == AnySource || src == int(h.Source)) && (tag == AnyTag || tag == int(h.Tag))
}

// takePostedLocked removes and returns the first posted receive matching
// h, or nil. Must hold m.mu.
func (q *ctxQueues) takePostedLocked(h *Header) *Request {
	return q.unlinkPostedLocked(func(r *Request) bool { return matches(r.src, r.tag, h) })
}

// unlinkPostedLocked removes and returns the first posted receive for
// which pick is true, or nil. Must hold m.mu.
func (q *ctxQueues) unlinkPostedLocked(pick func(*Request) bool) *Request {
	var prev *Request
	for r := q.postedHead; r != nil; prev, r = r, r.next {
		if pick(r) {
			if prev == nil {
				q.postedHead = r.next
			} else {
				prev.next = r.next
			}
			if q.postedTail == r {
				q.postedTail = prev
			}
			r.next = nil
			return r
		}
	}
	return nil
}

func (q *ctxQueues) appendPostedLocked(r *Request) {
	if q.postedTail == nil {
		q.postedHead = r
	} else {
		q.postedTail.next = r
	}
	q.postedTail = r
}

// removePostedLocked unlinks r if it is still posted (cancel).
func (q *ctxQueues) removePostedLocked(r *Request) bool {
	return q.unlinkPostedLocked(func(p *Request) bool { return p == r }) != nil
}

// findUnexpectedLocked returns the first unexpected message matching
// (src, tag), removing it when take is set. Must hold m.mu.
func (q *ctxQueues) findUnexpectedLocked(src, tag int, take bool) *unexpected {
	var prev *unexpected
	for u := q.unexpHead; u != nil; prev, u = u, u.next {
		if matches(src, tag, &u.hdr) {
			if take {
				if prev == nil {
					q.unexpHead = u.next
				} else {
					prev.next = u.next
				}
				if q.unexpTail == u {
					q.unexpTail = prev
				}
				u.next = nil
			}
			return u
		}
	}
	return nil
}

func (q *ctxQueues) appendUnexpectedLocked(u *unexpected) {
	if q.unexpTail == nil {
		q.unexpHead = u
	} else {
		q.unexpTail.next = u
	}
	q.unexpTail = u
}
