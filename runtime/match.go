package mpirt

import "sync"

// The matching engine: per context id, the posted receives and the
// unexpected messages (eager data or an RTS that arrived before its
// receive). MPI's non-overtaking rule asks that a message match the
// earliest posted receive that accepts it, and that a receive take the
// earliest arrived message it accepts. Both queues are indexed so that
// neither needs a scan in the common case:
//
//   - A posted receive sits in exactly one FIFO bucket chosen by its
//     pattern: (source, tag), (ANY_SOURCE, tag), (source, ANY_TAG), or the
//     single (ANY_SOURCE, ANY_TAG) list. An arriving message (s, t) can only
//     match the heads of the four buckets (s,t), (ANY,t), (s,ANY), (ANY,ANY),
//     and of those the one posted first (lowest seq) wins.
//   - An unexpected message sits in four FIFO lists at once: by (source,
//     tag), by tag, by source, and the list of all. A receive looks at the
//     head of the one list its pattern selects.
//
// Buckets live in open-addressing hash tables (listTable) that allocate
// nothing once warm and drop a bucket when it empties, so programs that
// use ever new tags do not grow the tables.
type matcher struct {
	mu     sync.Mutex
	queues []*ctxQueues          // indexed by context id
	part   map[uint32]*ctxQueues // contexts above the pool: partitioned (partBit set), level sub-communicators (SubComm)
	// single is set when only one thread calls into the library at a
	// time (thread level below MPI_THREAD_MULTIPLE, no internal
	// goroutines): the data path then skips mu. Rare paths may lock mu
	// regardless; that is harmless.
	single bool
	// queued counts the posted receives and unexpected messages of every
	// context. It points at queuedWord unless World.SetQueuedWord moved
	// it to memory that code outside Go reads (capi's express lane
	// receives only while it is 0). Plain int32: it changes under mu, or
	// in a single-threaded process.
	queued     *int32
	queuedWord int32
}

func (m *matcher) lock() {
	if !m.single {
		m.mu.Lock()
	}
}

func (m *matcher) unlock() {
	if !m.single {
		m.mu.Unlock()
	}
}

type ctxQueues struct {
	seq    uint64 // posting order of receives
	queued *int32 // the matcher's count of everything queued

	nPosted, nWild int // posted receives; those with a wildcard
	// express is a receive posted while nothing else was: it is the
	// oldest posted receive, so a message it accepts goes to it without
	// looking at the tables (ping-pong never touches them).
	express   *Request
	posted    listTable[Request]
	postedAny bucket[Request] // (ANY_SOURCE, ANY_TAG)

	nUnexp int
	unexp  [unexpIndexed]listTable[unexpected] // by (src,tag), by tag, by src
	all    bucket[unexpected]                  // every unexpected message
}

// Which lists an unexpected message is linked into (unexpected.links).
const (
	uBySrcTag = iota
	uByTag
	uBySrc
	unexpIndexed // the tables above; uAll is the plain list
	uAll         = unexpIndexed
	uLists       = unexpIndexed + 1
)

// Key spaces of the posted table: the two wildcard classes get their own
// high bits so that they never collide with a (source, tag) key.
const (
	keyAnySrc = 1 << 62
	keyAnyTag = 1 << 63
)

func srcTagKey(src, tag int) uint64 { return uint64(uint32(src))<<32 | uint64(uint32(tag)) }

// unexpected is a message (eager with its data, or an RTS) that arrived
// before a matching receive was posted.
type unexpected struct {
	peer  int // world rank of the sender
	hdr   Header
	data  []byte // eager payload copy (pooled capacity)
	links [uLists]link[unexpected]
}

type link[T any] struct{ prev, next *T }

// bucket is a doubly linked FIFO list threaded through the elements.
type bucket[T any] struct{ head, tail *T }

// linked gives access to an element's link in one list.
type linked[T any] func(*T) *link[T]

func (b *bucket[T]) push(e *T, l linked[T]) {
	le := l(e)
	le.prev, le.next = b.tail, nil
	if b.tail == nil {
		b.head = e
	} else {
		l(b.tail).next = e
	}
	b.tail = e
}

func (b *bucket[T]) remove(e *T, l linked[T]) {
	le := l(e)
	if le.prev == nil {
		b.head = le.next
	} else {
		l(le.prev).next = le.next
	}
	if le.next == nil {
		b.tail = le.prev
	} else {
		l(le.next).prev = le.prev
	}
	le.prev, le.next = nil, nil
}

func (b *bucket[T]) empty() bool { return b.head == nil }

func postedLink(r *Request) *link[Request] { return &r.qlink }

func unexpLink(i int) linked[unexpected] {
	return func(u *unexpected) *link[unexpected] { return &u.links[i] }
}

// Hoisted so the hot path builds no closures.
var unexpLinks = [uLists]linked[unexpected]{unexpLink(0), unexpLink(1), unexpLink(2), unexpLink(3)}

// queuesLocked returns the queues of ctx, creating them. Must hold m.mu.
func (m *matcher) queuesLocked(ctx uint32) *ctxQueues {
	if ctx >= 2*ctxPairs {
		q := m.part[ctx]
		if q == nil {
			if m.part == nil {
				m.part = make(map[uint32]*ctxQueues)
			}
			q = &ctxQueues{queued: m.queuedPtr()}
			m.part[ctx] = q
		}
		return q
	}
	if int(ctx) < len(m.queues) {
		if q := m.queues[ctx]; q != nil {
			return q
		}
	} else {
		n := make([]*ctxQueues, int(ctx)*2+8)
		copy(n, m.queues)
		m.queues = n
	}
	q := &ctxQueues{queued: m.queuedPtr()}
	m.queues[ctx] = q
	return q
}

func (m *matcher) queuedPtr() *int32 {
	if m.queued == nil {
		m.queued = &m.queuedWord
	}
	return m.queued
}

// dropIfEmptyLocked forgets the queues of ctx when nothing is queued
// there (communicator freed; a reused id starts clean). Must hold m.mu.
func (m *matcher) dropIfEmptyLocked(ctx uint32) {
	if ctx >= 2*ctxPairs {
		if q := m.part[ctx]; q != nil && q.nPosted == 0 && q.nUnexp == 0 {
			delete(m.part, ctx)
		}
		return
	}
	if int(ctx) < len(m.queues) {
		if q := m.queues[ctx]; q != nil && q.nPosted == 0 && q.nUnexp == 0 {
			m.queues[ctx] = nil
		}
	}
}

func matches(src, tag int, h *Header) bool {
	return (src == AnySource || src == int(h.Source)) && (tag == AnyTag || tag == int(h.Tag))
}

// postedKey is the bucket of a receive pattern; ok is false for the
// (ANY_SOURCE, ANY_TAG) list.
func postedKey(src, tag int) (key uint64, ok bool) {
	switch {
	case src == AnySource && tag == AnyTag:
		return 0, false
	case src == AnySource:
		return keyAnySrc | uint64(uint32(tag)), true
	case tag == AnyTag:
		return keyAnyTag | uint64(uint32(src)), true
	}
	return srcTagKey(src, tag), true
}

// appendPostedLocked queues receive r (pattern r.src, r.tag).
func (q *ctxQueues) appendPostedLocked(r *Request) {
	if checkRequests && (r.queued || r.done.Load() || r.released) {
		reqBug(r, "receive posted twice, or posted after it completed or was recycled")
	}
	q.seq++
	r.seq = q.seq
	r.queued = true
	q.nPosted++
	*q.queued++
	if r.src == AnySource || r.tag == AnyTag {
		q.nWild++
	}
	if q.nPosted == 1 {
		q.express = r
		return
	}
	if key, ok := postedKey(r.src, r.tag); ok {
		q.posted.get(key, true).push(r, postedLink)
	} else {
		q.postedAny.push(r, postedLink)
	}
}

// takePostedLocked removes and returns the earliest posted receive that
// matches h, or nil. Must hold m.mu.
func (q *ctxQueues) takePostedLocked(h *Header) *Request {
	if q.nPosted == 0 {
		return nil
	}
	if e := q.express; e != nil {
		if matches(e.src, e.tag, h) {
			q.dropExpress(e)
			return e
		}
		if q.nPosted == 1 {
			return nil
		}
	}
	src, tag := int(h.Source), int(h.Tag)
	var best *Request
	var bestKey uint64
	bestAny := false
	if b := q.posted.get(srcTagKey(src, tag), false); b != nil {
		best, bestKey = b.head, srcTagKey(src, tag)
	}
	if q.nWild > 0 {
		for _, k := range [2]uint64{keyAnySrc | uint64(uint32(tag)), keyAnyTag | uint64(uint32(src))} {
			if b := q.posted.get(k, false); b != nil && (best == nil || b.head.seq < best.seq) {
				best, bestKey = b.head, k
			}
		}
		if r := q.postedAny.head; r != nil && (best == nil || r.seq < best.seq) {
			best, bestAny = r, true
		}
	}
	if best == nil {
		return nil
	}
	q.unlinkPostedLocked(best, bestKey, bestAny)
	return best
}

func (q *ctxQueues) unlinkPostedLocked(r *Request, key uint64, any bool) {
	r.queued = false
	q.nPosted--
	*q.queued--
	if r.src == AnySource || r.tag == AnyTag {
		q.nWild--
	}
	if any {
		q.postedAny.remove(r, postedLink)
		return
	}
	b := q.posted.get(key, false)
	b.remove(r, postedLink)
	if b.empty() {
		q.posted.del(key)
	}
}

func (q *ctxQueues) dropExpress(r *Request) {
	r.queued = false
	q.express = nil
	q.nPosted--
	*q.queued--
	if r.src == AnySource || r.tag == AnyTag {
		q.nWild--
	}
}

// removePostedLocked unlinks r if it is still posted (cancel).
func (q *ctxQueues) removePostedLocked(r *Request) bool {
	if q.express == r {
		q.dropExpress(r)
		return true
	}
	key, ok := postedKey(r.src, r.tag)
	var b *bucket[Request]
	if ok {
		b = q.posted.get(key, false)
	} else {
		b = &q.postedAny
	}
	if b == nil {
		return false
	}
	for p := b.head; p != nil; p = p.qlink.next {
		if p == r {
			q.unlinkPostedLocked(r, key, !ok)
			return true
		}
	}
	return false
}

// unexpList returns the list of unexpected messages a receive pattern
// selects: every message in it matches, the head arrived first.
func (q *ctxQueues) unexpList(src, tag int) (b *bucket[unexpected], list int) {
	switch {
	case src == AnySource && tag == AnyTag:
		return &q.all, uAll
	case src == AnySource:
		return q.unexp[uByTag].get(uint64(uint32(tag)), false), uByTag
	case tag == AnyTag:
		return q.unexp[uBySrc].get(uint64(uint32(src)), false), uBySrc
	}
	return q.unexp[uBySrcTag].get(srcTagKey(src, tag), false), uBySrcTag
}

// unexpKeys are the keys of u in the indexed lists.
func unexpKeys(h *Header) [unexpIndexed]uint64 {
	return [unexpIndexed]uint64{
		uBySrcTag: srcTagKey(int(h.Source), int(h.Tag)),
		uByTag:    uint64(uint32(h.Tag)),
		uBySrc:    uint64(uint32(h.Source)),
	}
}

// findUnexpectedLocked returns the earliest unexpected message matching
// (src, tag), removing it when take is set. Must hold m.mu.
func (q *ctxQueues) findUnexpectedLocked(src, tag int, take bool) *unexpected {
	if q.nUnexp == 0 {
		return nil
	}
	b, _ := q.unexpList(src, tag)
	if b == nil || b.head == nil {
		return nil
	}
	u := b.head
	if take {
		q.unlinkUnexpectedLocked(u)
	}
	return u
}

// takeUnexpectedLocked removes and returns the earliest unexpected
// message from src with tag for which pick is true (src and tag may be
// wildcards). It scans one list; used by rare operations (cancel).
func (q *ctxQueues) takeUnexpectedLocked(src, tag int, pick func(*unexpected) bool) *unexpected {
	if q.nUnexp == 0 {
		return nil
	}
	b, list := q.unexpList(src, tag)
	if b == nil {
		return nil
	}
	for u := b.head; u != nil; u = u.links[list].next {
		if pick(u) {
			q.unlinkUnexpectedLocked(u)
			return u
		}
	}
	return nil
}

func (q *ctxQueues) appendUnexpectedLocked(u *unexpected) {
	q.nUnexp++
	*q.queued++
	keys := unexpKeys(&u.hdr)
	for i, k := range keys {
		q.unexp[i].get(k, true).push(u, unexpLinks[i])
	}
	q.all.push(u, unexpLinks[uAll])
}

func (q *ctxQueues) unlinkUnexpectedLocked(u *unexpected) {
	q.nUnexp--
	*q.queued--
	keys := unexpKeys(&u.hdr)
	for i, k := range keys {
		b := q.unexp[i].get(k, false)
		b.remove(u, unexpLinks[i])
		if b.empty() {
			q.unexp[i].del(k)
		}
	}
	q.all.remove(u, unexpLinks[uAll])
}

// emptyLocked reports whether nothing is queued on the context.
func (q *ctxQueues) emptyLocked() bool { return q.nPosted == 0 && q.nUnexp == 0 }

// unexpPool recycles unexpected records and their payload buffers.
var unexpPool = sync.Pool{New: func() any { return new(unexpected) }}

func newUnexpected(peer int, h *Header, payload []byte) *unexpected {
	u := unexpPool.Get().(*unexpected)
	u.peer, u.hdr = peer, *h
	u.data = append(u.data[:0], payload...)
	return u
}

// release returns u to the pool once its data was consumed.
func (u *unexpected) release() {
	if cap(u.data) > 1<<20 {
		u.data = nil
	}
	u.data = u.data[:0]
	u.links = [uLists]link[unexpected]{}
	unexpPool.Put(u)
}

// listTable maps uint64 keys to FIFO buckets with open addressing and
// linear probing. Deletion shifts entries back, so there are no
// tombstones; a pointer returned by get is valid until the next get with
// create or del.
type listTable[T any] struct {
	keys  []uint64
	vals  []bucket[T]
	used  []bool
	count int
}

func hashKey(k uint64, mask int) int {
	return int((k*0x9E3779B97F4A7C15)>>32) & mask
}

func (t *listTable[T]) get(key uint64, create bool) *bucket[T] {
	if len(t.keys) == 0 {
		if !create {
			return nil
		}
		t.resize(16)
	}
	mask := len(t.keys) - 1
	for i := hashKey(key, mask); ; i = (i + 1) & mask {
		if !t.used[i] {
			if !create {
				return nil
			}
			if 4*(t.count+1) > 3*len(t.keys) {
				t.resize(2 * len(t.keys))
				return t.get(key, true)
			}
			t.used[i], t.keys[i], t.vals[i] = true, key, bucket[T]{}
			t.count++
			return &t.vals[i]
		}
		if t.keys[i] == key {
			return &t.vals[i]
		}
	}
}

func (t *listTable[T]) del(key uint64) {
	if len(t.keys) == 0 {
		return
	}
	mask := len(t.keys) - 1
	i := hashKey(key, mask)
	for ; t.used[i]; i = (i + 1) & mask {
		if t.keys[i] == key {
			break
		}
	}
	if !t.used[i] {
		return
	}
	t.count--
	// Backward-shift deletion: move later entries of the probe run into
	// the hole when their home slot allows it.
	for j := i; ; {
		j = (j + 1) & mask
		if !t.used[j] {
			break
		}
		home := hashKey(t.keys[j], mask)
		// j's entry may move to i if home is not cyclically in (i, j].
		if (i <= j && (home <= i || home > j)) || (i > j && home <= i && home > j) {
			t.keys[i], t.vals[i] = t.keys[j], t.vals[j]
			i = j
		}
	}
	t.used[i], t.vals[i] = false, bucket[T]{}
	// Shrink a table that grew for a burst and is now mostly empty.
	if len(t.keys) > 64 && 8*t.count < len(t.keys) {
		t.resize(len(t.keys) / 2)
	}
}

func (t *listTable[T]) resize(n int) {
	keys, vals, used := t.keys, t.vals, t.used
	t.keys, t.vals, t.used, t.count = make([]uint64, n), make([]bucket[T], n), make([]bool, n), 0
	for i, u := range used {
		if u {
			*t.get(keys[i], true) = vals[i]
		}
	}
}
