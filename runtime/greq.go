package mpirt

import (
	"sync"
	"sync/atomic"
)

// Generalized requests (MPI_Grequest_start and MPICH's MPIX_ extensions).
//
// A generalized request stands for an operation the user carries out: it
// completes when the user calls MPI_Grequest_complete (Complete), and the
// completion calls treat it like any request. The user's callbacks
// (query, free, cancel) are C functions that capi calls at the times the
// standard sets; the runtime only knows two optional hooks of the MPIX
// extension:
//
//   - Poll runs on every progress pass while the request is not complete
//     (MPIX poll_fn: it may call MPI_Grequest_complete);
//   - Block runs once when a waiter is about to block on the request
//     alone (MPI_Wait, MPI_Waitall: MPIX wait_fn), and must complete it.
//
// Lifecycle:
//
//	NewGeneralized ──Complete──▶ done ──completion call or Request_free──▶ freed

// ReqGen is the kind of a generalized request.
const ReqGen ReqKind = ReqColl + 1

// Generalized is the part of a request that only generalized requests
// have.
type Generalized struct {
	// Ext is the front's own state (its callbacks and extra_state).
	Ext   any
	Poll  func()
	Block func()
}

// pollers are the incomplete generalized requests that have a Poll hook.
type pollers struct {
	n       atomic.Int32 // len(list), read without the lock on every pass
	mu      sync.Mutex
	list    []*Request
	running atomic.Bool // a pass is calling hooks (no recursion from a hook)
}

// NewGeneralized returns a new incomplete generalized request.
func (w *World) NewGeneralized(g *Generalized) *Request {
	r := &Request{w: w, Kind: ReqGen, gen: g}
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	if g.Poll != nil {
		p := &w.gpoll
		p.mu.Lock()
		p.list = append(p.list, r)
		p.n.Store(int32(len(p.list)))
		p.mu.Unlock()
	}
	return r
}

// Gen returns the generalized part of r, nil for other requests.
func (r *Request) Gen() *Generalized { return r.gen }

// Complete marks generalized request r complete (MPI_Grequest_complete);
// it fails when r is complete already.
func (w *World) Complete(r *Request) error {
	if r.gen == nil {
		return Errorf(ErrRequest, "", "invalid request argument request: not a generalized request")
	}
	if !r.completing.CompareAndSwap(false, true) {
		return Errorf(ErrRequest, "", "invalid request argument request: MPI_Grequest_complete was called on it already")
	}
	if r.gen.Poll != nil {
		p := &w.gpoll
		p.mu.Lock()
		for i, q := range p.list {
			if q == r {
				p.list = append(p.list[:i], p.list[i+1:]...)
				break
			}
		}
		p.n.Store(int32(len(p.list)))
		p.mu.Unlock()
	}
	w.complete(r)
	return nil
}

// pollGeneralized runs the Poll hook of every incomplete generalized
// request once; it returns how many completed.
func (w *World) pollGeneralized() int {
	p := &w.gpoll
	if !p.running.CompareAndSwap(false, true) {
		return 0
	}
	defer p.running.Store(false)
	p.mu.Lock()
	rs := append([]*Request(nil), p.list...)
	p.mu.Unlock()
	n := 0
	for _, r := range rs {
		if r.Done() {
			continue
		}
		r.gen.Poll()
		if r.Done() {
			n++
		}
	}
	return n
}

// blockGeneralized runs the Block hook of r when it has one and is not
// complete yet.
func blockGeneralized(r *Request) {
	if r != nil && r.gen != nil && r.gen.Block != nil && !r.Done() {
		r.gen.Block()
	}
}

// AddGreqClass registers a generalized request class
// (MPIX_Grequest_class_create); v is the front's description of it.
func (w *World) AddGreqClass(v any) Handle { return w.greqClasses.Add(v) }

// GreqClass resolves a class handle; ok is false when h names none.
func (w *World) GreqClass(h Handle) (v any, ok bool) { return w.greqClasses.Get(h) }
