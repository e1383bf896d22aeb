package fileio

import (
	"os"
	"strconv"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// Ptr says where an access starts.
type Ptr uint8

const (
	Explicit   Ptr = iota // at an offset the caller gives
	Individual            // at the process's own file pointer
	Shared                // at the file pointer all processes share
)

// Access is one data access call.
type Access struct {
	Write  bool
	Ptr    Ptr
	Coll   bool           // a collective call (_all, ordered)
	Offset int64          // etypes, for Explicit
	Buf    unsafe.Pointer // user buffer
	Count  int64
	Dt     *mpirt.Datatype
}

// state is a consistent copy of what an access reads from the File.
type state struct {
	v      *view
	atomic bool
	h      hints
}

func (f *File) snapshot() state {
	f.mu.Lock()
	defer f.mu.Unlock()
	return state{f.view, f.atomic, f.hints}
}

// check runs the checks every access makes before it moves data.
func (f *File) check(fn string, a *Access) error {
	if a.Write {
		if err := f.checkWritable(fn); err != nil {
			return err
		}
	} else if err := f.checkReadable(fn); err != nil {
		return err
	}
	if a.Ptr != Shared {
		if err := f.checkNotSequential(fn); err != nil {
			return err
		}
	}
	if a.Ptr == Explicit && a.Offset < 0 {
		return mpirt.Errorf(mpirt.ErrArg, fn, "invalid offset argument: %d is negative", a.Offset)
	}
	return nil
}

// Do carries out a blocking access (and, run at once, the nonblocking
// and split ones) and returns its status.
func (f *File) Do(fn string, a Access) (mpirt.Status, error) {
	st := mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}
	lerr := f.check(fn, &a)
	s := f.snapshot()
	var fileBytes int64
	if lerr == nil {
		var err error
		if fileBytes, err = s.v.rep.fileSize(a.Dt, a.Count); err != nil {
			lerr = err
		} else if s.v.esize > 0 && fileBytes%s.v.esize != 0 {
			lerr = mpirt.Errorf(mpirt.ErrIO, fn, "only an integral number of etypes can be accessed: %d bytes with etype %s", fileBytes, s.v.etype)
		} else if s.v.esize == 0 && fileBytes > 0 {
			lerr = mpirt.Errorf(mpirt.ErrIO, fn, "the etype of the view has size 0")
		}
	}
	if a.Coll {
		// Every process takes part in the collective steps, even one
		// whose own arguments are wrong.
		return f.collective(fn, a, s, fileBytes, lerr)
	}
	if lerr != nil {
		return st, lerr
	}
	pos, err := f.startPos(a, s, fileBytes)
	if err != nil {
		return st, err
	}
	data, direct, err := f.stage(a, s.v, fileBytes)
	if err != nil {
		return st, err
	}
	n, err := f.xfer(fn, a.Write, s, pos*s.v.esize, data)
	return f.finish(fn, a, s, pos, data, direct, n, err)
}

// startPos is the position (etypes) the access starts at; a shared
// pointer access claims its range here.
func (f *File) startPos(a Access, s state, fileBytes int64) (int64, error) {
	switch a.Ptr {
	case Individual:
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.pos, nil
	case Shared:
		n := int64(0)
		if s.v.esize > 0 {
			n = fileBytes / s.v.esize
		}
		return f.shared.fetchAdd(n)
	}
	return a.Offset, nil
}

// stage returns the file-representation bytes of a write (or the buffer
// a read lands in) and whether they are the user's memory itself.
func (f *File) stage(a Access, v *view, fileBytes int64) ([]byte, bool, error) {
	if fileBytes == 0 {
		return nil, true, nil
	}
	if v.rep.Native && a.Dt.IsContiguous() {
		return unsafe.Slice((*byte)(unsafe.Add(a.Buf, a.Dt.TrueLB())), fileBytes), true, nil
	}
	buf := make([]byte, fileBytes)
	if !a.Write {
		return buf, false, nil
	}
	switch {
	case v.rep.Native:
		a.Dt.Pack(buf, a.Buf, int(a.Count))
	case v.rep.External:
		a.Dt.PackExternal(buf, a.Buf, int(a.Count))
	default:
		if v.rep.Write == nil {
			// MPI_CONVERSION_FN_NULL: the bytes go as they are.
			a.Dt.Pack(buf, a.Buf, int(a.Count))
		} else if err := v.rep.Write(a.Buf, a.Dt, int(a.Count), buf, 0); err != nil {
			return nil, false, err
		}
	}
	return buf, false, nil
}

// finish converts what a read brought in, advances the individual
// pointer and builds the status of an access that moved n file bytes.
func (f *File) finish(fn string, a Access, s state, pos int64, data []byte, direct bool, n int64, err error) (mpirt.Status, error) {
	st := mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}
	v := s.v
	if err != nil {
		return st, err
	}
	if v.esize > 0 {
		n -= n % v.esize // whole etypes only
	}
	mem := n
	if !a.Write && !direct && n > 0 {
		switch {
		case v.rep.Native:
			a.Dt.Unpack(a.Buf, data[:n], int(a.Count))
		case v.rep.External:
			es := int64(a.Dt.ExternalSize())
			whole := n / es
			a.Dt.UnpackExternal(a.Buf, data[:whole*es], int(whole))
			mem = whole * int64(a.Dt.Size())
			if rest := n - whole*es; rest > 0 && es == int64(a.Dt.Size()) {
				// A partial element: its whole predefined parts.
				mem += rest
				tmp := make([]byte, es)
				copy(tmp, data[whole*es:n])
				a.Dt.UnpackExternal(unsafe.Add(a.Buf, whole*int64(a.Dt.Extent())), tmp, 1)
			}
		default:
			if v.rep.Read == nil {
				a.Dt.Unpack(a.Buf, data[:n], int(a.Count))
				break
			}
			full, _ := v.rep.fileSize(a.Dt, 1)
			whole := a.Count
			if full > 0 {
				whole = n / full
			}
			if err := v.rep.Read(a.Buf, a.Dt, int(whole), data[:whole*full], 0); err != nil {
				return st, mpirt.Errorf(mpirt.ErrConversion, fn, "read conversion: %v", err)
			}
			mem = whole * int64(a.Dt.Size())
		}
	} else if !v.rep.Native && a.Dt.ExternalSize() != a.Dt.Size() && a.Dt.ExternalSize() > 0 && v.rep.External {
		mem = n / int64(a.Dt.ExternalSize()) * int64(a.Dt.Size())
	}
	if a.Ptr == Individual && v.esize > 0 {
		f.mu.Lock()
		f.pos = pos + n/v.esize
		f.mu.Unlock()
	}
	st.Count = mem
	return st, nil
}

// xfer moves stream bytes [pos, pos+len(data)) of view s.v between data
// and the file; it returns how many bytes moved (a read stops at the end
// of the file).
func (f *File) xfer(fn string, write bool, s state, pos int64, data []byte) (int64, error) {
	if len(data) == 0 {
		return 0, nil
	}
	sp := segBufs.Get().(*[]seg)
	segs := (*sp)[:0]
	s.v.each(pos, int64(len(data)), func(off, n int64) error {
		segs = append(segs, seg{off, n})
		return nil
	})
	defer func() { *sp = segs[:0]; segBufs.Put(sp) }()
	if s.atomic {
		// The whole access is one locked region.
		lo, hi := segs[0].off, segs[len(segs)-1].off+segs[len(segs)-1].n
		typ := int16(unix.F_RDLCK)
		if write {
			typ = unix.F_WRLCK
		}
		if err := f.lock(typ, lo, hi-lo); err != nil {
			return 0, ioError(fn, f.path, err)
		}
		defer f.lock(unix.F_UNLCK, lo, hi-lo)
		s.h.dsWrite = "locked" // no inner locks
	}
	if write {
		return f.writeSegs(fn, s, segs, data)
	}
	return f.readSegs(fn, s, segs, data)
}

// lock takes (or with F_UNLCK releases) a byte-range lock on the file.
func (f *File) lock(typ int16, off, n int64) error {
	if f.client != nil {
		return f.remoteLock(typ, off, n)
	}
	if len(f.servers) > 0 && typ != unix.F_UNLCK {
		// A proxy must not block: the holder may be a process it serves,
		// whose unlock only its progress lets through.
		wait := 20 * time.Microsecond
		for {
			err := tryLock(f.fd, typ, off, n)
			if err != unix.EAGAIN {
				return err
			}
			if f.w.Progress() == 0 {
				time.Sleep(wait)
				wait = min(2*wait, 2*time.Millisecond)
			}
		}
	}
	return rangeLock(f.fd, typ, off, n)
}

// rangeLock locks n bytes at off of fd (n 0: to the end). Open file
// description locks belong to the descriptor, not the process, so two
// threads (or in-process ranks) with their own descriptors exclude each
// other; kernels without them get classic POSIX locks.
func rangeLock(fd int, typ int16, off, n int64) error {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: off, Len: n}
	cmd := unix.F_OFD_SETLKW
	for {
		err := unix.FcntlFlock(uintptr(fd), cmd, &lk)
		switch {
		case err == unix.EINVAL && cmd == unix.F_OFD_SETLKW:
			cmd = unix.F_SETLKW
		case err != unix.EINTR:
			return err
		}
	}
}

// rawChunk is the most one pread/pwrite system call moves. The calls
// are raw: the Go scheduler does not hear of them. Announced (Syscall),
// a call longer than sysmon's 20-40 us tick has sysmon take the thread's
// P and wake another thread to look for work, and the return wake
// sysmon from its sleep: three futex calls and two thread wake-ups per
// call (strace of bench/io.c's write_ordered, 1 MiB per pwrite), on a
// host where the other CPUs run the other ranks. Chunks bound how long
// a thread holds its P unannounced (a stop-the-world waits for it): a
// few milliseconds on a local file system.
var rawChunk = envChunk()

func envChunk() int {
	if v, err := strconv.Atoi(os.Getenv("GMPI_IO_RAW")); err == nil {
		return v
	}
	return 8 << 20
}

// pread1 is one pread(2) of at most rawChunk bytes (b not empty).
func pread1(fd int, b []byte, off int64) (int, error) {
	if rawChunk <= 0 {
		return unix.Pread(fd, b, off)
	}
	if len(b) > rawChunk {
		b = b[:rawChunk]
	}
	r, _, e := syscall.RawSyscall6(unix.SYS_PREAD64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// pwrite1 is one pwrite(2) of at most rawChunk bytes (b not empty).
func pwrite1(fd int, b []byte, off int64) (int, error) {
	if rawChunk <= 0 {
		return unix.Pwrite(fd, b, off)
	}
	if len(b) > rawChunk {
		b = b[:rawChunk]
	}
	r, _, e := syscall.RawSyscall6(unix.SYS_PWRITE64, uintptr(fd), uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)), uintptr(off), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// preadFull reads into b at off until b is full or the file ends.
func preadFull(fd int, b []byte, off int64) (int, error) {
	done := 0
	for done < len(b) {
		n, err := pread1(fd, b[done:], off+int64(done))
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return done, err
		}
		if n == 0 {
			break
		}
		done += n
	}
	return done, nil
}

func pwriteFull(fd int, b []byte, off int64) error {
	for len(b) > 0 {
		n, err := pwrite1(fd, b, off)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		b, off = b[n:], off+int64(n)
	}
	return nil
}

// sieveBufs keeps data sieving's span buffers from call to call (a fresh
// 4 MiB buffer per call cost a fifth of a sieved read's CPU time, zeroing
// it; BenchmarkSievedRead).
var sieveBufs = sync.Pool{New: func() any { return new([]byte) }}

// segBufs keeps the segment lists of accesses from call to call.
var segBufs = sync.Pool{New: func() any { return new([]seg) }}

// window returns the end j of the run of segments from i whose span
// fits in limit bytes (at least one segment).
func window(segs []seg, i int, limit int64) int {
	j := i + 1
	for j < len(segs) && segs[j].off+segs[j].n-segs[i].off <= limit {
		j++
	}
	return j
}

// sieve reports whether segs[i:j] should move as one span: data
// sieving is on (or automatic, and the pieces are small).
func sieve(mode string, segs []seg) bool {
	if len(segs) < 2 || mode == "disable" {
		return false
	}
	if mode == "enable" {
		return true
	}
	var data int64
	for _, s := range segs {
		data += s.n
	}
	span := segs[len(segs)-1].off + segs[len(segs)-1].n - segs[0].off
	return data/int64(len(segs)) < 64<<10 || data*2 >= span
}

func (f *File) readSegs(fn string, s state, segs []seg, data []byte) (int64, error) {
	var done int64
	sp := sieveBufs.Get().(*[]byte)
	defer sieveBufs.Put(sp)
	sbuf := *sp
	for i := 0; i < len(segs); {
		j := window(segs, i, s.h.indRdBuffer)
		if !sieve(s.h.dsRead, segs[i:j]) {
			j = i + 1
		}
		if j == i+1 {
			sg := segs[i]
			n, err := f.pread(data[done:done+sg.n], sg.off)
			if err != nil {
				return done, ioError(fn, f.path, err)
			}
			done += int64(n)
			if int64(n) < sg.n {
				return done, nil
			}
			i = j
			continue
		}
		lo, hi := segs[i].off, segs[j-1].off+segs[j-1].n
		if int64(cap(sbuf)) < hi-lo {
			sbuf = make([]byte, hi-lo)
			*sp = sbuf
		}
		b := sbuf[:hi-lo]
		n, err := f.pread(b, lo)
		if err != nil {
			return done, ioError(fn, f.path, err)
		}
		end := lo + int64(n)
		for _, sg := range segs[i:j] {
			avail := min(sg.n, end-sg.off)
			if avail > 0 {
				copy(data[done:done+avail], b[sg.off-lo:])
				done += avail
			}
			if avail < sg.n {
				return done, nil
			}
		}
		i = j
	}
	return done, nil
}

func (f *File) writeSegs(fn string, s state, segs []seg, data []byte) (int64, error) {
	var done int64
	sp := sieveBufs.Get().(*[]byte)
	defer sieveBufs.Put(sp)
	sbuf := *sp
	// Other processes may rewrite the holes of a sieved span: every
	// write of a shared file takes the range lock unless sieving is off
	// (or the caller holds the whole range already).
	locking := f.comm.Size() > 1 && s.h.dsWrite != "disable" && s.h.dsWrite != "locked"
	for i := 0; i < len(segs); {
		j := window(segs, i, s.h.indWrBuffer)
		if s.h.dsWrite == "locked" || !sieve(s.h.dsWrite, segs[i:j]) {
			j = i + 1
		}
		lo, hi := segs[i].off, segs[j-1].off+segs[j-1].n
		if locking {
			if err := f.lock(unix.F_WRLCK, lo, hi-lo); err != nil {
				return done, ioError(fn, f.path, err)
			}
		}
		var err error
		if j == i+1 {
			err = f.pwrite(data[done:done+segs[i].n], lo)
			if err == nil {
				done += segs[i].n
			}
		} else {
			if int64(cap(sbuf)) < hi-lo {
				sbuf = make([]byte, hi-lo)
				*sp = sbuf
			}
			b := sbuf[:hi-lo]
			var n int
			if n, err = f.pread(b, lo); err == nil {
				clear(b[n:])
				for _, sg := range segs[i:j] {
					copy(b[sg.off-lo:sg.off-lo+sg.n], data[done:done+sg.n])
					done += sg.n
				}
				err = f.pwrite(b, lo)
			} else if err == unix.EBADF {
				// Opened write-only: no sieving possible.
				err = nil
				for _, sg := range segs[i:j] {
					if err = f.pwrite(data[done:done+sg.n], sg.off); err != nil {
						break
					}
					done += sg.n
				}
			}
		}
		if locking {
			f.lock(unix.F_UNLCK, lo, hi-lo)
		}
		if err != nil {
			return done, ioError(fn, f.path, err)
		}
		i = j
	}
	return done, nil
}

// Completed returns a request that is complete already and reports st:
// nonblocking accesses run to completion when they start (as ROMIO's do
// on local file systems), and the request serves every completion call.
func (f *File) Completed(st mpirt.Status) *mpirt.Request {
	r := f.w.NewGeneralized(&mpirt.Generalized{Ext: f})
	r.Status = st
	f.w.Complete(r)
	return r
}

// Begin starts a split collective (MPI_File_*_all_begin,
// MPI_File_*_ordered_begin): the access runs here, End reports it.
func (f *File) Begin(fn string, a Access, ordered bool) error {
	f.mu.Lock()
	if f.split != nil {
		f.mu.Unlock()
		return mpirt.Errorf(mpirt.ErrOther, fn, "another split collective operation is pending on the file")
	}
	sp := &Split{Write: a.Write, Buf: uintptr(a.Buf)}
	f.split = sp
	f.mu.Unlock()
	if ordered {
		sp.Status, sp.Err = f.Ordered(fn, a)
	} else {
		sp.Status, sp.Err = f.Do(fn, a)
	}
	if sp.Err != nil {
		f.mu.Lock()
		f.split = nil
		f.mu.Unlock()
		return sp.Err
	}
	return nil
}

// End finishes the pending split collective; write and buf must match
// its begin.
func (f *File) End(fn string, write bool, buf unsafe.Pointer) (mpirt.Status, error) {
	f.mu.Lock()
	sp := f.split
	if sp == nil || sp.Write != write {
		f.mu.Unlock()
		return mpirt.Status{}, mpirt.Errorf(mpirt.ErrOther, fn, "no matching split collective operation was begun on the file")
	}
	f.split = nil
	f.mu.Unlock()
	if sp.Buf != uintptr(buf) {
		return sp.Status, mpirt.Errorf(mpirt.ErrArg, fn, "invalid buf argument: not the buffer passed to the matching begin call")
	}
	return sp.Status, sp.Err
}
