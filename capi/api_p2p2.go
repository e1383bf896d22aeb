package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Multiple completion, persistent requests, Request_free/get_status,
// Sendrecv_replace and the Status_set_* calls.

// retire releases r after its operation completed: a persistent request
// goes inactive and keeps its handle; any other request is freed and *h
// becomes MPI_REQUEST_NULL.
func retire(r *mpirt.Request, h *int32) {
	greqRetire(r.Op())
	if r.Persistent {
		r.Deactivate()
		return
	}
	expressRelease(*h)
	world.FreeRequest(r)
	*h = int32(mpirt.HandleRequestNull)
}

// opStatus is the status a completed operation reports.
func opStatus(op *mpirt.Request) *mpirt.Status {
	if op.Kind == mpirt.ReqRecv || op.Kind == mpirt.ReqGen {
		return &op.Status
	}
	return &mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag, Cancelled: op.Status.Cancelled}
}

func ignoreStatuses(s *Status) bool {
	return s == nil || uintptr(unsafe.Pointer(s)) == 1
}

// requestList resolves an array of count request handles: the requests
// (nil for MPI_REQUEST_NULL) and their operations (nil also for inactive
// persistent requests). They are stored in scratch when it is long
// enough (callers pass arrays on their stack, so a short list costs no
// allocation).
func requestList(fn string, count int32, requests *int32, scratch []*mpirt.Request) (hs []int32, rs, ops []*mpirt.Request, rc int32) {
	if count < 0 {
		return nil, nil, nil, failf(fn, nil, mpirt.ErrCount, "invalid count argument count: %d is negative", count)
	}
	if count > 0 && requests == nil {
		return nil, nil, nil, badPointer(fn, "array_of_requests")
	}
	hs = unsafe.Slice(requests, count)
	if len(scratch) < 2*int(count) {
		scratch = make([]*mpirt.Request, 2*count)
	}
	rs, ops = scratch[:count:count], scratch[count:2*count]
	clear(rs)
	clear(ops)
	for i := range hs {
		r, rc, ok := request(fn, &hs[i])
		if rc != 0 {
			return nil, nil, nil, rc
		}
		if ok {
			rs[i] = r
			ops[i] = r.Op()
		}
	}
	return hs, rs, ops, 0
}

// completeAll retires every request of a list whose operations are all
// done and writes the statuses (Waitall, Testall).
func completeAll(fn string, hs []int32, rs, ops []*mpirt.Request, statuses *Status) int32 {
	ignore := ignoreStatuses(statuses)
	var sts []Status
	if !ignore {
		sts = unsafe.Slice(statuses, len(hs))
	}
	var codes []int32
	for i, op := range ops {
		var st *Status
		if !ignore {
			st = &sts[i]
		}
		if op == nil {
			setStatus(st, &emptyStatus)
			continue
		}
		if code := retireInList(fn, rs[i], op, &hs[i], st); code != 0 {
			codes = errorCodes(codes, len(ops), i, code)
		}
	}
	return inStatus(fn, codes, sts)
}

// errorCodes records code as the error of entry i of n in codes, which it
// allocates (all MPI_SUCCESS) on the first error.
func errorCodes(codes []int32, n, i int, code int32) []int32 {
	if codes == nil {
		codes = make([]int32, n)
	}
	codes[i] = code
	return codes
}

// inStatus ends a multiple-completion call: when an operation failed
// (codes not nil), the MPI_ERROR field of every status written gets its
// operation's code (MPI_SUCCESS for the ones that succeeded) and the call
// fails with MPI_ERR_IN_STATUS itself (the standard's "returns the error
// code MPI_ERR_IN_STATUS", as MPICH does, not a code of that class);
// otherwise the MPI_ERROR fields stay as they were, as the standard
// leaves them.
func inStatus(fn string, codes []int32, sts []Status) int32 {
	if codes == nil {
		return 0
	}
	if sts != nil {
		for i, code := range codes {
			sts[i].Error = code
		}
	}
	return raise(commOrNil(nil), &mpirt.Error{Class: mpirt.ErrInStatus, Func: fn,
		Msg: "one or more requests failed; see the statuses", Code: mpirt.ErrInStatus})
}

// retireInList retires one request of a multiple-completion call and
// writes its status; it returns the operation's error code, registered
// (not raised), 0 on success.
func retireInList(fn string, r, op *mpirt.Request, h *int32, st *Status) int32 {
	retire(r, h)
	code := int32(0)
	if op.Err != nil {
		code = int32(mpirt.RegisterErrorCode(asError(fn, op.Err)))
	}
	setStatus(st, opStatus(op))
	if r == op {
		world.ReleaseRequest(op) // our last use of it
	}
	return code
}

func MPI_Testall(count int32, requests *int32, flag *int32, statuses *Status) int32 {
	const fn = "MPI_Testall"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	var scratch [64]*mpirt.Request
	hs, rs, ops, rc := requestList(fn, count, requests, scratch[:])
	if rc != 0 {
		return rc
	}
	world.Progress()
	for _, op := range ops {
		if op != nil && !op.Done() {
			*flag = 0
			return 0
		}
	}
	*flag = 1
	return completeAll(fn, hs, rs, ops, statuses)
}

func MPI_Waitany(count int32, requests *int32, index *int32, status *Status) int32 {
	return anyOf("MPI_Waitany", count, requests, index, nil, status)
}

func MPI_Testany(count int32, requests *int32, index *int32, flag *int32, status *Status) int32 {
	const fn = "MPI_Testany"
	if flag == nil {
		return badPointer(fn, "flag")
	}
	return anyOf(fn, count, requests, index, flag, status)
}

// anyOf is Waitany (flag nil) and Testany.
func anyOf(fn string, count int32, requests *int32, index *int32, flag *int32, status *Status) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if index == nil {
		return badPointer(fn, "indx")
	}
	var scratch [64]*mpirt.Request
	hs, rs, ops, rc := requestList(fn, count, requests, scratch[:])
	if rc != 0 {
		return rc
	}
	var i int
	if flag == nil {
		i = world.WaitAny(ops)
	} else {
		i = -1
		anyActive := false
		world.Progress()
		for j, op := range ops {
			if op == nil {
				continue
			}
			anyActive = true
			if op.Done() {
				i = j
				break
			}
		}
		if i < 0 && anyActive {
			*flag = 0
			*index = undefined
			return 0
		}
		*flag = 1
	}
	if i < 0 {
		*index = undefined
		setStatus(status, &emptyStatus)
		return 0
	}
	*index = int32(i)
	return finish(fn, rs[i], ops[i], &hs[i], status)
}

func MPI_Waitsome(incount int32, requests *int32, outcount *int32, indices *int32, statuses *Status) int32 {
	return someOf("MPI_Waitsome", true, incount, requests, outcount, indices, statuses)
}

func MPI_Testsome(incount int32, requests *int32, outcount *int32, indices *int32, statuses *Status) int32 {
	return someOf("MPI_Testsome", false, incount, requests, outcount, indices, statuses)
}

func someOf(fn string, wait bool, incount int32, requests *int32, outcount *int32, indices *int32, statuses *Status) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if outcount == nil {
		return badPointer(fn, "outcount")
	}
	if incount > 0 && indices == nil {
		return badPointer(fn, "array_of_indices")
	}
	var scratch [64]*mpirt.Request
	hs, rs, ops, rc := requestList(fn, incount, requests, scratch[:])
	if rc != 0 {
		return rc
	}
	anyActive := false
	for _, op := range ops {
		if op != nil {
			anyActive = true
			break
		}
	}
	if !anyActive {
		*outcount = undefined
		return 0
	}
	var done []int
	if wait {
		done = world.WaitSome(ops)
	} else {
		done = world.TestSome(ops)
	}
	idx := unsafe.Slice(indices, incount)
	ignore := ignoreStatuses(statuses)
	var sts []Status
	if !ignore {
		sts = unsafe.Slice(statuses, incount)
	}
	var codes []int32
	for k, i := range done {
		var st *Status
		if !ignore {
			st = &sts[k]
		}
		idx[k] = int32(i)
		if code := retireInList(fn, rs[i], ops[i], &hs[i], st); code != 0 {
			codes = errorCodes(codes, len(done), k, code)
		}
	}
	*outcount = int32(len(done))
	if sts != nil {
		sts = sts[:len(done)]
	}
	return inStatus(fn, codes, sts)
}

func MPI_Request_free(request_ *int32) int32 {
	const fn = "MPI_Request_free"
	r, rc := liveRequest(fn, request_)
	if rc != 0 {
		return rc
	}
	// An active operation still completes; only the handle goes away.
	if !greqRequestFree(r) {
		expressRelease(*request_)
		world.FreeRequest(r)
	}
	*request_ = int32(mpirt.HandleRequestNull)
	return 0
}

func MPI_Request_get_status(request_ int32, flag *int32, status *Status) int32 {
	const fn = "MPI_Request_get_status"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	h := request_
	r, rc, ok := request(fn, &h)
	if rc != 0 {
		return rc
	}
	var op *mpirt.Request
	if ok {
		op = r.Op()
	}
	if op == nil {
		*flag = 1
		setStatus(status, &emptyStatus)
		return 0
	}
	if !world.Test(op) {
		*flag = 0
		return 0
	}
	*flag = 1
	greqQuery(op)
	code := int32(0)
	if op.Err != nil {
		code = fail(fn, op.Comm(), op.Err)
	}
	setStatus(status, opStatus(op))
	return code
}

// Persistent requests.

func MPI_Send_init(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Send_init", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeStandard)
}

func MPI_Send_init_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Send_init_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeStandard)
}

func MPI_Ssend_init(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Ssend_init", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeSync)
}

func MPI_Ssend_init_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Ssend_init_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeSync)
}

func MPI_Rsend_init(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Rsend_init", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeReady)
}

func MPI_Rsend_init_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Rsend_init_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeReady)
}

func MPI_Bsend_init(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Bsend_init", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeBuffered)
}

func MPI_Bsend_init_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return sendInit("MPI_Bsend_init_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeBuffered)
}

func sendInit(fn string, buf unsafe.Pointer, count int64, dtH, dest, tag, commH int32, request *int32, mode mpirt.SendMode) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, tag, commH, false)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	*request = int32(world.AddRequest(c.SendInit(buf, int(count), dt, int(dest), int(tag), mode)))
	return 0
}

func MPI_Recv_init(buf unsafe.Pointer, count, datatype, source, tag, commH int32, request *int32) int32 {
	return recvInit("MPI_Recv_init", buf, int64(count), datatype, source, tag, commH, request)
}

func MPI_Recv_init_c(buf unsafe.Pointer, count int64, datatype, source, tag, commH int32, request *int32) int32 {
	return recvInit("MPI_Recv_init_c", buf, count, datatype, source, tag, commH, request)
}

func recvInit(fn string, buf unsafe.Pointer, count int64, dtH, source, tag, commH int32, request *int32) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, source, tag, commH, true)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	*request = int32(world.AddRequest(c.RecvInit(buf, int(count), dt, int(source), int(tag))))
	return 0
}

func start(fn string, h *int32) int32 {
	r, rc, ok := request(fn, h)
	if rc != 0 {
		return rc
	}
	if !ok {
		return failf(fn, nil, mpirt.ErrRequest, "invalid request argument: MPI_REQUEST_NULL")
	}
	if !r.Persistent {
		return failf(fn, r.Comm(), mpirt.ErrRequest, "invalid request argument: not a persistent request")
	}
	return fail(fn, r.Comm(), r.Start())
}

func MPI_Start(request_ *int32) int32 {
	const fn = "MPI_Start"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	return start(fn, request_)
}

func MPI_Startall(count int32, requests *int32) int32 {
	const fn = "MPI_Startall"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if count < 0 {
		return failf(fn, nil, mpirt.ErrCount, "invalid count argument count: %d is negative", count)
	}
	if count > 0 && requests == nil {
		return badPointer(fn, "array_of_requests")
	}
	hs := unsafe.Slice(requests, count)
	for i := range hs {
		if rc := start(fn, &hs[i]); rc != 0 {
			return rc
		}
	}
	return 0
}

func MPI_Sendrecv_replace(buf unsafe.Pointer, count, datatype, dest, sendtag, source, recvtag, commH int32, status *Status) int32 {
	return sendrecvReplace("MPI_Sendrecv_replace", buf, int64(count), datatype, dest, sendtag, source, recvtag, commH, status)
}

func MPI_Sendrecv_replace_c(buf unsafe.Pointer, count int64, datatype, dest, sendtag, source, recvtag, commH int32, status *Status) int32 {
	return sendrecvReplace("MPI_Sendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, commH, status)
}

func sendrecvReplace(fn string, buf unsafe.Pointer, count int64, dtH, dest, sendtag, source, recvtag, commH int32, status *Status) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, sendtag, commH, false)
	if rc != 0 {
		return rc
	}
	if rc := checkRank(fn, c, source, "source", true); rc != 0 {
		return rc
	}
	if rc := checkTag(fn, c, recvtag, true); rc != 0 {
		return rc
	}
	st, err := c.SendrecvReplace(buf, int(count), dt, int(dest), int(sendtag), int(source), int(recvtag))
	code := fail(fn, c, err)
	setStatus(status, &st)
	return code
}

// Status_set_* and Test_cancelled.

func statusArg(fn string, s *Status) int32 {
	if ignoreStatuses(s) {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument status: NULL or MPI_STATUS_IGNORE")
	}
	return 0
}

func setElements(fn string, status *Status, dtH int32, count int64) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := statusArg(fn, status); rc != 0 {
		return rc
	}
	d, rc := typeArg(fn, dtH)
	if rc != 0 {
		return rc
	}
	if count < 0 {
		return failf(fn, nil, mpirt.ErrCount, "invalid count argument count: %d is negative", count)
	}
	// count basic elements of d, as MPI_Get_elements counts them (a
	// derived type may end inside one of its elements).
	b, ok := d.ElementBytes(count)
	if !ok {
		return failf(fn, nil, mpirt.ErrCount, "invalid count argument count: %d basic elements of this datatype take more than 2^63-1 bytes", count)
	}
	if b >= 1<<sizesShift && mixedReps() {
		return failf(fn, nil, mpirt.ErrCount, "invalid count argument count: %d bytes (2^59 or more) cannot be kept in a status in a job of mixed data representations", b)
	}
	n := uint64(b)
	status.CountLo = int32(uint32(n))
	status.CountHiAndCancelled = int32(n>>32)<<1 | status.CountHiAndCancelled&1
	return 0
}

func MPI_Status_set_elements(status *Status, datatype, count int32) int32 {
	return setElements("MPI_Status_set_elements", status, datatype, int64(count))
}

func MPI_Status_set_elements_x(status *Status, datatype int32, count int64) int32 {
	return setElements("MPI_Status_set_elements_x", status, datatype, count)
}

func MPI_Status_set_cancelled(status *Status, flag int32) int32 {
	const fn = "MPI_Status_set_cancelled"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := statusArg(fn, status); rc != 0 {
		return rc
	}
	status.CountHiAndCancelled = status.CountHiAndCancelled&^1 | b2i(flag != 0)
	return 0
}

func MPI_Test_cancelled(status *Status, flag *int32) int32 {
	const fn = "MPI_Test_cancelled"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if rc := statusArg(fn, status); rc != 0 {
		return rc
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	*flag = status.CountHiAndCancelled & 1
	return 0
}

// Buffered sends (MPI_Bsend and MPI_Ibsend are in api_p2p.go).

func MPI_Buffer_attach(buffer unsafe.Pointer, size int32) int32 {
	return bufferAttach("MPI_Buffer_attach", buffer, int64(size))
}

func MPI_Buffer_attach_c(buffer unsafe.Pointer, size int64) int32 {
	return bufferAttach("MPI_Buffer_attach_c", buffer, size)
}

func bufferAttach(fn string, buffer unsafe.Pointer, size int64) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if size < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument size: %d is negative", size)
	}
	if buffer == nil && size > 0 {
		return failf(fn, nil, mpirt.ErrBuffer, "invalid buffer argument buffer: NULL with size %d", size)
	}
	return fail(fn, nil, world.BufferAttach(buffer, int(size)))
}

func MPI_Buffer_detach(bufferAddr unsafe.Pointer, size *int32) int32 {
	const fn = "MPI_Buffer_detach"
	if rc := detachArgs(fn, bufferAddr, size == nil); rc != 0 {
		return rc
	}
	if n := world.BufferSize(); n > 1<<31-1 {
		return failf(fn, nil, mpirt.ErrCount, "the attached buffer of %d bytes does not fit the int size argument; use MPI_Buffer_detach_c", n)
	}
	buf, n := world.BufferDetach()
	*(*unsafe.Pointer)(bufferAddr) = buf
	*size = int32(n)
	return 0
}

func MPI_Buffer_detach_c(bufferAddr unsafe.Pointer, size *int64) int32 {
	const fn = "MPI_Buffer_detach_c"
	if rc := detachArgs(fn, bufferAddr, size == nil); rc != 0 {
		return rc
	}
	buf, n := world.BufferDetach()
	*(*unsafe.Pointer)(bufferAddr) = buf
	*size = int64(n)
	return 0
}

func detachArgs(fn string, bufferAddr unsafe.Pointer, nilSize bool) int32 {
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if bufferAddr == nil {
		return badPointer(fn, "buffer_addr")
	}
	if nilSize {
		return badPointer(fn, "size")
	}
	return 0
}

func MPI_Cancel(request_ *int32) int32 {
	const fn = "MPI_Cancel"
	r, rc := liveRequest(fn, request_)
	if rc != 0 {
		return rc
	}
	if rc, ok := greqCancel(fn, r); ok {
		return rc
	}
	world.Cancel(r)
	return 0
}

// liveRequest resolves *request for calls that need a real request:
// MPI_REQUEST_NULL is an error there.
func liveRequest(fn string, request_ *int32) (*mpirt.Request, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	r, rc, ok := request(fn, request_)
	if rc != 0 {
		return nil, rc
	}
	if !ok {
		return nil, failf(fn, nil, mpirt.ErrRequest, "invalid request argument: MPI_REQUEST_NULL")
	}
	return r, 0
}
