package main

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// Argument decoding shared by the entry points: each helper resolves or
// checks one kind of argument and, when it is bad, raises the error (with
// the function and argument named) and returns a non-zero code.

// tagUB is the value of the MPI_TAG_UB attribute.
const tagUB = 1<<31 - 1

// active reports whether MPI is usable: initialized (by MPI_Init or a
// session) and not shut down; otherwise it reports the misuse.
func active(fn string) bool {
	if worldUp.Load() {
		return true
	}
	notInitialized(fn)
	return false
}

// comm resolves a communicator argument.
func comm(fn string, h int32) (*mpirt.Comm, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	c := world.Comm(mpirt.Handle(h))
	if c == nil {
		return nil, noComm(fn, h, "comm")
	}
	return c, 0
}

// noComm raises the error for h, which names no communicator usable here.
func noComm(fn string, h int32, arg string) int32 {
	if h == int32(mpirt.HandleCommNull) {
		return failf(fn, nil, mpirt.ErrComm, "invalid communicator argument %s: MPI_COMM_NULL", arg)
	}
	if pc := world.PendingComm(mpirt.Handle(h)); pc != nil {
		return failf(fn, pc, mpirt.ErrComm, "invalid communicator argument %s: 0x%08x is the new communicator of an MPI_Comm_idup that has not completed (usable once its request completes)", arg, uint32(h))
	}
	return failf(fn, nil, mpirt.ErrComm, "invalid communicator argument %s: 0x%08x is not a communicator", arg, uint32(h))
}

// commOrPending resolves the communicator argument of the calls that may
// name the new communicator of an MPI_Comm_idup that has not completed
// (its error handler, name, hints and attributes; mpirt.Comm.Idup).
func commOrPending(fn string, h int32) (*mpirt.Comm, int32) {
	if active(fn) {
		if c := world.PendingComm(mpirt.Handle(h)); c != nil {
			return c, 0
		}
	}
	return comm(fn, h)
}

// datatype resolves a datatype argument.
func datatype(fn string, c *mpirt.Comm, h int32, arg string) (*mpirt.Datatype, int32) {
	if dt := world.Datatype(mpirt.Handle(h)); dt != nil {
		return dt, 0
	}
	if h == int32(mpirt.HandleDatatypeNull) {
		return nil, failf(fn, c, mpirt.ErrType, "invalid datatype argument %s: MPI_DATATYPE_NULL", arg)
	}
	if world.AnyDatatype(mpirt.Handle(h)) != nil {
		return nil, failf(fn, c, mpirt.ErrType, "invalid datatype argument %s: 0x%08x is not committed", arg, uint32(h))
	}
	return nil, failf(fn, c, mpirt.ErrType, "invalid datatype argument %s: 0x%08x is not a datatype", arg, uint32(h))
}

// p2pDatatype resolves the datatype of a point-to-point buffer. As in
// MPICH, MPI_DATATYPE_NULL is accepted when count is 0 (the message is
// empty; MPI_BYTE stands in for it).
func p2pDatatype(fn string, c *mpirt.Comm, count int64, h int32) (*mpirt.Datatype, int32) {
	if count == 0 && h == int32(mpirt.HandleDatatypeNull) {
		return world.Datatype(mpirt.TypeByte), 0
	}
	return datatype(fn, c, h, "datatype")
}

func checkCount(fn string, c *mpirt.Comm, count int64, arg string) int32 {
	if count < 0 {
		return failf(fn, c, mpirt.ErrCount, "invalid count argument %s: %d is negative", arg, count)
	}
	return 0
}

// checkRank checks a destination/source rank; wildcard allows
// MPI_ANY_SOURCE.
// On an intercommunicator the rank names a process of the remote group.
func checkRank(fn string, c *mpirt.Comm, r int32, arg string, wildcard bool) int32 {
	if r == mpirt.ProcNull || wildcard && r == mpirt.AnySource || r >= 0 && int(r) < c.PeerSize() {
		return 0
	}
	if c.IsInter() {
		return failf(fn, c, mpirt.ErrRank, "invalid rank argument %s: %d (remote group size %d)", arg, r, c.PeerSize())
	}
	return failf(fn, c, mpirt.ErrRank, "invalid rank argument %s: %d (communicator size %d)", arg, r, c.Size())
}

// checkRoot checks a collective's root: a rank of c, or on an
// intercommunicator MPI_ROOT, MPI_PROC_NULL or a rank of the remote group.
func checkRoot(fn string, c *mpirt.Comm, r int32) int32 {
	if c.IsInter() {
		if r == mpirt.RootRank || r == mpirt.ProcNull || r >= 0 && int(r) < c.RemoteSize() {
			return 0
		}
		return failf(fn, c, mpirt.ErrRoot, "invalid root argument root: %d (on an intercommunicator: MPI_ROOT, MPI_PROC_NULL or a rank of the remote group of size %d)", r, c.RemoteSize())
	}
	if r >= 0 && int(r) < c.Size() {
		return 0
	}
	return failf(fn, c, mpirt.ErrRoot, "invalid root argument root: %d (communicator size %d)", r, c.Size())
}

// intraComm resolves a communicator that must be an intracommunicator
// (topology constructors and the like).
func intraComm(fn string, h int32) (*mpirt.Comm, int32) {
	c, rc := comm(fn, h)
	if rc != 0 {
		return nil, rc
	}
	if c.IsInter() {
		return nil, failf(fn, c, mpirt.ErrComm, "invalid communicator argument comm: %s is not defined on an intercommunicator", fn)
	}
	return c, 0
}

func checkTag(fn string, c *mpirt.Comm, t int32, wildcard bool) int32 {
	if t >= 0 && t <= tagUB || wildcard && t == mpirt.AnyTag {
		return 0
	}
	return failf(fn, c, mpirt.ErrTag, "invalid tag argument tag: %d (valid: 0..%d)", t, tagUB)
}

// The bounds every buffer lies in: nothing is ever mapped in the first
// page (vm.mmap_min_addr is at least 4096), and user addresses of the
// 64-bit Linux targets stay below 2^47.
const (
	nullPage  = 4096
	userSpace = 1 << 47
)

// checkBuf checks count elements of dt at p that would be read or
// written: NULL (MPI_BOTTOM) is accepted only with a datatype whose
// displacements are addresses (the bytes touched start past the first
// page), and count must neither make a message larger than the runtime
// carries nor make the bytes touched overflow the address space. Every
// buffer argument of p2p, collectives, pack/unpack and reduce_local goes
// through it (or checkBufAt), so no later slice of the buffer can panic.
func checkBuf(fn string, c *mpirt.Comm, p unsafe.Pointer, count int64, dt *mpirt.Datatype, arg string) int32 {
	return checkBufAt(fn, c, p, 0, count, dt, arg)
}

// checkBufAt is checkBuf for the elements starting off bytes from p (a
// v-collective's block; off already checked against userSpace).
func checkBufAt(fn string, c *mpirt.Comm, p unsafe.Pointer, off, count int64, dt *mpirt.Datatype, arg string) int32 {
	sz := int64(dt.Size())
	if count <= 0 || sz == 0 {
		return 0
	}
	ext := int64(dt.Extent())
	if ext < 0 {
		ext = -ext
	}
	// (Counts, sizes and extents below 2^31 cannot overflow: no division
	// on the fast path.)
	if count|sz|ext >= 1<<31 {
		if count > mpirt.MaxMessageBytes/sz || ext > 0 && count-1 > userSpace/ext {
			return failf(fn, c, mpirt.ErrCount, "invalid count argument for %s: %d elements of %s (size %d, extent %d) exceed the address space or the %d-byte message limit",
				arg, count, dt, sz, dt.Extent(), int64(mpirt.MaxMessageBytes))
		}
	} else if count*sz > mpirt.MaxMessageBytes {
		return failf(fn, c, mpirt.ErrCount, "invalid count argument for %s: %d elements of %s exceed the %d-byte message limit",
			arg, count, dt, int64(mpirt.MaxMessageBytes))
	}
	lo, hi := off+int64(dt.TrueLB()), off+int64(dt.TrueLB())+int64(dt.TrueExtent())
	if dt.Extent() >= 0 {
		hi += (count - 1) * ext
	} else {
		lo -= (count - 1) * ext
	}
	base := int64(uintptr(p))
	if base >= userSpace {
		// A pointer no user buffer has (MPI_IN_PLACE and such are
		// handled by the caller).
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %s: %p is not a user address", arg, p)
	}
	if base+lo < nullPage {
		if p == nil {
			return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %s: NULL with count %d", arg, count)
		}
		return failf(fn, c, mpirt.ErrBuffer, "invalid buffer argument %s: %d elements of %s at %p start at address %d, in the first page", arg, count, dt, p, base+lo)
	}
	if base+hi > userSpace {
		return failf(fn, c, mpirt.ErrCount, "invalid count argument for %s: %d elements of %s at %p reach past the end of the address space", arg, count, dt, p)
	}
	return 0
}

// checkBytes checks n bytes at off from p (packed buffers).
func checkBytes(fn string, c *mpirt.Comm, p unsafe.Pointer, off, n int64, arg string) int32 {
	if n <= 0 {
		return 0
	}
	if off < 0 || off >= userSpace || n >= userSpace {
		return failf(fn, c, mpirt.ErrArg, "invalid argument position: %d bytes at %d are outside the address space", n, off)
	}
	return checkBufAt(fn, c, p, off, n, world.Datatype(mpirt.TypeByte), arg)
}

// checkMessageSize rejects count elements of dt that make a message
// larger than the runtime can carry (large-count calls).
func checkMessageSize(fn string, c *mpirt.Comm, count int64, dt *mpirt.Datatype, arg string) int32 {
	// (Counts and sizes below 2^31 cannot overflow: no division on the
	// fast path.)
	if sz := int64(dt.Size()); sz > 0 && (count|sz >= 1<<31 || count*sz > mpirt.MaxMessageBytes) && count > mpirt.MaxMessageBytes/sz {
		return failf(fn, c, mpirt.ErrCount, "invalid count argument %s: %d elements of %s (%d bytes each) exceed the %d-byte message limit",
			arg, count, dt, sz, int64(mpirt.MaxMessageBytes))
	}
	return 0
}

// p2pArgs checks the common (buf, count, datatype, rank, tag, comm)
// argument list of point-to-point calls; the int and the MPI_Count (_c)
// forms share it.
func p2pArgs(fn string, buf unsafe.Pointer, count int64, dtH, rank, tag, commH int32, recv bool) (*mpirt.Comm, *mpirt.Datatype, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	if rc := checkCount(fn, c, count, "count"); rc != 0 {
		return nil, nil, rc
	}
	dt, rc := p2pDatatype(fn, c, count, dtH)
	if rc != 0 {
		return nil, nil, rc
	}
	if rc := checkMessageSize(fn, c, count, dt, "count"); rc != 0 {
		return nil, nil, rc
	}
	arg := "dest"
	if recv {
		arg = "source"
	}
	if rc := checkRank(fn, c, rank, arg, recv); rc != 0 {
		return nil, nil, rc
	}
	if rc := checkTag(fn, c, tag, recv); rc != 0 {
		return nil, nil, rc
	}
	if rc := checkBuf(fn, c, buf, count, dt, "buf"); rc != 0 {
		return nil, nil, rc
	}
	return c, dt, 0
}

// setStatus writes st to a C MPI_Status unless it is MPI_STATUS_IGNORE.
// It leaves the MPI_ERROR field alone: only the multiple-completion calls
// write it, when they return MPI_ERR_IN_STATUS (setStatusErrors).
func setStatus(s *Status, st *mpirt.Status) {
	if s == nil || uintptr(unsafe.Pointer(s)) == 1 {
		return
	}
	n := uint64(st.Count) | uint64(st.SenderSizes)<<sizesShift
	s.CountLo = int32(uint32(n))
	hi := int32(n>>32) << 1
	if st.Cancelled {
		hi |= 1
	}
	s.CountHiAndCancelled = hi
	s.Source = int32(st.Source)
	s.Tag = int32(st.Tag)
}

// statusCount reads the byte count back from a C MPI_Status: all 63 bits
// of it, except in a job of mixed data representations, where bits 59-62
// are a probe's sender sizes (below).
func statusCount(s *Status) int64 {
	if mixedReps() {
		return statusRawCount(s) & (1<<sizesShift - 1)
	}
	return statusRawCount(s)
}

func statusRawCount(s *Status) int64 {
	return int64(uint32(s.CountLo)) | int64(uint32(s.CountHiAndCancelled)>>1)<<32
}

// In a job of mixed data representations, a probe's status of a message
// from a process whose C types have other sizes keeps
// mpirt.Status.SenderSizes in bits 59-62 of the count (no message is that
// long); MPI_Get_count and MPI_Get_elements count in this process's terms
// with it (runtime/hetero.go). Only there: in a homogeneous job every
// status count of up to 2^63-1 bytes (MPI_Status_set_elements_x) reads
// back as it was set, and in a mixed one MPI_Status_set_elements refuses
// counts of 2^59 bytes or more.
const sizesShift = 59

// mixedReps reports whether this job mixes data representations (then
// status counts carry the sender sizes).
func mixedReps() bool { return world != nil && world.Heterogeneous() }

// statusBytes is the status's count in this process's bytes of dt.
func statusBytes(s *Status, dt *mpirt.Datatype) int64 {
	n := statusCount(s)
	if !mixedReps() {
		return n
	}
	if sz := uint8(statusRawCount(s) >> sizesShift & 15); sz != 0 {
		return world.ReceiverBytes(n, sz, dt)
	}
	return n
}

// cString copies s into the C buffer p of capacity max (including the
// terminating NUL) and returns the length written (without the NUL).
func cString(p *byte, max int, s string) int32 {
	if p == nil || max <= 0 {
		return 0
	}
	if len(s) > max-1 {
		s = s[:max-1]
	}
	b := unsafe.Slice(p, max)
	copy(b, s)
	b[len(s)] = 0
	return int32(len(s))
}

// nullArg raises MPI_ERR_ARG on c (nil: MPI_COMM_WORLD) when a required
// pointer argument is NULL.
func nullArg(fn string, c *mpirt.Comm, isNil bool, arg string) int32 {
	if isNil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
	}
	return 0
}
