package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

func MPI_Send(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Send", buf, count, datatype, dest, tag, commH, mpirt.ModeStandard)
}

func MPI_Ssend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Ssend", buf, count, datatype, dest, tag, commH, mpirt.ModeSync)
}

func MPI_Rsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Rsend", buf, count, datatype, dest, tag, commH, mpirt.ModeReady)
}

func send(fn string, buf unsafe.Pointer, count, dtH, dest, tag, commH int32, mode mpirt.SendMode) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, tag, commH, false)
	if rc != 0 {
		return rc
	}
	return fail(fn, c, c.SendTyped(buf, int(count), dt, int(dest), int(tag), mode))
}

func MPI_Recv(buf unsafe.Pointer, count, datatype, source, tag, commH int32, status *Status) int32 {
	const fn = "MPI_Recv"
	c, dt, rc := p2pArgs(fn, buf, count, datatype, source, tag, commH, true)
	if rc != 0 {
		return rc
	}
	st, err := c.RecvTyped(buf, int(count), dt, int(source), int(tag))
	code := fail(fn, c, err)
	setStatus(status, &st, code)
	return code
}

func MPI_Isend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Isend", buf, count, datatype, dest, tag, commH, request, mpirt.ModeStandard)
}

func MPI_Issend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Issend", buf, count, datatype, dest, tag, commH, request, mpirt.ModeSync)
}

func MPI_Irsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Irsend", buf, count, datatype, dest, tag, commH, request, mpirt.ModeReady)
}

func isend(fn string, buf unsafe.Pointer, count, dtH, dest, tag, commH int32, request *int32, mode mpirt.SendMode) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, tag, commH, false)
	if rc != 0 {
		return rc
	}
	if request == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument request: NULL pointer")
	}
	r, err := c.IsendTyped(buf, int(count), dt, int(dest), int(tag), mode)
	if err != nil {
		return fail(fn, c, err)
	}
	*request = int32(world.AddRequest(r))
	return 0
}

func MPI_Irecv(buf unsafe.Pointer, count, datatype, source, tag, commH int32, request *int32) int32 {
	const fn = "MPI_Irecv"
	c, dt, rc := p2pArgs(fn, buf, count, datatype, source, tag, commH, true)
	if rc != 0 {
		return rc
	}
	if request == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument request: NULL pointer")
	}
	r, err := c.IrecvTyped(buf, int(count), dt, int(source), int(tag))
	if err != nil {
		return fail(fn, c, err)
	}
	*request = int32(world.AddRequest(r))
	return 0
}

// request resolves *request; ok=false with rc=0 means MPI_REQUEST_NULL.
func request(fn string, request *int32) (*mpirt.Request, int32, bool) {
	if request == nil {
		return nil, failf(fn, nil, mpirt.ErrArg, "invalid argument request: NULL pointer"), false
	}
	h := mpirt.Handle(*request)
	if h == mpirt.HandleRequestNull {
		return nil, 0, false
	}
	r := world.Request(h)
	if r == nil {
		return nil, failf(fn, nil, mpirt.ErrRequest, "invalid request argument: 0x%08x is not an active request", uint32(h)), false
	}
	return r, 0, true
}

// finish retires r, whose operation op completed, writes the status and
// returns op's error code.
func finish(fn string, r, op *mpirt.Request, request *int32, status *Status) int32 {
	retire(r, request)
	code := int32(0)
	if op.Err != nil {
		code = fail(fn, op.Comm(), op.Err)
	}
	setStatus(status, opStatus(op), code)
	return code
}

// emptyStatus is what completion calls report for MPI_REQUEST_NULL.
var emptyStatus = mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}

func MPI_Wait(request_ *int32, status *Status) int32 {
	const fn = "MPI_Wait"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	r, rc, ok := request(fn, request_)
	if !ok {
		if rc == 0 {
			setStatus(status, &emptyStatus, 0)
		}
		return rc
	}
	op := r.Op()
	if op == nil {
		setStatus(status, &emptyStatus, 0)
		return 0
	}
	world.Wait(op)
	return finish(fn, r, op, request_, status)
}

func MPI_Test(request_ *int32, flag *int32, status *Status) int32 {
	const fn = "MPI_Test"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	r, rc, ok := request(fn, request_)
	if !ok {
		if rc == 0 {
			*flag = 1
			setStatus(status, &emptyStatus, 0)
		}
		return rc
	}
	op := r.Op()
	if op == nil {
		*flag = 1
		setStatus(status, &emptyStatus, 0)
		return 0
	}
	if !world.Test(op) {
		*flag = 0
		return 0
	}
	*flag = 1
	return finish(fn, r, op, request_, status)
}

func MPI_Waitall(count int32, requests *int32, statuses *Status) int32 {
	const fn = "MPI_Waitall"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	hs, rs, ops, rc := requestList(fn, count, requests)
	if rc != 0 {
		return rc
	}
	world.WaitAll(ops)
	return completeAll(fn, hs, rs, ops, statuses)
}

func MPI_Get_count(status *Status, datatype int32, count *int32) int32 {
	const fn = "MPI_Get_count"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if status == nil || uintptr(unsafe.Pointer(status)) == 1 {
		return badPointer(fn, "status")
	}
	if count == nil {
		return badPointer(fn, "count")
	}
	dt, rc := datatype_(fn, datatype)
	if rc != 0 {
		return rc
	}
	n := statusCount(status)
	sz := int64(dt.Size())
	switch {
	case sz == 0 && n == 0:
		*count = 0
	case sz == 0 || n%sz != 0 || n/sz > 1<<31-1:
		*count = undefined
	default:
		*count = int32(n / sz)
	}
	return 0
}

// undefined is MPI_UNDEFINED.
const undefined = -32766

func datatype_(fn string, h int32) (*mpirt.Datatype, int32) {
	return datatype(fn, nil, h, "datatype")
}

func MPI_Probe(source, tag, commH int32, status *Status) int32 {
	const fn = "MPI_Probe"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkRank(fn, c, source, "source", true); rc != 0 {
		return rc
	}
	if rc := checkTag(fn, c, tag, true); rc != 0 {
		return rc
	}
	st := world.Probe(c, c.Context(), int(source), int(tag))
	setStatus(status, &st, 0)
	return 0
}

func MPI_Iprobe(source, tag, commH int32, flag *int32, status *Status) int32 {
	const fn = "MPI_Iprobe"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkRank(fn, c, source, "source", true); rc != 0 {
		return rc
	}
	if rc := checkTag(fn, c, tag, true); rc != 0 {
		return rc
	}
	if flag == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument flag: NULL pointer")
	}
	st, ok := world.Iprobe(c, c.Context(), int(source), int(tag))
	*flag = b2i(ok)
	if ok {
		setStatus(status, &st, 0)
	}
	return 0
}

func asError(fn string, err error) *mpirt.Error {
	if e, ok := err.(*mpirt.Error); ok {
		if e.Func == "" {
			e2 := *e
			e2.Func = fn
			return &e2
		}
		return e
	}
	return mpirt.Errorf(mpirt.ErrOther, fn, "%v", err)
}

func MPI_Sendrecv(sendbuf unsafe.Pointer, sendcount, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount, recvtype, source, recvtag, commH int32, status *Status) int32 {
	const fn = "MPI_Sendrecv"
	c, sdt, rc := p2pArgs(fn, sendbuf, sendcount, sendtype, dest, sendtag, commH, false)
	if rc != 0 {
		return rc
	}
	_, rdt, rc := p2pArgs(fn, recvbuf, recvcount, recvtype, source, recvtag, commH, true)
	if rc != 0 {
		return rc
	}
	st, err := c.SendrecvTyped(sendbuf, int(sendcount), sdt, int(dest), int(sendtag),
		recvbuf, int(recvcount), rdt, int(source), int(recvtag))
	code := fail(fn, c, err)
	setStatus(status, &st, code)
	return code
}
