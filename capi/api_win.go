package main

import (
	"errors"
	"unsafe"

	mpirt "gmpi/runtime"
)

// One-sided communication: argument checks and handle translation; the
// semantics are in runtime/rma*.go.

// winArg resolves a window argument.
func winArg(fn string, h int32) (*mpirt.Win, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	if win := world.Win(mpirt.Handle(h)); win != nil {
		return win, 0
	}
	if mpirt.Handle(h) == mpirt.HandleWinNull {
		return nil, failf(fn, nil, mpirt.ErrWin, "invalid window argument win: MPI_WIN_NULL")
	}
	return nil, failf(fn, nil, mpirt.ErrWin, "invalid window argument win: 0x%08x is not a window", uint32(h))
}

// winFail raises err for fn through win's error handler (initially
// MPI_ERRORS_ARE_FATAL) and returns the error code.
func winFail(fn string, win *mpirt.Win, err error) int32 {
	if err == nil {
		return 0
	}
	var e *mpirt.Error
	if !errors.As(err, &e) {
		e = mpirt.Errorf(mpirt.ErrOther, fn, "%v", err)
	} else if e.Func == "" {
		e2 := *e
		e2.Func = fn
		e = &e2
	}
	code := int32(mpirt.RegisterErrorCode(e))
	h, eh := win.Errh.Get()
	switch {
	case eh != nil:
		callCommErrhandler(eh.Fn, win.Handle(), code)
		return code
	case h == mpirt.HandleErrorsReturn:
		return code
	}
	return invokeHandler(nil, code, e.Error(), int(e.Class))
}

func winFailf(fn string, win *mpirt.Win, class int, format string, args ...any) int32 {
	return winFail(fn, win, mpirt.Errorf(class, fn, format, args...))
}

// Predefined window attributes (MPI_WIN_BASE, ...): keyval handles and
// where their values live (C memory per window, since the attribute value
// of every key but MPI_WIN_BASE is a pointer to the value).
const (
	keyWinBase       = 0x66000001
	keyWinSize       = 0x66000003
	keyWinDispUnit   = 0x66000005
	keyWinFlavor     = 0x66000007
	keyWinModel      = 0x66000009
	winAttrValsBytes = 8 + 4 + 4 + 4
)

// winAttr returns the value of a predefined window attribute.
func winAttr(win *mpirt.Win, keyval int32) (uintptr, bool) {
	p := win.AttrVals
	switch keyval {
	case keyWinBase:
		return uintptr(win.Base()), true
	case keyWinSize:
		return uintptr(p), true
	case keyWinDispUnit:
		return uintptr(unsafe.Add(p, 8)), true
	case keyWinFlavor:
		return uintptr(unsafe.Add(p, 12)), true
	case keyWinModel:
		return uintptr(unsafe.Add(p, 16)), true
	}
	return 0, false
}

// newWin creates a window and returns its handle through out.
func newWin(fn string, flavor int, base unsafe.Pointer, size, unit int64, infoH, commH int32, baseptr unsafe.Pointer, out *int32) int32 {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if out == nil {
		return badPointer(fn, "win")
	}
	if size < 0 {
		return failf(fn, c, mpirt.ErrSize, "invalid size argument: %d is negative", size)
	}
	if unit <= 0 {
		return failf(fn, c, mpirt.ErrDisp, "invalid disp_unit argument: %d is not positive", unit)
	}
	if baseptr == nil && (flavor == mpirt.FlavorAllocate || flavor == mpirt.FlavorShared) {
		return badPointer(fn, "baseptr")
	}
	if base == nil && size > 0 && flavor == mpirt.FlavorCreate {
		return failf(fn, c, mpirt.ErrBase, "invalid base argument: NULL with size %d", size)
	}
	in, rc := infoArg(fn, c, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	win, err := c.NewWin(flavor, base, size, unit, in)
	if err != nil {
		*out = int32(mpirt.HandleWinNull)
		return fail(fn, c, err)
	}
	p := cMalloc(winAttrValsBytes)
	*(*int64)(p) = win.Size()
	*(*int32)(unsafe.Add(p, 8)) = int32(win.DispUnit())
	*(*int32)(unsafe.Add(p, 12)) = int32(flavor)
	*(*int32)(unsafe.Add(p, 16)) = mpirt.ModelUnified
	win.AttrVals = p
	if baseptr != nil {
		*(*unsafe.Pointer)(baseptr) = win.Base()
	}
	*out = int32(win.Handle())
	expressWinNew(win)
	return 0
}

func MPI_Win_create(base unsafe.Pointer, size int64, unit, infoH, commH int32, win *int32) int32 {
	return newWin("MPI_Win_create", mpirt.FlavorCreate, base, size, int64(unit), infoH, commH, nil, win)
}

func MPI_Win_create_c(base unsafe.Pointer, size, unit int64, infoH, commH int32, win *int32) int32 {
	return newWin("MPI_Win_create_c", mpirt.FlavorCreate, base, size, unit, infoH, commH, nil, win)
}

func MPI_Win_allocate(size int64, unit, infoH, commH int32, baseptr unsafe.Pointer, win *int32) int32 {
	return newWin("MPI_Win_allocate", mpirt.FlavorAllocate, nil, size, int64(unit), infoH, commH, baseptr, win)
}

func MPI_Win_allocate_c(size, unit int64, infoH, commH int32, baseptr unsafe.Pointer, win *int32) int32 {
	return newWin("MPI_Win_allocate_c", mpirt.FlavorAllocate, nil, size, unit, infoH, commH, baseptr, win)
}

func MPI_Win_allocate_shared(size int64, unit, infoH, commH int32, baseptr unsafe.Pointer, win *int32) int32 {
	return newWin("MPI_Win_allocate_shared", mpirt.FlavorShared, nil, size, int64(unit), infoH, commH, baseptr, win)
}

func MPI_Win_allocate_shared_c(size, unit int64, infoH, commH int32, baseptr unsafe.Pointer, win *int32) int32 {
	return newWin("MPI_Win_allocate_shared_c", mpirt.FlavorShared, nil, size, unit, infoH, commH, baseptr, win)
}

func MPI_Win_create_dynamic(infoH, commH int32, win *int32) int32 {
	return newWin("MPI_Win_create_dynamic", mpirt.FlavorDynamic, nil, 0, 1, infoH, commH, nil, win)
}

func MPI_Win_free(winp *int32) int32 {
	const fn = "MPI_Win_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if winp == nil {
		return badPointer(fn, "win")
	}
	win, rc := winArg(fn, *winp)
	if rc != 0 {
		return rc
	}
	expressWinFree(win)
	if err := win.Free(); err != nil {
		expressWinNew(win)
		expressWin(win)
		return winFail(fn, win, err)
	}
	cFree(win.AttrVals)
	win.AttrVals = nil
	*winp = int32(mpirt.HandleWinNull)
	return 0
}

func MPI_Win_attach(winH int32, base unsafe.Pointer, size int64) int32 {
	const fn = "MPI_Win_attach"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	return winFail(fn, win, win.Attach(base, size))
}

func MPI_Win_detach(winH int32, base unsafe.Pointer) int32 {
	const fn = "MPI_Win_detach"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	return winFail(fn, win, win.Detach(base))
}

func MPI_Win_shared_query(winH, rank int32, size *int64, unit *int32, baseptr unsafe.Pointer) int32 {
	const fn = "MPI_Win_shared_query"
	var u int64
	rc := sharedQuery(fn, winH, rank, size, &u, baseptr, unit == nil)
	if rc == 0 {
		*unit = int32(u)
	}
	return rc
}

func MPI_Win_shared_query_c(winH, rank int32, size *int64, unit *int64, baseptr unsafe.Pointer) int32 {
	return sharedQuery("MPI_Win_shared_query_c", winH, rank, size, unit, baseptr, unit == nil)
}

func sharedQuery(fn string, winH, rank int32, size, unit *int64, baseptr unsafe.Pointer, nilUnit bool) int32 {
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	switch {
	case size == nil:
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument size: NULL pointer")
	case nilUnit:
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument disp_unit: NULL pointer")
	case baseptr == nil:
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument baseptr: NULL pointer")
	}
	s, u, p, err := win.SharedQuery(int(rank))
	if err != nil {
		return winFail(fn, win, err)
	}
	*size, *unit = s, u
	*(*unsafe.Pointer)(baseptr) = p
	return 0
}

func MPI_Win_get_group(winH int32, group *int32) int32 {
	const fn = "MPI_Win_get_group"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if group == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument group: NULL pointer")
	}
	*group = int32(world.AddGroup(win.Group()))
	return 0
}

func MPI_Win_get_info(winH int32, info *int32) int32 {
	const fn = "MPI_Win_get_info"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if info == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument info_used: NULL pointer")
	}
	*info = int32(infos.Add(win.Info()))
	return 0
}

func MPI_Win_set_info(winH, infoH int32) int32 {
	const fn = "MPI_Win_set_info"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	in, rc := infoArg(fn, nil, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	win.SetInfo(in)
	return 0
}

func MPI_Win_get_name(winH int32, name *byte, resultlen *int32) int32 {
	const fn = "MPI_Win_get_name"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if name == nil || resultlen == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument win_name or resultlen: NULL pointer")
	}
	*resultlen = cString(name, maxObjectName, win.Name())
	return 0
}

func MPI_Win_set_name(winH int32, name *byte) int32 {
	const fn = "MPI_Win_set_name"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if name == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument win_name: NULL pointer")
	}
	win.SetName(goString(name, maxObjectName-1))
	return 0
}

func MPI_Win_set_errhandler(winH, errhandler int32) int32 {
	const fn = "MPI_Win_set_errhandler"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	h, err := checkErrhandler(errhandler, "errhandler", mpirt.ObjWin)
	if err != nil {
		return winFail(fn, win, err)
	}
	win.Errh.Set(world, h)
	return 0
}

func MPI_Win_get_errhandler(winH int32, errhandler *int32) int32 {
	const fn = "MPI_Win_get_errhandler"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if errhandler == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument errhandler: NULL pointer")
	}
	*errhandler = int32(win.Errh.Ref(world))
	return 0
}

func MPI_Win_call_errhandler(winH, errorcode int32) int32 {
	const fn = "MPI_Win_call_errhandler"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	h, eh := win.Errh.Get()
	switch {
	case eh != nil:
		callCommErrhandler(eh.Fn, win.Handle(), errorcode)
	case h == mpirt.HandleErrorsReturn:
	default:
		cls, ok := mpirt.ErrorClass(int(errorcode))
		if !ok {
			cls = mpirt.ErrUnknown
		}
		invokeHandler(nil, errorcode, fn+": "+mpirt.ErrorString(int(errorcode)), cls)
	}
	return 0
}

// Synchronization.

func winSync(fn string, winH int32, f func(*mpirt.Win) error) int32 {
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	err := f(win)
	expressWin(win)
	return winFail(fn, win, err)
}

func MPI_Win_fence(assert, winH int32) int32 {
	return winSync("MPI_Win_fence", winH, func(w *mpirt.Win) error { return w.Fence(int(assert)) })
}

func MPI_Win_lock(typ, rank, assert, winH int32) int32 {
	return winSync("MPI_Win_lock", winH, func(w *mpirt.Win) error { return w.Lock(int(typ), int(rank), int(assert)) })
}

func MPI_Win_unlock(rank, winH int32) int32 {
	return winSync("MPI_Win_unlock", winH, func(w *mpirt.Win) error { return w.Unlock(int(rank)) })
}

func MPI_Win_lock_all(assert, winH int32) int32 {
	return winSync("MPI_Win_lock_all", winH, func(w *mpirt.Win) error { return w.LockAll(int(assert)) })
}

func MPI_Win_unlock_all(winH int32) int32 {
	return winSync("MPI_Win_unlock_all", winH, func(w *mpirt.Win) error { return w.UnlockAll() })
}

func MPI_Win_flush(rank, winH int32) int32 {
	return winSync("MPI_Win_flush", winH, func(w *mpirt.Win) error { return w.Flush(int(rank), false) })
}

func MPI_Win_flush_local(rank, winH int32) int32 {
	return winSync("MPI_Win_flush_local", winH, func(w *mpirt.Win) error { return w.Flush(int(rank), false) })
}

func MPI_Win_flush_all(winH int32) int32 {
	return winSync("MPI_Win_flush_all", winH, func(w *mpirt.Win) error { return w.Flush(-1, true) })
}

func MPI_Win_flush_local_all(winH int32) int32 {
	return winSync("MPI_Win_flush_local_all", winH, func(w *mpirt.Win) error { return w.Flush(-1, true) })
}

func MPI_Win_sync(winH int32) int32 {
	return winSync("MPI_Win_sync", winH, func(w *mpirt.Win) error { return w.Sync() })
}

func MPI_Win_complete(winH int32) int32 {
	return winSync("MPI_Win_complete", winH, func(w *mpirt.Win) error { return w.Complete() })
}

func MPI_Win_wait(winH int32) int32 {
	return winSync("MPI_Win_wait", winH, func(w *mpirt.Win) error { _, err := w.Wait(true); return err })
}

func MPI_Win_test(winH int32, flag *int32) int32 {
	const fn = "MPI_Win_test"
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	if flag == nil {
		return winFailf(fn, win, mpirt.ErrArg, "invalid argument flag: NULL pointer")
	}
	done, err := win.Wait(false)
	expressWin(win)
	if err != nil {
		return winFail(fn, win, err)
	}
	*flag = b2i(done)
	return 0
}

func pscw(fn string, groupH, assert, winH int32, f func(*mpirt.Win, *mpirt.Group, int) error) int32 {
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	g := world.Group(mpirt.Handle(groupH))
	if g == nil {
		return winFailf(fn, win, mpirt.ErrGroup, "invalid group argument group: 0x%08x is not a group", uint32(groupH))
	}
	err := f(win, g, int(assert))
	expressWin(win)
	return winFail(fn, win, err)
}

func MPI_Win_post(groupH, assert, winH int32) int32 {
	return pscw("MPI_Win_post", groupH, assert, winH, (*mpirt.Win).Post)
}

func MPI_Win_start(groupH, assert, winH int32) int32 {
	return pscw("MPI_Win_start", groupH, assert, winH, (*mpirt.Win).Start)
}

// Communication.

// rmaType checks one (count, datatype) argument pair of an RMA call and
// returns the datatype.
func rmaType(fn string, win *mpirt.Win, count int64, h int32, arg string) (*mpirt.Datatype, int32) {
	if count < 0 {
		return nil, winFailf(fn, win, mpirt.ErrCount, "invalid count argument %s_count: %d is negative", arg, count)
	}
	if count == 0 && h == int32(mpirt.HandleDatatypeNull) {
		return world.Datatype(mpirt.TypeByte), 0
	}
	if dt := world.Datatype(mpirt.Handle(h)); dt != nil {
		// The bytes moved and the span touched must not overflow (the
		// runtime multiplies count by the size and the extent).
		sz, ext := int64(dt.Size()), int64(dt.Extent())
		if ext < 0 {
			ext = -ext
		}
		if sz > 0 && (count > mpirt.MaxMessageBytes/sz || ext > 0 && count-1 > userSpace/ext) {
			return nil, winFailf(fn, win, mpirt.ErrCount, "invalid count argument %s_count: %d elements of %s (size %d, extent %d) exceed the address space or the %d-byte message limit",
				arg, count, dt, sz, dt.Extent(), int64(mpirt.MaxMessageBytes))
		}
		return dt, 0
	}
	switch {
	case h == int32(mpirt.HandleDatatypeNull):
		return nil, winFailf(fn, win, mpirt.ErrType, "invalid datatype argument %s_datatype: MPI_DATATYPE_NULL", arg)
	case world.AnyDatatype(mpirt.Handle(h)) != nil:
		return nil, winFailf(fn, win, mpirt.ErrType, "invalid datatype argument %s_datatype: 0x%08x is not committed", arg, uint32(h))
	}
	return nil, winFailf(fn, win, mpirt.ErrType, "invalid datatype argument %s_datatype: 0x%08x is not a datatype", arg, uint32(h))
}

// rmaCall is one RMA call's C arguments.
type rmaCall struct {
	origin          unsafe.Pointer
	ocount          int64
	odt             int32
	result          unsafe.Pointer
	rcount          int64
	rdt             int32
	compare         unsafe.Pointer
	target          int32
	disp            int64
	tcount          int64
	tdt             int32
	op              int32
	win             int32
	request         *int32
	hasOrigin, hasR bool
}

// rma checks the arguments of c and runs f.
func rma(fn string, c rmaCall, f func(*mpirt.Win, *mpirt.RMAArgs) error) int32 {
	win, rc := winArg(fn, c.win)
	if rc != 0 {
		return rc
	}
	a := mpirt.RMAArgs{Origin: c.origin, OCount: int(c.ocount), Result: c.result, RCount: int(c.rcount),
		Compare: c.compare, Target: int(c.target), Disp: c.disp, TCount: int(c.tcount), Op: mpirt.Handle(c.op),
		Request: c.request != nil}
	if c.hasOrigin {
		if a.ODT, rc = rmaType(fn, win, c.ocount, c.odt, "origin"); rc != 0 {
			return rc
		}
	}
	if c.hasR {
		if a.RDT, rc = rmaType(fn, win, c.rcount, c.rdt, "result"); rc != 0 {
			return rc
		}
	}
	if a.TDT, rc = rmaType(fn, win, c.tcount, c.tdt, "target"); rc != 0 {
		return rc
	}
	err := f(win, &a)
	expressWin(win)
	if err != nil {
		return winFail(fn, win, err)
	}
	if c.request != nil {
		r := a.Req
		if r == nil {
			r = world.CompletedRequest(win.Comm())
		}
		*c.request = int32(world.AddRequest(r))
	}
	return 0
}

// rreq checks a request argument of the request-based forms.
func rreq(fn string, winH int32, request *int32) int32 {
	if request != nil {
		return 0
	}
	win, rc := winArg(fn, winH)
	if rc != 0 {
		return rc
	}
	return winFailf(fn, win, mpirt.ErrArg, "invalid argument request: NULL pointer")
}

func putGet(fn string, put bool, origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, winH int32, request *int32) int32 {
	f := (*mpirt.Win).Get
	if put {
		f = (*mpirt.Win).Put
	}
	return rma(fn, rmaCall{origin: origin, ocount: ocount, odt: odt, target: target, disp: disp, tcount: tcount, tdt: tdt,
		win: winH, request: request, hasOrigin: true}, f)
}

func MPI_Put(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, winH int32) int32 {
	return putGet("MPI_Put", true, origin, int64(ocount), odt, target, disp, int64(tcount), tdt, winH, nil)
}

func MPI_Put_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, winH int32) int32 {
	return putGet("MPI_Put_c", true, origin, ocount, odt, target, disp, tcount, tdt, winH, nil)
}

func MPI_Get(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, winH int32) int32 {
	return putGet("MPI_Get", false, origin, int64(ocount), odt, target, disp, int64(tcount), tdt, winH, nil)
}

func MPI_Get_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, winH int32) int32 {
	return putGet("MPI_Get_c", false, origin, ocount, odt, target, disp, tcount, tdt, winH, nil)
}

func MPI_Rput(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rput", winH, request); rc != 0 {
		return rc
	}
	return putGet("MPI_Rput", true, origin, int64(ocount), odt, target, disp, int64(tcount), tdt, winH, request)
}

func MPI_Rput_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rput_c", winH, request); rc != 0 {
		return rc
	}
	return putGet("MPI_Rput_c", true, origin, ocount, odt, target, disp, tcount, tdt, winH, request)
}

func MPI_Rget(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rget", winH, request); rc != 0 {
		return rc
	}
	return putGet("MPI_Rget", false, origin, int64(ocount), odt, target, disp, int64(tcount), tdt, winH, request)
}

func MPI_Rget_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rget_c", winH, request); rc != 0 {
		return rc
	}
	return putGet("MPI_Rget_c", false, origin, ocount, odt, target, disp, tcount, tdt, winH, request)
}

func acc(fn string, origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, op, winH int32, request *int32) int32 {
	return rma(fn, rmaCall{origin: origin, ocount: ocount, odt: odt, target: target, disp: disp, tcount: tcount, tdt: tdt,
		op: op, win: winH, request: request, hasOrigin: true}, (*mpirt.Win).Accumulate)
}

func MPI_Accumulate(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, op, winH int32) int32 {
	return acc("MPI_Accumulate", origin, int64(ocount), odt, target, disp, int64(tcount), tdt, op, winH, nil)
}

func MPI_Accumulate_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, op, winH int32) int32 {
	return acc("MPI_Accumulate_c", origin, ocount, odt, target, disp, tcount, tdt, op, winH, nil)
}

func MPI_Raccumulate(origin unsafe.Pointer, ocount, odt, target int32, disp int64, tcount, tdt, op, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Raccumulate", winH, request); rc != 0 {
		return rc
	}
	return acc("MPI_Raccumulate", origin, int64(ocount), odt, target, disp, int64(tcount), tdt, op, winH, request)
}

func MPI_Raccumulate_c(origin unsafe.Pointer, ocount int64, odt, target int32, disp, tcount int64, tdt, op, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Raccumulate_c", winH, request); rc != 0 {
		return rc
	}
	return acc("MPI_Raccumulate_c", origin, ocount, odt, target, disp, tcount, tdt, op, winH, request)
}

func getAcc(fn string, origin unsafe.Pointer, ocount int64, odt int32, result unsafe.Pointer, rcount int64, rdt, target int32, disp, tcount int64, tdt, op, winH int32, request *int32) int32 {
	return rma(fn, rmaCall{origin: origin, ocount: ocount, odt: odt, result: result, rcount: rcount, rdt: rdt,
		target: target, disp: disp, tcount: tcount, tdt: tdt, op: op, win: winH, request: request,
		hasOrigin: op != int32(mpirt.OpNoOp), hasR: true}, (*mpirt.Win).GetAccumulate)
}

func MPI_Get_accumulate(origin unsafe.Pointer, ocount, odt int32, result unsafe.Pointer, rcount, rdt, target int32, disp int64, tcount, tdt, op, winH int32) int32 {
	return getAcc("MPI_Get_accumulate", origin, int64(ocount), odt, result, int64(rcount), rdt, target, disp, int64(tcount), tdt, op, winH, nil)
}

func MPI_Get_accumulate_c(origin unsafe.Pointer, ocount int64, odt int32, result unsafe.Pointer, rcount int64, rdt, target int32, disp, tcount int64, tdt, op, winH int32) int32 {
	return getAcc("MPI_Get_accumulate_c", origin, ocount, odt, result, rcount, rdt, target, disp, tcount, tdt, op, winH, nil)
}

func MPI_Rget_accumulate(origin unsafe.Pointer, ocount, odt int32, result unsafe.Pointer, rcount, rdt, target int32, disp int64, tcount, tdt, op, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rget_accumulate", winH, request); rc != 0 {
		return rc
	}
	return getAcc("MPI_Rget_accumulate", origin, int64(ocount), odt, result, int64(rcount), rdt, target, disp, int64(tcount), tdt, op, winH, request)
}

func MPI_Rget_accumulate_c(origin unsafe.Pointer, ocount int64, odt int32, result unsafe.Pointer, rcount int64, rdt, target int32, disp, tcount int64, tdt, op, winH int32, request *int32) int32 {
	if rc := rreq("MPI_Rget_accumulate_c", winH, request); rc != 0 {
		return rc
	}
	return getAcc("MPI_Rget_accumulate_c", origin, ocount, odt, result, rcount, rdt, target, disp, tcount, tdt, op, winH, request)
}

func MPI_Fetch_and_op(origin, result unsafe.Pointer, dt, target int32, disp int64, op, winH int32) int32 {
	return getAcc("MPI_Fetch_and_op", origin, 1, dt, result, 1, dt, target, disp, 1, dt, op, winH, nil)
}

func MPI_Compare_and_swap(origin, compare, result unsafe.Pointer, dt, target int32, disp int64, winH int32) int32 {
	return rma("MPI_Compare_and_swap", rmaCall{origin: origin, ocount: 1, odt: dt, result: result, rcount: 1, rdt: dt,
		compare: compare, target: target, disp: disp, tcount: 1, tdt: dt, win: winH, hasOrigin: true, hasR: true},
		(*mpirt.Win).CompareAndSwap)
}
