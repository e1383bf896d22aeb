package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

func MPI_Send(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Send", buf, int64(count), datatype, dest, tag, commH, mpirt.ModeStandard)
}

func MPI_Send_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Send_c", buf, count, datatype, dest, tag, commH, mpirt.ModeStandard)
}

func MPI_Ssend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Ssend", buf, int64(count), datatype, dest, tag, commH, mpirt.ModeSync)
}

func MPI_Ssend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Ssend_c", buf, count, datatype, dest, tag, commH, mpirt.ModeSync)
}

func MPI_Rsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Rsend", buf, int64(count), datatype, dest, tag, commH, mpirt.ModeReady)
}

func MPI_Rsend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Rsend_c", buf, count, datatype, dest, tag, commH, mpirt.ModeReady)
}

func MPI_Bsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Bsend", buf, int64(count), datatype, dest, tag, commH, mpirt.ModeBuffered)
}

func MPI_Bsend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32) int32 {
	return send("MPI_Bsend_c", buf, count, datatype, dest, tag, commH, mpirt.ModeBuffered)
}

// send is every blocking send (MPI_Send, Ssend, Rsend, Bsend and their
// _c forms).
func send(fn string, buf unsafe.Pointer, count int64, dtH, dest, tag, commH int32, mode mpirt.SendMode) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, tag, commH, false)
	if rc != 0 {
		return rc
	}
	if mode == mpirt.ModeBuffered {
		_, err := c.IbsendTyped(buf, int(count), dt, int(dest), int(tag))
		return fail(fn, c, err)
	}
	err := c.SendTyped(buf, int(count), dt, int(dest), int(tag), mode)
	if err == nil && mode != mpirt.ModeSync {
		expressComm(c) // later sends on c may take the express lane
	}
	return fail(fn, c, err)
}

func MPI_Recv(buf unsafe.Pointer, count, datatype, source, tag, commH int32, status *Status) int32 {
	return recv("MPI_Recv", buf, int64(count), datatype, source, tag, commH, status)
}

func MPI_Recv_c(buf unsafe.Pointer, count int64, datatype, source, tag, commH int32, status *Status) int32 {
	return recv("MPI_Recv_c", buf, count, datatype, source, tag, commH, status)
}

func recv(fn string, buf unsafe.Pointer, count int64, dtH, source, tag, commH int32, status *Status) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, source, tag, commH, true)
	if rc != 0 {
		return rc
	}
	st, err := c.RecvTyped(buf, int(count), dt, int(source), int(tag))
	code := fail(fn, c, err)
	setStatus(status, &st)
	if err == nil {
		expressComm(c) // later receives on c may take the express lane
	}
	return code
}

func MPI_Isend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Isend", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeStandard)
}

func MPI_Isend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Isend_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeStandard)
}

func MPI_Issend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Issend", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeSync)
}

func MPI_Issend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Issend_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeSync)
}

func MPI_Irsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Irsend", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeReady)
}

func MPI_Irsend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Irsend_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeReady)
}

func MPI_Ibsend(buf unsafe.Pointer, count, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Ibsend", buf, int64(count), datatype, dest, tag, commH, request, mpirt.ModeBuffered)
}

func MPI_Ibsend_c(buf unsafe.Pointer, count int64, datatype, dest, tag, commH int32, request *int32) int32 {
	return isend("MPI_Ibsend_c", buf, count, datatype, dest, tag, commH, request, mpirt.ModeBuffered)
}

// isend is every nonblocking send (MPI_Isend, Issend, Irsend, Ibsend and
// their _c forms).
func isend(fn string, buf unsafe.Pointer, count int64, dtH, dest, tag, commH int32, request *int32, mode mpirt.SendMode) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, dest, tag, commH, false)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	var r *mpirt.Request
	var err error
	if mode == mpirt.ModeBuffered {
		r, err = c.IbsendTyped(buf, int(count), dt, int(dest), int(tag))
	} else {
		r, err = c.IsendTyped(buf, int(count), dt, int(dest), int(tag), mode)
	}
	if err != nil {
		return fail(fn, c, err)
	}
	*request = int32(world.AddRequest(r))
	expressComm(c) // later calls on c may take the express lane
	return 0
}

func MPI_Irecv(buf unsafe.Pointer, count, datatype, source, tag, commH int32, request *int32) int32 {
	return irecv("MPI_Irecv", buf, int64(count), datatype, source, tag, commH, request)
}

func MPI_Irecv_c(buf unsafe.Pointer, count int64, datatype, source, tag, commH int32, request *int32) int32 {
	return irecv("MPI_Irecv_c", buf, count, datatype, source, tag, commH, request)
}

func irecv(fn string, buf unsafe.Pointer, count int64, dtH, source, tag, commH int32, request *int32) int32 {
	c, dt, rc := p2pArgs(fn, buf, count, dtH, source, tag, commH, true)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	r, err := c.IrecvTyped(buf, int(count), dt, int(source), int(tag))
	if err != nil {
		return fail(fn, c, err)
	}
	*request = int32(world.AddRequest(r))
	expressComm(c) // later calls on c may take the express lane
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
		r = expressRequest(h) // one of the express lane's (express.h)
	}
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
	setStatus(status, opStatus(op))
	if r == op {
		world.ReleaseRequest(op) // our last use of it
	}
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
			setStatus(status, &emptyStatus)
		}
		return rc
	}
	op := r.Op()
	if op == nil {
		setStatus(status, &emptyStatus)
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
			setStatus(status, &emptyStatus)
		}
		return rc
	}
	op := r.Op()
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
	return finish(fn, r, op, request_, status)
}

func MPI_Waitall(count int32, requests *int32, statuses *Status) int32 {
	const fn = "MPI_Waitall"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	var scratch [64]*mpirt.Request
	hs, rs, ops, rc := requestList(fn, count, requests, scratch[:])
	if rc != 0 {
		return rc
	}
	world.WaitAll(ops)
	return completeAll(fn, hs, rs, ops, statuses)
}

func MPI_Get_count(status *Status, datatype int32, count *int32) int32 {
	const fn = "MPI_Get_count"
	n, rc := getCount(fn, status, datatype, count == nil)
	if rc != 0 {
		return rc
	}
	if n > 1<<31-1 {
		n = undefined
	}
	*count = int32(n)
	return 0
}

func MPI_Get_count_c(status *Status, datatype int32, count *int64) int32 {
	n, rc := getCount("MPI_Get_count_c", status, datatype, count == nil)
	if rc == 0 {
		*count = n
	}
	return rc
}

// getCount is the number of whole elements of datatype in status, or
// MPI_UNDEFINED.
func getCount(fn string, status *Status, datatype int32, nilCount bool) (int64, int32) {
	if !active(fn) {
		return 0, int32(mpirt.ErrOther)
	}
	if ignoreStatuses(status) {
		return 0, badPointer(fn, "status")
	}
	if nilCount {
		return 0, badPointer(fn, "count")
	}
	dt, rc := datatype_(fn, datatype)
	if rc != 0 {
		return 0, rc
	}
	n := statusBytes(status, dt)
	sz := int64(dt.Size())
	switch {
	case sz == 0 && n == 0:
		return 0, 0
	case sz == 0 || n%sz != 0:
		return undefined, 0
	}
	return n / sz, 0
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
	st, err := world.ProbeErr(c, c.Context(), int(source), int(tag))
	if err != nil {
		return fail(fn, c, err)
	}
	setStatus(status, &st)
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
		setStatus(status, &st)
	} else if err := world.ProbeLost(c, int(source)); err != nil {
		return fail(fn, c, err)
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
	return sendrecv("MPI_Sendrecv", sendbuf, int64(sendcount), sendtype, dest, sendtag,
		recvbuf, int64(recvcount), recvtype, source, recvtag, commH, status)
}

func MPI_Sendrecv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount int64, recvtype, source, recvtag, commH int32, status *Status) int32 {
	return sendrecv("MPI_Sendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
		recvbuf, recvcount, recvtype, source, recvtag, commH, status)
}

func sendrecv(fn string, sendbuf unsafe.Pointer, sendcount int64, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount int64, recvtype, source, recvtag, commH int32, status *Status) int32 {
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
	setStatus(status, &st)
	if err == nil {
		expressComm(c) // later calls on c may take the express lane
	}
	return code
}

func MPI_Isendrecv(sendbuf unsafe.Pointer, sendcount, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount, recvtype, source, recvtag, commH int32, request *int32) int32 {
	return isendrecv("MPI_Isendrecv", sendbuf, int64(sendcount), sendtype, dest, sendtag,
		recvbuf, int64(recvcount), recvtype, source, recvtag, commH, request)
}

func MPI_Isendrecv_c(sendbuf unsafe.Pointer, sendcount int64, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount int64, recvtype, source, recvtag, commH int32, request *int32) int32 {
	return isendrecv("MPI_Isendrecv_c", sendbuf, sendcount, sendtype, dest, sendtag,
		recvbuf, recvcount, recvtype, source, recvtag, commH, request)
}

func isendrecv(fn string, sendbuf unsafe.Pointer, sendcount int64, sendtype, dest, sendtag int32,
	recvbuf unsafe.Pointer, recvcount int64, recvtype, source, recvtag, commH int32, request *int32) int32 {
	c, sdt, rc := p2pArgs(fn, sendbuf, sendcount, sendtype, dest, sendtag, commH, false)
	if rc != 0 {
		return rc
	}
	_, rdt, rc := p2pArgs(fn, recvbuf, recvcount, recvtype, source, recvtag, commH, true)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	return started(fn, c, request)(c.IsendrecvTyped(sendbuf, int(sendcount), sdt, int(dest), int(sendtag),
		recvbuf, int(recvcount), rdt, int(source), int(recvtag)))
}

func MPI_Isendrecv_replace(buf unsafe.Pointer, count, datatype, dest, sendtag, source, recvtag, commH int32, request *int32) int32 {
	return isendrecvReplace("MPI_Isendrecv_replace", buf, int64(count), datatype, dest, sendtag, source, recvtag, commH, request)
}

func MPI_Isendrecv_replace_c(buf unsafe.Pointer, count int64, datatype, dest, sendtag, source, recvtag, commH int32, request *int32) int32 {
	return isendrecvReplace("MPI_Isendrecv_replace_c", buf, count, datatype, dest, sendtag, source, recvtag, commH, request)
}

func isendrecvReplace(fn string, buf unsafe.Pointer, count int64, dtH, dest, sendtag, source, recvtag, commH int32, request *int32) int32 {
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
	if rc := nullArg(fn, c, request == nil, "request"); rc != 0 {
		return rc
	}
	return started(fn, c, request)(c.IsendrecvReplace(buf, int(count), dt, int(dest), int(sendtag), int(source), int(recvtag)))
}

// started hands a new request to the user: its handle in *request, or the
// error that kept it from starting.
func started(fn string, c *mpirt.Comm, request *int32) func(*mpirt.Request, error) int32 {
	return func(r *mpirt.Request, err error) int32 {
		if err != nil {
			return fail(fn, c, err)
		}
		*request = int32(world.AddRequest(r))
		return 0
	}
}
