package mpirt

// ExpressClear reports whether a receive for (src, tag) posted now on
// context ctx would get the next message from src that it accepts, not
// something queued: no unexpected message matches (src, tag), and no
// receive posted before it accepts a message that this one accepts
// (conservative: with tag AnyTag, nothing else may be posted on ctx; with
// src AnySource, nothing for tag or any tag). capi's express lane for
// vMPI peers asks it when the engine is not empty (a receive from another
// process pending), then takes the frame itself.
func (w *World) ExpressClear(ctx uint32, src, tag int) bool {
	m := &w.match
	m.lock()
	defer m.unlock()
	var q *ctxQueues
	if ctx >= 2*ctxPairs {
		q = m.part[ctx]
	} else if int(ctx) < len(m.queues) {
		q = m.queues[ctx]
	}
	return q == nil || q.expressClearLocked(src, tag)
}

// expressClearLocked is ExpressClear on one context's queues. Must hold
// the matcher's lock.
func (q *ctxQueues) expressClearLocked(src, tag int) bool {
	if q.findUnexpectedLocked(src, tag, false) != nil {
		return false
	}
	if q.nPosted == 0 {
		return true
	}
	// The oldest receive (outside the tables) competes when some message
	// is accepted by both.
	if e := q.express; e != nil && (e.src == AnySource || src == AnySource || e.src == src) &&
		(e.tag == AnyTag || tag == AnyTag || e.tag == tag) {
		return false
	}
	if tag == AnyTag {
		return q.express != nil && q.nPosted == 1
	}
	if src == AnySource {
		// A message from anyone with tag: every receive posted for that
		// tag or for any tag competes. The table is scanned while small.
		if q.postedAny.head != nil || len(q.posted.keys) > 64 {
			return false
		}
		for i, used := range q.posted.used {
			if k := q.posted.keys[i]; used && (k&keyAnyTag != 0 || int32(uint32(k)) == int32(tag)) {
				return false
			}
		}
		return true
	}
	keys := [3]uint64{srcTagKey(src, tag), keyAnySrc | uint64(uint32(tag)), keyAnyTag | uint64(uint32(src))}
	for i, k := range keys {
		if i > 0 && q.nWild == 0 {
			break
		}
		if b := q.posted.get(k, false); b != nil && b.head != nil {
			return false
		}
	}
	return q.nWild == 0 || q.postedAny.head == nil
}
