package main

import (
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// The collective operations, blocking (MPI_X), nonblocking (MPI_IX) and
// persistent (MPI_X_init), each also in the large-count _c form. Their
// entry points are generated (capi/zz_coll.go, from the table by the
// kinds of the parameters): each fills a collCall and calls runColl,
// which checks the arguments as MPICH does and hands the call to the
// communicator's collective table.

// carr is a C array argument of counts, displacements or datatype
// handles: int (or MPI_Datatype) elements, or MPI_Count/MPI_Aint ones
// (wide).
type carr struct {
	p    unsafe.Pointer
	wide bool
}

// collCall is one collective call's C arguments.
type collCall struct {
	fn    string
	coll  mpirt.CollOp
	mode  ncMode
	large bool // the _c form

	sbuf, rbuf                                                 unsafe.Pointer
	scount, rcount                                             int64
	stype, rtype                                               int32
	scounts, rcounts, displs, sdispls, rdispls, stypes, rtypes carr
	opH, root, comm, info                                      int32
	request                                                    *int32
}

// collCheck carries the state of one call's argument checks.
type collCheck struct {
	collCall
	c     *mpirt.Comm
	inter bool
	noBuf bool // side: the buffer is not significant here
	a     mpirt.CollArgs
}

// errf raises an error of class on the call's communicator.
func (k *collCheck) errf(class int, format string, args ...any) int32 {
	return failf(k.fn, k.c, class, format, args...)
}

// side checks one side's buffer, count and datatype (when significant
// on this process) and stores them in the arguments.
func (k *collCheck) side(send bool) int32 {
	// Constant names (concatenating them allocated on every call).
	buf, count, dtH := k.rbuf, k.rcount, k.rtype
	cname, tname, bname := "recvcount", "recvtype", "recvbuf"
	if send {
		buf, count, dtH = k.sbuf, k.scount, k.stype
		cname, tname, bname = "sendcount", "sendtype", "sendbuf"
	}
	if k.coll == mpirt.CollBcast {
		cname, tname, bname = "count", "type", "buf"
	}
	switch k.coll {
	case mpirt.CollBcast, mpirt.CollReduce, mpirt.CollAllreduce, mpirt.CollReduceScatterBlock, mpirt.CollScan, mpirt.CollExscan:
		cname, tname = "count", "datatype"
		if k.coll == mpirt.CollReduceScatterBlock {
			cname = "recvcount"
		}
		if k.coll == mpirt.CollBcast {
			bname = "buffer"
		}
	}
	if rc := checkCount(k.fn, k.c, count, cname); rc != 0 {
		return rc
	}
	dt, rc := datatype(k.fn, k.c, dtH, tname)
	if rc != 0 {
		return rc
	}
	if !mpirt.IsInPlace(buf) && !k.noBuf {
		if rc := checkBuf(k.fn, k.c, buf, count, dt, bname); rc != 0 {
			return rc
		}
	}
	if send {
		k.a.Scount, k.a.Sdt = int(count), dt
	} else {
		k.a.Rcount, k.a.Rdt = int(count), dt
	}
	return 0
}

// blocks is side for a buffer of n blocks of count elements (the root's
// buffer of gather and scatter, allgather's and alltoall's): the whole
// buffer is checked too.
func (k *collCheck) blocks(send bool, n int) int32 {
	if rc := k.side(send); rc != 0 {
		return rc
	}
	buf, count, dt, arg := k.rbuf, int64(k.a.Rcount), k.a.Rdt, "recvbuf"
	if send {
		buf, count, dt, arg = k.sbuf, int64(k.a.Scount), k.a.Sdt, "sendbuf"
	}
	if n <= 1 || count == 0 || mpirt.IsInPlace(buf) {
		return 0
	}
	if count > mpirt.MaxMessageBytes/int64(n) {
		return k.errf(mpirt.ErrCount, "invalid count argument for %s: %d blocks of %d elements exceed the %d-byte message limit", arg, n, count, int64(mpirt.MaxMessageBytes))
	}
	return checkBuf(k.fn, k.c, buf, count*int64(n), dt, arg)
}

// ints reads n entries of an array argument; counts must not be negative.
func (k *collCheck) ints(x carr, n int, arg string, isCount bool) ([]int, int32) {
	if n == 0 {
		return []int{}, 0
	}
	if x.p == nil {
		return nil, nullArg(k.fn, k.c, true, arg)
	}
	out := make([]int, n)
	for i := range out {
		var v int64
		if x.wide {
			v = *(*int64)(unsafe.Add(x.p, 8*i))
		} else {
			v = int64(*(*int32)(unsafe.Add(x.p, 4*i)))
		}
		if isCount && v < 0 {
			return nil, k.errf(mpirt.ErrCount, "invalid count argument %s[%d]: %d is negative", arg, i, v)
		}
		out[i] = int(v)
	}
	return out, 0
}

// vside checks a v-operation side: per-rank counts and displacements, one
// datatype, and the buffer when any count is positive.
func (k *collCheck) vside(send bool, counts, displs carr, n int, cname, dname string) int32 {
	buf, dtH, side := k.rbuf, k.rtype, "recv"
	if send {
		buf, dtH, side = k.sbuf, k.stype, "send"
	}
	cs, rc := k.ints(counts, n, cname, true)
	if rc != 0 {
		return rc
	}
	var ds []int
	if dname != "" {
		if ds, rc = k.ints(displs, n, dname, false); rc != 0 {
			return rc
		}
	}
	tname := side + "type"
	if dname == "" {
		tname = "datatype"
	}
	dt, rc := datatype(k.fn, k.c, dtH, tname)
	if rc != 0 {
		return rc
	}
	if !mpirt.IsInPlace(buf) {
		// Each block: at displs[i] extents, or packed one after the other
		// when the operation has no displacements (reduce_scatter).
		next := int64(0)
		for i, v := range cs {
			d := next
			if ds != nil {
				d = int64(ds[i])
			}
			next += int64(v)
			if v <= 0 {
				continue
			}
			off, ok := byteOffset(d, int64(dt.Extent()))
			if !ok {
				return k.errf(mpirt.ErrArg, "invalid argument %s[%d]: %d extents of %s overflow the address space", dname, i, d, dt)
			}
			if rc := checkBufAt(k.fn, k.c, buf, off, int64(v), dt, side+"buf"); rc != 0 {
				return rc
			}
		}
	}
	if send {
		k.a.Scounts, k.a.Sdispls, k.a.Sdt = cs, ds, dt
	} else {
		k.a.Rcounts, k.a.Rdispls, k.a.Rdt = cs, ds, dt
	}
	return 0
}

// wside checks an alltoallw side: counts, byte displacements and a
// datatype per rank.
func (k *collCheck) wside(send bool, n int) int32 {
	counts, displs, types, side, dname := k.rcounts, k.rdispls, k.rtypes, "recv", "rdispls"
	if send {
		counts, displs, types, side, dname = k.scounts, k.sdispls, k.stypes, "send", "sdispls"
	}
	cs, rc := k.ints(counts, n, side+"counts", true)
	if rc != 0 {
		return rc
	}
	ds, rc := k.ints(displs, n, dname, false)
	if rc != 0 {
		return rc
	}
	if n > 0 && types.p == nil {
		return nullArg(k.fn, k.c, true, side+"types")
	}
	dts := make([]*mpirt.Datatype, n)
	for i := range dts {
		h := *(*int32)(unsafe.Add(types.p, 4*i))
		dt, rc := datatype(k.fn, k.c, h, side+"types")
		if rc != 0 {
			return rc
		}
		dts[i] = dt
	}
	buf := k.rbuf
	if send {
		buf = k.sbuf
	}
	if !mpirt.IsInPlace(buf) {
		for i, v := range cs {
			if d := int64(ds[i]); v > 0 && (d <= -userSpace || d >= userSpace) {
				return k.errf(mpirt.ErrArg, "invalid argument %s[%d]: %d bytes overflow the address space", dname, i, d)
			}
			if rc := checkBufAt(k.fn, k.c, buf, int64(ds[i]), int64(v), dts[i], side+"buf"); rc != 0 {
				return rc
			}
		}
	}
	if send {
		k.a.Scounts, k.a.Sdispls, k.a.Sdts = cs, ds, dts
	} else {
		k.a.Rcounts, k.a.Rdispls, k.a.Rdts = cs, ds, dts
	}
	return 0
}

// byteOffset is d extents of ext bytes, and whether it stays inside the
// address space.
func byteOffset(d, ext int64) (int64, bool) {
	if d == 0 || ext == 0 {
		return 0, true
	}
	if (d < 1<<31 && d > -1<<31 && ext < 1<<31 && ext > -1<<31) || (d < userSpace && d > -userSpace && userSpace/abs64(ext) > abs64(d)) {
		off := d * ext
		return off, off > -userSpace && off < userSpace
	}
	return 0, false
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// noInPlace rejects MPI_IN_PLACE for buffer arg.
func (k *collCheck) noInPlace(p unsafe.Pointer, arg, why string) int32 {
	if mpirt.IsInPlace(p) {
		return k.errf(mpirt.ErrBuffer, "invalid buffer argument %s: MPI_IN_PLACE %s", arg, why)
	}
	return 0
}

// alias rejects the same buffer given as sendbuf and recvbuf (MPICH's
// check; MPI_IN_PLACE is the way to say that).
func (k *collCheck) alias(nonzero bool) int32 {
	if k.sbuf == k.rbuf && k.sbuf != nil && !mpirt.IsInPlace(k.sbuf) && nonzero {
		return k.errf(mpirt.ErrBuffer, "invalid buffer arguments: sendbuf and recvbuf are the same buffer (use MPI_IN_PLACE)")
	}
	return 0
}

func (k *collCheck) op(dt *mpirt.Datatype) int32 {
	if err := mpirt.CheckOp(mpirt.Handle(k.opH), dt); err != nil {
		return fail(k.fn, k.c, err)
	}
	k.a.Op = mpirt.Handle(k.opH)
	return 0
}

// checks recycles the state of collective calls (runColl).
var checks = sync.Pool{New: func() any { return new(collCheck) }}

// runColl checks a collective call's arguments and runs, starts or
// creates it.
func runColl(call *collCall) int32 {
	fn := call.fn
	c, rc := comm(fn, call.comm)
	if rc != 0 {
		return rc
	}
	// The state comes from a pool: a blocking call hands its arguments to
	// the collective table's functions, so they would otherwise be
	// allocated on every call (nonblocking and persistent calls keep a
	// copy of their own: their schedules refer to them while they run).
	k := checks.Get().(*collCheck)
	*k = collCheck{collCall: *call, c: c, inter: c.IsInter()}
	defer checks.Put(k)
	if k.inter && (call.coll == mpirt.CollScan || call.coll == mpirt.CollExscan) {
		return k.errf(mpirt.ErrComm, "invalid communicator argument comm: %s is not defined on an intercommunicator", fn)
	}
	if call.mode != ncBlocking {
		if rc := nullArg(fn, c, call.request == nil, "request"); rc != 0 {
			return rc
		}
	}
	if call.mode == ncPersistent {
		if _, rc := infoArg(fn, c, call.info, "info", true); rc != 0 {
			return rc
		}
	}
	if rc := k.check(); rc != 0 {
		return rc
	}
	switch call.mode {
	case ncBlocking:
		if skipBlocking(k) {
			return 0
		}
		return fail(fn, c, c.CollRun(call.coll, &k.a))
	case ncNonblocking:
		a := k.a
		r, err := c.CollStart(call.coll, &a)
		if err != nil {
			return fail(fn, c, err)
		}
		*call.request = int32(world.AddRequest(r))
	default:
		a := k.a
		r, err := c.CollPersistent(call.coll, &a)
		if err != nil {
			return fail(fn, c, err)
		}
		*call.request = int32(world.AddRequest(r))
	}
	return 0
}

// skipBlocking reports a blocking call with nothing to do on any process
// of an intracommunicator (so the direct blocking functions, which take
// no schedule tag, are not entered).
func skipBlocking(k *collCheck) bool {
	if k.inter {
		return false
	}
	switch k.coll {
	case mpirt.CollBcast, mpirt.CollAllreduce:
		return k.a.Rcount == 0 || k.c.Size() == 1 && k.coll == mpirt.CollBcast
	case mpirt.CollReduce:
		return k.a.Rcount == 0
	}
	return false
}

// check validates the arguments of the call's operation and fills k.a.
func (k *collCheck) check() int32 {
	c := k.c
	k.a.Sbuf, k.a.Rbuf, k.a.Root = k.sbuf, k.rbuf, int(k.root)
	rooted := false
	switch k.coll {
	case mpirt.CollBcast, mpirt.CollGather, mpirt.CollGatherv, mpirt.CollScatter, mpirt.CollScatterv, mpirt.CollReduce:
		rooted = true
		if rc := checkRoot(k.fn, c, k.root); rc != 0 {
			return rc
		}
	}
	// Which role this process plays: the root (MPI_ROOT on an
	// intercommunicator), a process of the root's group that takes no
	// part (MPI_PROC_NULL), or a contributor.
	isRoot, idle := false, false
	if rooted {
		if k.inter {
			isRoot, idle = k.root == mpirt.RootRank, k.root == mpirt.ProcNull
		} else {
			isRoot = int(k.root) == c.Rank()
		}
	}
	inPlace := mpirt.IsInPlace(k.sbuf)
	if k.inter {
		// The send buffer is not significant at the root and its idle
		// peers, the receive buffer nowhere but at the root of a rooted
		// operation (and everywhere in the others).
		if !(rooted && (isRoot || idle)) {
			if rc := k.noInPlace(k.sbuf, "sendbuf", "is not valid on an intercommunicator"); rc != 0 {
				return rc
			}
		}
		if !rooted || isRoot {
			if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid on an intercommunicator"); rc != 0 {
				return rc
			}
		}
	}
	n := c.Size()
	if k.inter {
		n = c.RemoteSize()
	}
	switch k.coll {
	case mpirt.CollBarrier:
		return 0
	case mpirt.CollBcast:
		if idle {
			return 0
		}
		if rc := k.noInPlace(k.rbuf, "buffer", "is not valid in MPI_Bcast"); rc != 0 {
			return rc
		}
		return k.side(false)
	case mpirt.CollGather, mpirt.CollGatherv:
		if idle {
			return 0
		}
		if !isRoot || !k.inter {
			if !isRoot {
				if rc := k.noInPlace(k.sbuf, "sendbuf", "is only valid at the root"); rc != 0 {
					return rc
				}
			}
			if !inPlace {
				if rc := k.side(true); rc != 0 {
					return rc
				}
			}
		}
		if !isRoot {
			return 0
		}
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		if k.coll == mpirt.CollGather {
			if rc := k.blocks(false, n); rc != 0 {
				return rc
			}
			return k.alias(k.a.Rcount > 0 && !k.inter)
		}
		if rc := k.vside(false, k.rcounts, k.displs, n, "recvcounts", "displs"); rc != 0 {
			return rc
		}
		return k.alias(!k.inter)
	case mpirt.CollScatter, mpirt.CollScatterv:
		if idle {
			return 0
		}
		recvIn := mpirt.IsInPlace(k.rbuf)
		if !isRoot || !k.inter {
			if !isRoot {
				if rc := k.noInPlace(k.rbuf, "recvbuf", "is only valid at the root"); rc != 0 {
					return rc
				}
			}
			if !recvIn {
				if rc := k.side(false); rc != 0 {
					return rc
				}
			}
		}
		if !isRoot {
			return 0
		}
		if rc := k.noInPlace(k.sbuf, "sendbuf", "is not valid here"); rc != 0 {
			return rc
		}
		if k.coll == mpirt.CollScatter {
			if rc := k.blocks(true, n); rc != 0 {
				return rc
			}
			return k.alias(k.a.Scount > 0 && !k.inter)
		}
		if rc := k.vside(true, k.scounts, k.displs, n, "sendcounts", "displs"); rc != 0 {
			return rc
		}
		return k.alias(!k.inter)
	case mpirt.CollAllgather, mpirt.CollAlltoall:
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		if !inPlace {
			sn := 1
			if k.coll == mpirt.CollAlltoall {
				sn = n
			}
			if rc := k.blocks(true, sn); rc != 0 {
				return rc
			}
		}
		if rc := k.blocks(false, n); rc != 0 {
			return rc
		}
		return k.alias(k.a.Rcount > 0)
	case mpirt.CollAllgatherv, mpirt.CollAlltoallv:
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		var rc int32
		if !inPlace {
			if k.coll == mpirt.CollAllgatherv {
				rc = k.side(true)
			} else {
				rc = k.vside(true, k.scounts, k.sdispls, n, "sendcounts", "sdispls")
			}
			if rc != 0 {
				return rc
			}
		}
		if k.coll == mpirt.CollAllgatherv {
			rc = k.vside(false, k.rcounts, k.displs, n, "recvcounts", "displs")
		} else {
			rc = k.vside(false, k.rcounts, k.rdispls, n, "recvcounts", "rdispls")
		}
		if rc != 0 {
			return rc
		}
		return k.alias(true)
	case mpirt.CollAlltoallw:
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		if !inPlace {
			if rc := k.wside(true, n); rc != 0 {
				return rc
			}
		}
		if rc := k.wside(false, n); rc != 0 {
			return rc
		}
		return k.alias(true)
	case mpirt.CollReduce:
		if idle {
			return 0
		}
		k.noBuf = !isRoot
		if rc := k.side(false); rc != 0 {
			return rc
		}
		if rc := k.op(k.a.Rdt); rc != 0 {
			return rc
		}
		if !isRoot {
			if rc := k.noInPlace(k.sbuf, "sendbuf", "is only valid at the root"); rc != 0 {
				return rc
			}
			return checkBuf(k.fn, c, k.sbuf, k.rcount, k.a.Rdt, "sendbuf")
		}
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		if !inPlace && !k.inter {
			if rc := checkBuf(k.fn, c, k.sbuf, k.rcount, k.a.Rdt, "sendbuf"); rc != 0 {
				return rc
			}
		}
		return k.alias(k.a.Rcount > 0 && !k.inter)
	case mpirt.CollAllreduce, mpirt.CollScan, mpirt.CollExscan, mpirt.CollReduceScatterBlock, mpirt.CollReduceScatter:
		if rc := k.noInPlace(k.rbuf, "recvbuf", "is not valid here"); rc != 0 {
			return rc
		}
		total := k.rcount
		if k.coll == mpirt.CollReduceScatter {
			if rc := k.vside(false, k.rcounts, carr{}, c.Size(), "recvcounts", ""); rc != 0 {
				return rc
			}
			total = 0
			for _, v := range k.a.Rcounts {
				total += int64(v)
			}
		} else if rc := k.side(false); rc != 0 {
			return rc
		}
		if k.coll == mpirt.CollReduceScatterBlock {
			if total > mpirt.MaxMessageBytes/int64(c.Size()) {
				return k.errf(mpirt.ErrCount, "invalid count argument recvcount: %d blocks of %d elements exceed the %d-byte message limit", c.Size(), total, int64(mpirt.MaxMessageBytes))
			}
			total *= int64(c.Size())
		}
		if rc := k.op(k.a.Rdt); rc != 0 {
			return rc
		}
		if !inPlace {
			if rc := checkBuf(k.fn, c, k.sbuf, total, k.a.Rdt, "sendbuf"); rc != 0 {
				return rc
			}
		}
		return k.alias(total > 0)
	}
	return k.errf(mpirt.ErrIntern, "unknown collective operation %s", k.coll)
}
