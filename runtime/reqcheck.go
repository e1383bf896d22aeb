package mpirt

import (
	"fmt"
	"os"
	"runtime"
)

// Request lifetime checks (GMPI_DEBUG_REQUESTS=1): every recycled request
// is marked, and the data path stops the process with a stack dump of
// every goroutine when it delivers into, completes or recycles a request
// that is not in the state it expects (a request owned twice, recycled
// while still posted or registered, completed twice). Off by default: the
// checks cost a few loads and stores per message.
var checkRequests bool

// reqBug reports a broken request invariant and ends the process.
func reqBug(r *Request, format string, a ...any) {
	buf := make([]byte, 1<<20)
	n := runtime.Stack(buf, true)
	fmt.Fprintf(os.Stderr, "gmpi: request check failed: %s (request %p kind %d peer %d ctx %d src %d tag %d len %d id %d done %v queued %v released %v pooled %v reusable %v)\n%s\n",
		fmt.Sprintf(format, a...), r, r.Kind, r.peer, r.ctx, r.src, r.tag, len(r.buf), r.id, r.done.Load(),
		r.queued, r.released, r.pooled, r.reusable, buf[:n])
	os.Exit(70)
}

// checkTaken checks a request just taken from a pool or free list.
func checkTaken(r *Request) {
	if r.done.Load() || r.queued || r.buf != nil || r.Kind != 0 || r.id != 0 || r.qlink != (link[Request]{}) {
		reqBug(r, "a recycled request was changed after it was recycled")
	}
	r.released = false
}

// checkRecycle checks a request about to be recycled.
func (w *World) checkRecycle(r *Request) {
	if r.released {
		reqBug(r, "request recycled twice")
	}
	if r.queued {
		reqBug(r, "request recycled while still posted")
	}
	if r.id != 0 {
		w.pendingMu.Lock()
		p := w.pending[r.id]
		w.pendingMu.Unlock()
		if p == r {
			reqBug(r, "request recycled while still waiting for a reply")
		}
	}
}

// checkDeliver checks a receive about to take a message.
func checkDeliver(r *Request) {
	if r.released {
		reqBug(r, "message delivered into a recycled request")
	}
	if r.done.Load() {
		reqBug(r, "message delivered into a completed request")
	}
	if r.Kind != ReqRecv {
		reqBug(r, "message delivered into a request that is not a receive")
	}
	if r.queued {
		reqBug(r, "message delivered into a request still posted")
	}
}

// checkComplete checks a request about to complete.
func checkComplete(r *Request) {
	if r.released {
		reqBug(r, "recycled request completed")
	}
	if r.done.Load() && (r.Kind == ReqSend || r.Kind == ReqRecv) {
		reqBug(r, "request completed twice")
	}
}
