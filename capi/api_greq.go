package main

// extern int gmpi_call_greq_query(void *fn, void *extra_state, void *status);
// extern int gmpi_call_greq_free(void *fn, void *extra_state);
// extern int gmpi_call_greq_cancel(void *fn, void *extra_state, int complete);
// extern int gmpi_call_greq_poll(void *fn, void *extra_state, void *status);
// extern int gmpi_call_greq_wait(void *fn, void *extra_state, double timeout, void *status);
import "C"

import (
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// Generalized requests. The runtime's request completes on
// MPI_Grequest_complete; this file calls the user's C callbacks when the
// standard says:
//   - query_fn when a completion call (MPI_Wait, MPI_Test, ..._any/some/
//     all) returns the request as complete, to fill in its status and
//     error, and on every successful MPI_Request_get_status;
//   - free_fn right after that query in a completion call, or, for a
//     request released with MPI_Request_free, once both the free and
//     MPI_Grequest_complete happened (whichever is last);
//   - cancel_fn in MPI_Cancel, with complete telling whether
//     MPI_Grequest_complete was called already.
// MPICH's extension (MPIX_Grequest_start, classes) adds poll_fn, run by
// every progress pass until the request completes, and wait_fn, run by
// MPI_Wait/MPI_Waitall before they block on the request.

// greqFns is a set of callbacks: what MPIX_Grequest_class_create records
// and every generalized request carries.
type greqFns struct {
	query, free, cancel, poll, wait uintptr
}

// greq is the front's state of one generalized request.
type greq struct {
	fns   greqFns
	extra uintptr

	mu        sync.Mutex
	userFreed bool // MPI_Request_free was called before completion
	freed     bool // free_fn ran
}

func greqOf(r *mpirt.Request) *greq {
	if r == nil {
		return nil
	}
	if g := r.Gen(); g != nil {
		gr, _ := g.Ext.(*greq)
		return gr
	}
	return nil
}

// greqError turns the MPI error code a user callback returned into an
// error: a class or code the user added passes through unchanged, a
// predefined class keeps its class, codes MPI does not know become
// MPI_ERR_OTHER (mpirt.CallbackError).
func greqError(what string, rc int32) error {
	return mpirt.CallbackError("the generalized request's "+what, int(rc))
}

// greqQuery runs op's query_fn (when op is a generalized request) and
// makes the status it fills in and the code it returns op's.
func greqQuery(op *mpirt.Request) {
	g := greqOf(op)
	if g == nil {
		return
	}
	var st Status
	st.Source, st.Tag = mpirt.AnySource, mpirt.AnyTag
	rc := C.gmpi_call_greq_query(ptr(g.fns.query), ptr(g.extra), unsafe.Pointer(&st))
	op.Status = mpirt.Status{Source: int(st.Source), Tag: int(st.Tag), Count: statusCount(&st),
		Cancelled: st.CountHiAndCancelled&1 != 0}
	op.Err = nil
	if rc != 0 {
		op.Err = greqError("query_fn", int32(rc))
	}
}

// greqFree runs g's free_fn once; its error becomes op's when op has
// none yet.
func greqFree(op *mpirt.Request, g *greq) {
	g.mu.Lock()
	if g.freed {
		g.mu.Unlock()
		return
	}
	g.freed = true
	g.mu.Unlock()
	if rc := C.gmpi_call_greq_free(ptr(g.fns.free), ptr(g.extra)); rc != 0 && op.Err == nil {
		op.Err = greqError("free_fn", int32(rc))
	}
}

// greqRetire is retire's part for generalized requests: query, then free.
func greqRetire(op *mpirt.Request) {
	if g := greqOf(op); g != nil {
		greqQuery(op)
		greqFree(op, g)
	}
}

// greqRequestFree is MPI_Request_free's part for a generalized request:
// it reports whether the handle must stay until MPI_Grequest_complete
// (which then runs free_fn).
func greqRequestFree(r *mpirt.Request) (keepHandle bool) {
	g := greqOf(r)
	if g == nil {
		return false
	}
	g.mu.Lock()
	if !r.Done() {
		g.userFreed = true
		g.mu.Unlock()
		return true
	}
	g.mu.Unlock()
	greqFree(r, g)
	return false
}

// greqCancel runs the cancel_fn of a generalized request; handled is
// false for other requests.
func greqCancel(fn string, r *mpirt.Request) (rc int32, handled bool) {
	g := greqOf(r)
	if g == nil {
		return 0, false
	}
	if e := C.gmpi_call_greq_cancel(ptr(g.fns.cancel), ptr(g.extra), C.int(b2i(r.Done()))); e != 0 {
		return fail(fn, nil, greqError("cancel_fn", int32(e))), true
	}
	return 0, true
}

// startGreq creates a generalized request with callbacks fns.
func startGreq(fn string, fns greqFns, extra uintptr, request *int32) int32 {
	if request == nil {
		return badPointer(fn, "request")
	}
	g := &greq{fns: fns, extra: extra}
	gen := &mpirt.Generalized{Ext: g}
	if fns.poll != 0 {
		gen.Poll = func() {
			var st Status
			C.gmpi_call_greq_poll(ptr(fns.poll), ptr(extra), unsafe.Pointer(&st))
		}
	}
	if fns.wait != 0 {
		gen.Block = func() {
			var st Status
			C.gmpi_call_greq_wait(ptr(fns.wait), ptr(extra), 0, unsafe.Pointer(&st))
		}
	}
	*request = int32(world.AddRequest(world.NewGeneralized(gen)))
	return 0
}

// greqArgs checks the callbacks every generalized request needs.
func greqArgs(fn string, query, free, cancel unsafe.Pointer) (greqFns, int32) {
	for _, a := range []struct {
		p    unsafe.Pointer
		name string
	}{{query, "query_fn"}, {free, "free_fn"}, {cancel, "cancel_fn"}} {
		if a.p == nil {
			return greqFns{}, badPointer(fn, a.name)
		}
	}
	return greqFns{query: uintptr(query), free: uintptr(free), cancel: uintptr(cancel)}, 0
}

func MPI_Grequest_start(query, free, cancel, extra unsafe.Pointer, request *int32) int32 {
	const fn = "MPI_Grequest_start"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	fns, rc := greqArgs(fn, query, free, cancel)
	if rc != 0 {
		return rc
	}
	return startGreq(fn, fns, uintptr(extra), request)
}

func MPIX_Grequest_start(query, free, cancel, poll, wait, extra unsafe.Pointer, request *int32) int32 {
	const fn = "MPIX_Grequest_start"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	fns, rc := greqArgs(fn, query, free, cancel)
	if rc != 0 {
		return rc
	}
	fns.poll, fns.wait = uintptr(poll), uintptr(wait)
	return startGreq(fn, fns, uintptr(extra), request)
}

func MPIX_Grequest_class_create(query, free, cancel, poll, wait unsafe.Pointer, class *int32) int32 {
	const fn = "MPIX_Grequest_class_create"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	fns, rc := greqArgs(fn, query, free, cancel)
	if rc != 0 {
		return rc
	}
	if class == nil {
		return badPointer(fn, "greq_class")
	}
	fns.poll, fns.wait = uintptr(poll), uintptr(wait)
	*class = int32(world.AddGreqClass(&fns))
	return 0
}

func MPIX_Grequest_class_allocate(class int32, extra unsafe.Pointer, request *int32) int32 {
	const fn = "MPIX_Grequest_class_allocate"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	v, ok := world.GreqClass(mpirt.Handle(class))
	if !ok {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument greq_class: 0x%08x is not a generalized request class", uint32(class))
	}
	return startGreq(fn, *v.(*greqFns), uintptr(extra), request)
}

func MPI_Grequest_complete(request int32) int32 {
	const fn = "MPI_Grequest_complete"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if mpirt.Handle(request) == mpirt.HandleRequestNull {
		return failf(fn, nil, mpirt.ErrRequest, "invalid request argument request: MPI_REQUEST_NULL")
	}
	r := world.Request(mpirt.Handle(request))
	g := greqOf(r)
	if g == nil {
		return failf(fn, nil, mpirt.ErrRequest, "invalid request argument request: 0x%08x is not a generalized request", uint32(request))
	}
	if err := world.Complete(r); err != nil {
		return fail(fn, nil, err)
	}
	g.mu.Lock()
	userFreed := g.userFreed
	g.mu.Unlock()
	if userFreed {
		// MPI_Request_free came first: the request is gone for the user.
		world.FreeRequest(r)
		greqFree(r, g)
		if r.Err != nil {
			return fail(fn, nil, r.Err)
		}
	}
	return 0
}
