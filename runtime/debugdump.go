package mpirt

import (
	"fmt"
	"io"
	"sort"
)

// DebugDump writes the engine's protocol state to out: the requests
// waiting for a reply frame, the queued control frames, and per context
// the posted receives and unexpected messages. It is for diagnosing hangs
// (capi prints it on SIGUSR1 when GMPI_DEBUG_SIGNAL=1); it takes the
// engine's locks, so a process stuck while holding one shows up as a dump
// that never comes.
func (w *World) DebugDump(out io.Writer) {
	fmt.Fprintf(out, "gmpi rank %d: engine state\n", w.cfg.Rank)
	w.pendingMu.Lock()
	ids := make([]uint64, 0, len(w.pending))
	for id := range w.pending {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	for _, id := range ids {
		r := w.pending[id]
		fmt.Fprintf(out, "  pending %d: kind %d peer %d ctx %d tag %d len %d remaining %d parts %d done %v\n",
			id, r.Kind, r.peer, r.ctx, r.hdr.Tag, len(r.buf), r.remaining, r.parts.Load(), r.done.Load())
	}
	w.pendingMu.Unlock()
	w.outboxMu.Lock()
	fmt.Fprintf(out, "  outbox %d frames, flushing %v\n", len(w.outbox), w.flushing.Load())
	w.outboxMu.Unlock()
	m := &w.match
	m.lock()
	for ctx, q := range m.queues {
		if q == nil || q.emptyLocked() {
			continue
		}
		fmt.Fprintf(out, "  ctx %d: %d posted (%d wild), %d unexpected\n", ctx, q.nPosted, q.nWild, q.nUnexp)
		if e := q.express; e != nil {
			fmt.Fprintf(out, "    posted (express) src %d tag %d len %d seq %d\n", e.src, e.tag, len(e.buf), e.seq)
		}
		for i, used := range q.posted.used {
			if used {
				for r := q.posted.vals[i].head; r != nil; r = r.qlink.next {
					fmt.Fprintf(out, "    posted src %d tag %d len %d seq %d\n", r.src, r.tag, len(r.buf), r.seq)
				}
			}
		}
		for r := q.postedAny.head; r != nil; r = r.qlink.next {
			fmt.Fprintf(out, "    posted any len %d seq %d\n", len(r.buf), r.seq)
		}
		for u := q.all.head; u != nil; u = u.links[uAll].next {
			fmt.Fprintf(out, "    unexpected from %d: kind %d src %d tag %d len %d send id %d flags %#x\n",
				u.peer, u.hdr.Kind, u.hdr.Source, u.hdr.Tag, u.hdr.Len, u.hdr.SendID, u.hdr.Flags)
		}
	}
	m.unlock()
	for _, d := range w.devices {
		if dd, ok := d.(interface{ DebugDump(io.Writer) }); ok {
			dd.DebugDump(out)
		}
	}
	fmt.Fprintf(out, "  schedules %d, background progress %v\n", w.sched.n.Load(), w.bg.running.Load())
}
