package mpirt

import (
	"bytes"
	"errors"
	"unsafe"

	"golang.org/x/sys/unix"
)

// RMAArgs are the arguments of one RMA operation. Origin (OCount x ODT)
// is the data sent, Result (RCount x RDT) where fetched data lands,
// Compare the compare operand of compare_and_swap; the target is TCount x
// TDT at displacement Disp of rank Target.
type RMAArgs struct {
	Origin  unsafe.Pointer
	OCount  int
	ODT     *Datatype
	Result  unsafe.Pointer
	RCount  int
	RDT     *Datatype
	Compare unsafe.Pointer
	Target  int
	Disp    int64
	TCount  int
	TDT     *Datatype
	Op      Handle
	// Request: a request form (MPI_Rget, ...). Req is its request when
	// the operation is not complete on return (a fetch from another
	// host: complete when the answer arrived), nil when it is.
	Request bool
	Req     *Request
}

// rmaSeg is one block of a transfer: n bytes at offset off from the
// target address, paired with local memory loc.
type rmaSeg struct {
	off int64
	loc unsafe.Pointer
	n   int
}

// targetSegs pairs the blocks of count x dt at the target with local
// memory: packed (the bytes back to back from local) or laid out like the
// target (local holds the span from dt's true lower bound). The result
// uses buf's storage when it fits (a contiguous type needs one segment).
func targetSegs(dt *Datatype, count int, local unsafe.Pointer, packed bool, buf []rmaSeg) []rmaSeg {
	if count <= 0 || dt.Size() == 0 {
		return nil
	}
	if dt.IsContiguous() {
		return append(buf[:0], rmaSeg{off: 0, loc: local, n: count * dt.Size()})
	}
	segs := buf[:0]
	pos := 0
	dt.eachBlock(0, count, func(off, n int) {
		l := unsafe.Add(local, pos)
		if !packed {
			l = unsafe.Add(local, off-dt.TrueLB())
		}
		if k := len(segs); k > 0 {
			s := &segs[k-1]
			if s.off+int64(s.n) == int64(off) && unsafe.Add(s.loc, s.n) == l {
				s.n += n
				pos += n
				return
			}
		}
		segs = append(segs, rmaSeg{off: int64(off), loc: l, n: n})
		pos += n
	})
	return segs
}

// rmaSpan is the number of bytes from the first to the last data byte of
// count x dt.
func rmaSpan(dt *Datatype, count int) int64 {
	if count <= 0 || dt.Size() == 0 {
		return 0
	}
	return int64(count-1)*int64(dt.Extent()) + int64(dt.TrueExtent())
}

// target checks the rank, the epoch and the range of an access, and
// returns the address of displacement disp at the target: an offset in
// its mapped part (allocated flavors) or an address in its process.
// skip reports an MPI_PROC_NULL target.
func (win *Win) target(a *RMAArgs) (addr int64, skip bool, err error) {
	if a.Target == ProcNull {
		return 0, true, nil
	}
	if err := win.checkRank(a.Target); err != nil {
		return 0, false, Errorf(ErrRank, "", "invalid target_rank argument: %d (the window has %d processes)", a.Target, len(win.targets))
	}
	if ok, err := win.canAccess(a.Target); err != nil {
		return 0, false, err
	} else if !ok {
		return 0, false, Errorf(ErrRMASync, "", "no access epoch to rank %d is open (MPI_Win_fence, MPI_Win_start or MPI_Win_lock first)", a.Target)
	}
	if a.Disp < 0 && win.flavor != FlavorDynamic {
		return 0, false, Errorf(ErrDisp, "", "invalid target_disp argument: %d is negative", a.Disp)
	}
	t := &win.targets[a.Target]
	// Displacement times unit, plus the type's bounds, plus the span must
	// stay inside int64: beyond 2^62 bytes nothing can be in a window.
	const far = 1 << 62
	if d := a.Disp; t.dispUnit > 0 && (d > far/t.dispUnit || d < -far/t.dispUnit) {
		return 0, false, Errorf(ErrRMARange, "", "invalid target_disp argument: %d units of %d bytes are outside rank %d's window", d, t.dispUnit, a.Target)
	}
	lo := a.Disp * t.dispUnit
	sp := rmaSpan(a.TDT, a.TCount)
	if sp < 0 || sp > far {
		return 0, false, Errorf(ErrRMARange, "", "target: %d elements of %v span %d bytes, more than rank %d's window", a.TCount, a.TDT, sp, a.Target)
	}
	if sp == 0 {
		return lo, false, nil
	}
	lo += int64(a.TDT.TrueLB())
	if win.flavor == FlavorDynamic && !win.local(a.Target) {
		ok, err := win.net.attachedRemote(a.Target, uint64(lo), sp)
		if err != nil {
			return 0, false, err
		}
		if !ok {
			return 0, false, Errorf(ErrRMARange, "", "target bytes [%#x, %#x) of rank %d are not in a region attached to the window", lo, lo+sp, a.Target)
		}
		return a.Disp, false, nil
	}
	if win.flavor == FlavorDynamic {
		if !win.attached(a.Target, uintptr(lo), sp) {
			return 0, false, Errorf(ErrRMARange, "", "target bytes [%#x, %#x) of rank %d are not in a region attached to the window", lo, lo+sp, a.Target)
		}
		return a.Disp, false, nil
	}
	if lo < 0 || lo > t.size || sp > t.size-lo {
		return 0, false, Errorf(ErrRMARange, "", "target bytes [%d, %d) are outside rank %d's window of %d bytes", lo, lo+sp, a.Target, t.size)
	}
	if t.mapped != nil || !win.local(a.Target) {
		// An offset in the mapping, or from the base of a process of
		// another host.
		return a.Disp * t.dispUnit, false, nil
	}
	return int64(t.base) + a.Disp*t.dispUnit, false, nil
}

// copyPiece is copyPieces' piece. Go's copy on amd64 moves 1 MiB and
// more with non-temporal stores, past the caches: a put of 1 MiB that
// fits in them (and that the target then reads from them) moved 44 GB/s
// on the AMD EPYC we measure on, 63 GB/s in pieces of 128 KiB; below
// 1 MiB pieces change nothing. capi's express lane (rma_copy) cuts
// its copies the same way.
const copyPiece = 128 << 10

// copyPieces is copy(dst, src) for len(src) == len(dst), in pieces of
// copyPiece when the two do not overlap.
func copyPieces(dst, src []byte) {
	n := len(src)
	if n <= copyPiece || len(dst) != n {
		copy(dst, src)
		return
	}
	d, s := uintptr(unsafe.Pointer(&dst[0])), uintptr(unsafe.Pointer(&src[0]))
	if d-s < uintptr(n) || s-d < uintptr(n) {
		copy(dst, src)
		return
	}
	for i := 0; i < n; i += copyPiece {
		j := min(i+copyPiece, n)
		copy(dst[i:j], src[i:j])
	}
}

// xfer moves segs between local memory and rank t at addr: writes when
// write, else reads.
func (win *Win) xfer(t int, addr int64, segs []rmaSeg, write bool) error {
	tg := &win.targets[t]
	if tg.mapped != nil {
		for _, s := range segs {
			at := addr + s.off
			remote := tg.mapped[at : at+int64(s.n)]
			local := unsafe.Slice((*byte)(s.loc), s.n)
			if write {
				copyPieces(remote, local)
			} else {
				copyPieces(local, remote)
			}
		}
		return nil
	}
	const maxIov = 1024
	var liov [maxIov]unix.Iovec
	var riov [maxIov]unix.RemoteIovec
	for len(segs) > 0 {
		k := min(len(segs), maxIov)
		want := 0
		for i, s := range segs[:k] {
			liov[i].Base = (*byte)(s.loc)
			liov[i].SetLen(s.n)
			riov[i] = unix.RemoteIovec{Base: uintptr(addr + s.off), Len: s.n}
			want += s.n
		}
		var n int
		var err error
		if write {
			n, err = unix.ProcessVMWritev(tg.pid, liov[:k], riov[:k], 0)
		} else {
			n, err = unix.ProcessVMReadv(tg.pid, liov[:k], riov[:k], 0)
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil || n == 0 {
			if err == nil {
				err = unix.EFAULT
			}
			return Errorf(ErrOther, "", "cross-memory %s of %d bytes with rank %d (pid %d) failed: %v", map[bool]string{true: "write", false: "read"}[write], want, t, tg.pid, err)
		}
		// Skip what moved (a short transfer ends inside some segment).
		for n > 0 && len(segs) > 0 {
			if n >= segs[0].n {
				n -= segs[0].n
				segs = segs[1:]
				continue
			}
			segs[0].off += int64(n)
			segs[0].loc = unsafe.Add(segs[0].loc, n)
			segs[0].n -= n
			n = 0
		}
	}
	return nil
}

func checkSignature(what string, n1 int, d1 *Datatype, n2 int, d2 *Datatype) error {
	if n1*d1.Size() != n2*d2.Size() {
		return Errorf(ErrType, "", "%s: %d x %s (%d bytes) does not match the target's %d x %s (%d bytes)", what, n1, d1, n1*d1.Size(), n2, d2, n2*d2.Size())
	}
	return nil
}

// Put is MPI_Put (and MPI_Rput: complete when it returns).
func (win *Win) Put(a *RMAArgs) error {
	if err := checkSignature("origin", a.OCount, a.ODT, a.TCount, a.TDT); err != nil {
		return err
	}
	addr, skip, err := win.target(a)
	if skip || err != nil || a.OCount == 0 {
		return err
	}
	data := sendView(a.Origin, a.OCount, a.ODT)
	var one [1]rmaSeg
	if !win.local(a.Target) {
		_, err := win.net.issue(a.Target, rmaOpPut, addr, 0, 0, targetSegs(a.TDT, a.TCount, unsafe.Pointer(unsafe.SliceData(data)), true, one[:]), nil, true, 1)
		return err
	}
	return win.xfer(a.Target, addr, targetSegs(a.TDT, a.TCount, unsafe.Pointer(unsafe.SliceData(data)), true, one[:]), true)
}

// Get is MPI_Get (and MPI_Rget).
func (win *Win) Get(a *RMAArgs) error {
	if err := checkSignature("origin", a.OCount, a.ODT, a.TCount, a.TDT); err != nil {
		return err
	}
	addr, skip, err := win.target(a)
	if skip || err != nil || a.OCount == 0 {
		return err
	}
	buf, done := recvView(a.Origin, a.OCount, a.ODT)
	var one [1]rmaSeg
	segs := targetSegs(a.TDT, a.TCount, unsafe.Pointer(unsafe.SliceData(buf)), true, one[:])
	if !win.local(a.Target) {
		waits, err := win.net.issue(a.Target, rmaOpGet, addr, 0, 0, segs, segs, false, 1)
		if err != nil {
			return err
		}
		var finish func()
		if done != nil {
			finish = func() { done(&Request{Status: Status{Count: int64(len(buf))}}) }
		}
		return win.net.fetched(a, waits, finish)
	}
	if err := win.xfer(a.Target, addr, segs, false); err != nil {
		return err
	}
	if done != nil {
		done(&Request{Status: Status{Count: int64(len(buf))}})
	}
	return nil
}

// checkAccOp checks op and the element types of an accumulate: predefined
// op (or MPI_REPLACE/MPI_NO_OP) on the same predefined element type on
// both sides.
func checkAccOp(op Handle, dt *Datatype, others ...*Datatype) error {
	if err := checkAccOpOnly(op); err != nil {
		return err
	}
	if dt.Elem == nil {
		return Errorf(ErrType, "", "accumulate datatype %s is not made of a single predefined type", dt)
	}
	for _, o := range others {
		if o != nil && o.Elem != dt.Elem {
			if o.Elem == nil {
				return Errorf(ErrType, "", "accumulate datatype %s is not made of a single predefined type", o)
			}
			return Errorf(ErrType, "", "accumulate datatypes differ: %s (of %s) and %s (of %s)", o, o.Elem, dt, dt.Elem)
		}
	}
	return CheckOp(op, dt)
}

// checkAccOpOnly checks that op may be used in an accumulate: a
// predefined op, MPI_REPLACE or MPI_NO_OP.
func checkAccOpOnly(op Handle) error {
	if !IsPredefinedOp(op) {
		if op == HandleOpNull {
			return Errorf(ErrOp, "", "invalid op argument: MPI_OP_NULL")
		}
		return Errorf(ErrOp, "", "invalid op argument: %v is not a predefined operation (user operations cannot be used in RMA)", op)
	}
	return nil
}

// Accumulate is MPI_Accumulate (and MPI_Raccumulate).
func (win *Win) Accumulate(a *RMAArgs) error {
	a.Result = nil
	return win.GetAccumulate(a)
}

// GetAccumulate is MPI_Get_accumulate (and MPI_Rget_accumulate,
// MPI_Fetch_and_op): with a.Result nil it is MPI_Accumulate.
func (win *Win) GetAccumulate(a *RMAArgs) error {
	noop := a.Op == OpNoOp
	fetch := a.Result != nil || a.RDT != nil
	var others []*Datatype
	if !noop {
		others = append(others, a.ODT)
	}
	if fetch {
		others = append(others, a.RDT)
	}
	// An accumulate that moves no data (every side's count or type size
	// is zero) needs only a valid op: MPICH accepts any mix of datatypes
	// there, as it does for MPI_Put and MPI_Get.
	empty := a.TCount*a.TDT.Size() == 0 && (noop || a.OCount*a.ODT.Size() == 0) &&
		(!fetch || a.RCount*a.RDT.Size() == 0)
	if empty {
		if err := checkAccOpOnly(a.Op); err != nil {
			return err
		}
		_, _, err := win.target(a)
		return err
	}
	if err := checkAccOp(a.Op, a.TDT, others...); err != nil {
		return err
	}
	if !noop {
		if err := checkSignature("origin", a.OCount, a.ODT, a.TCount, a.TDT); err != nil {
			return err
		}
	}
	if fetch {
		if err := checkSignature("result", a.RCount, a.RDT, a.TCount, a.TDT); err != nil {
			return err
		}
	}
	addr, skip, err := win.target(a)
	if skip || err != nil || a.TCount == 0 || a.TDT.Size() == 0 {
		return err
	}
	tdt, tc := a.TDT, a.TCount
	if !win.local(a.Target) {
		return win.accumulateNet(a, addr, noop, fetch)
	}
	if win.targets[a.Target].mapped != nil && tdt.IsContiguous() && (noop || a.ODT.IsContiguous()) && (!fetch || a.RDT.IsContiguous()) {
		return win.accumulateMapped(a, addr, noop, fetch)
	}
	sp := rmaSpan(tdt, tc)
	// cur holds the target's data laid out as at the target.
	cur := make([]byte, sp)
	pc := unsafe.Pointer(unsafe.SliceData(cur))
	segs := targetSegs(tdt, tc, pc, false, nil)
	var operand []byte
	if !noop {
		// The origin data in the target's layout.
		operand = make([]byte, sp)
		packed := sendView(a.Origin, a.OCount, a.ODT)
		tdt.Unpack(unsafe.Add(unsafe.Pointer(unsafe.SliceData(operand)), -tdt.TrueLB()), packed, tc)
	}
	win.accLock(a.Target)
	defer win.accUnlock(a.Target)
	if err := win.xfer(a.Target, addr, segs, false); err != nil {
		return err
	}
	if fetch {
		res := make([]byte, tc*tdt.Size())
		tdt.Pack(res, unsafe.Add(pc, -tdt.TrueLB()), tc)
		a.RDT.Unpack(a.Result, res, a.RCount)
	}
	if noop {
		return nil
	}
	if err := ReduceLocal(a.Op, tdt, operand, cur, tc); err != nil {
		return err
	}
	return win.xfer(a.Target, addr, segs, true)
}

// accumulateMapped is GetAccumulate on contiguous data of a target in
// this process's mapping: the op runs in place, without staging.
func (win *Win) accumulateMapped(a *RMAArgs, addr int64, noop, fetch bool) error {
	n := a.TCount * a.TDT.Size()
	cur := win.targets[a.Target].mapped[addr : addr+int64(n)]
	win.accLock(a.Target)
	defer win.accUnlock(a.Target)
	if fetch {
		copy(unsafe.Slice((*byte)(a.Result), n), cur)
	}
	if noop {
		return nil
	}
	return ReduceLocal(a.Op, a.TDT, sendView(a.Origin, a.OCount, a.ODT), cur, a.TCount)
}

// CompareAndSwap is MPI_Compare_and_swap on one element of a.TDT (a
// predefined integer, logical, byte or multi-language type): the target
// element is replaced by origin when it equals compare; the old value
// lands in result.
func (win *Win) CompareAndSwap(a *RMAArgs) error {
	dt := a.TDT
	switch g := dt.Group(); {
	case !dt.IsPredefined() || dt.Elem != dt:
		return Errorf(ErrType, "", "compare_and_swap needs a predefined datatype, not %s", dt)
	case g != GroupCInteger && g != GroupFortranInteger && g != GroupLogical && g != GroupByte && g != GroupMultiLanguage:
		return Errorf(ErrType, "", "compare_and_swap is not defined on %s (integer, logical, byte or address types only)", dt)
	}
	addr, skip, err := win.target(a)
	if skip || err != nil {
		return err
	}
	n := dt.Size()
	if !win.local(a.Target) {
		in := make([]byte, 2*n)
		copy(in, unsafe.Slice((*byte)(a.Origin), n))
		copy(in[n:], unsafe.Slice((*byte)(a.Compare), n))
		// One segment of 2n bytes of data would be cut; send it whole.
		return win.net.issueCAS(a.Target, addr, dt, in, unsafe.Slice((*byte)(a.Result), n))
	}
	old := make([]byte, n)
	seg := []rmaSeg{{loc: unsafe.Pointer(unsafe.SliceData(old)), n: n}}
	win.accLock(a.Target)
	defer win.accUnlock(a.Target)
	if err := win.xfer(a.Target, addr, seg, false); err != nil {
		return err
	}
	copy(unsafe.Slice((*byte)(a.Result), n), old)
	if bytes.Equal(old, unsafe.Slice((*byte)(a.Compare), n)) {
		seg[0].loc = a.Origin
		return win.xfer(a.Target, addr, seg, true)
	}
	return nil
}

// CompletedRequest returns a request that is complete already (the
// request-based RMA operations that complete when issued).
func (w *World) CompletedRequest(c *Comm) *Request {
	return w.completedRequest(c, ReqSend, AnySource, AnyTag)
}
