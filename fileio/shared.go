package fileio

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// The shared file pointer (in etypes of the view) lives where every
// process of the file can update it atomically:
//   - all processes on one host: an int64 in a shared-memory segment,
//     created by process 0, mapped by all, and unlinked as soon as every
//     process has mapped it (nothing stays in /dev/shm, no lock file);
//   - otherwise: an 8-byte hidden file next to the file, updated under an
//     fcntl lock (the file system must support byte-range locks, as ROMIO
//     requires too); process 0 removes it at close.
type sharedPtr interface {
	fetchAdd(n int64) (int64, error)
	get() (int64, error)
	set(v int64) error
	close(rank0 bool)
}

func newSharedPtr(f *File) (sharedPtr, error) {
	if sameHost(f.comm) && f.seers == nil {
		if p, err := newShmPtr(f); err == nil || f.comm.Size() == 1 {
			return p, err
		}
	}
	p, err := newLockPtr(f)
	if err != nil {
		// A directory the helper file cannot go in: the file still
		// opens, and shared-pointer access fails saying why.
		return noPtr{err}, nil
	}
	return p, nil
}

// noPtr is the shared pointer of a file that could not get one.
type noPtr struct{ err error }

func (p noPtr) fetchAdd(int64) (int64, error) { return 0, p.err }
func (p noPtr) get() (int64, error)           { return 0, p.err }
func (p noPtr) set(int64) error               { return p.err }
func (p noPtr) close(bool)                    {}

// sameHost reports whether the launch put every process of c on one host.
func sameHost(c *mpirt.Comm) bool {
	h := c.World().HostIndex(c.WorldRank(0))
	for r := 1; r < c.Size(); r++ {
		if c.World().HostIndex(c.WorldRank(r)) != h {
			return false
		}
	}
	return true
}

// shmPtr is the shared pointer in a segment of shmSize bytes: the
// pointer at 0 and, a cache line further, the turn word of ordered
// access (claimInTurn) and the count of processes asleep on it.
type shmPtr struct {
	mem      []byte
	v        *int64
	turn     *uint32
	sleepers *uint32
}

const shmSize = 128

// shmSeq numbers the segments of one process.
var shmSeq atomic.Int64

func newShmPtr(f *File) (sharedPtr, error) {
	c := f.comm
	name := make([]byte, 96)
	var fd int = -1
	var path string
	cls := 0
	if c.Rank() == 0 {
		path = fmt.Sprintf("/dev/shm/gmpi-%d-fileio-%d", os.Getpid(), shmSeq.Add(1))
		var err error
		fd, err = unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0o600)
		if err == nil {
			if err = unix.Ftruncate(fd, shmSize); err != nil {
				unix.Close(fd)
				unix.Unlink(path)
				fd = -1
			}
		}
		if err != nil {
			cls = mpirt.ErrIO
		}
		copy(name, path)
	}
	if err := bcastBytes(c, name, 0); err != nil {
		return nil, err
	}
	if c.Rank() != 0 {
		path = string(name[:clen(name)])
		if path != "" {
			var err error
			if fd, err = unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0); err != nil {
				cls = mpirt.ErrIO
			}
		} else {
			cls = mpirt.ErrIO
		}
	}
	var mem []byte
	if fd >= 0 {
		var err error
		mem, err = unix.Mmap(fd, 0, shmSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
		unix.Close(fd)
		if err != nil {
			cls = mpirt.ErrIO
		}
	}
	all, err := agree(c, cls)
	if c.Rank() == 0 && path != "" {
		unix.Unlink(path) // everyone has it mapped (or gives up)
	}
	if err == nil && all != 0 {
		err = mpirt.Errorf(mpirt.ErrIO, "", "the shared file pointer segment could not be mapped everywhere")
	}
	if err != nil {
		if mem != nil {
			unix.Munmap(mem)
		}
		return nil, err
	}
	return &shmPtr{mem: mem, v: (*int64)(unsafe.Pointer(&mem[0])),
		turn: (*uint32)(unsafe.Pointer(&mem[64])), sleepers: (*uint32)(unsafe.Pointer(&mem[68]))}, nil
}

func clen(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return len(b)
}

func (p *shmPtr) fetchAdd(n int64) (int64, error) { return atomic.AddInt64(p.v, n) - n, nil }
func (p *shmPtr) get() (int64, error)             { return atomic.LoadInt64(p.v), nil }
func (p *shmPtr) set(v int64) error               { atomic.StoreInt64(p.v, v); return nil }
func (p *shmPtr) close(bool)                      { unix.Munmap(p.mem) }

// turnSpin is how long a process waiting for its turn polls before it
// sleeps: the turn usually comes when the previous process has finished
// its part of the previous ordered call (a write of the size it passed),
// and waking a sleeper can take a scheduler tick on these VMs.
const turnSpin = 2 * time.Millisecond

// claimInTurn claims n etypes from the shared pointer for ordered call
// seq (counted per file, the same on every process) of process rank out
// of size: the processes claim one after the other in rank order, each
// passing the turn on, so the ranges follow each other in rank order
// (as ROMIO's token passing does, without messages). A process waits
// only for the one before it to have claimed, never for anyone's data
// to move.
func (p *shmPtr) claimInTurn(w *mpirt.World, seq uint32, rank, size int, n int64) int64 {
	p.waitTurn(w, seq*uint32(size)+uint32(rank))
	base := atomic.AddInt64(p.v, n) - n
	atomic.AddUint32(p.turn, 1)
	if atomic.LoadUint32(p.sleepers) != 0 {
		mpirt.FutexWake(p.turn)
	}
	return base
}

// allClaimed waits until every process has claimed its range of ordered
// call seq: from then on the shared pointer is past the whole call (what
// MPI_File_get_position_shared reports after the call returns).
func (p *shmPtr) allClaimed(w *mpirt.World, seq uint32, size int) {
	p.waitTurn(w, (seq+1)*uint32(size))
}

// waitTurn waits until the turn word has reached t (it only grows,
// modulo 2^32).
func (p *shmPtr) waitTurn(w *mpirt.World, t uint32) {
	reached := func() bool { return int32(atomic.LoadUint32(p.turn)-t) >= 0 }
	var start time.Time
	for i := 0; !reached(); i++ {
		if i < 64 {
			continue
		}
		if w.Yields() {
			osyield()
		}
		if i&63 != 0 {
			continue
		}
		w.Progress() // a peer may need us (a rendezvous) before its turn
		if start.IsZero() {
			start = time.Now()
			continue
		}
		if time.Since(start) < turnSpin {
			continue
		}
		// Count ourselves, re-check, sleep: a process that passes the
		// turn after the re-check sees the count and wakes us.
		atomic.AddUint32(p.sleepers, 1)
		if cur := atomic.LoadUint32(p.turn); int32(cur-t) < 0 {
			mpirt.FutexWait(p.turn, cur, time.Millisecond)
		}
		atomic.AddUint32(p.sleepers, ^uint32(0))
	}
}

func osyield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

type lockPtr struct {
	fd   int
	path string
}

func newLockPtr(f *File) (sharedPtr, error) {
	c := f.comm
	name := make([]byte, 4096)
	cls := 0
	var path string
	fd := -1
	if c.Rank() == f.root {
		path = f.tempName("shfp")
		var err error
		if fd, err = unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_TRUNC|unix.O_CLOEXEC, 0o600); err != nil {
			cls = Errno(err)
		}
		copy(name, path)
	}
	if err := bcastBytes(c, name, f.root); err != nil {
		return nil, err
	}
	if c.Rank() != f.root && f.unseen == "" {
		path = string(name[:clen(name)])
		var err error
		if fd, err = unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC, 0); err != nil {
			cls = Errno(err)
		}
	}
	all, err := agree(c, cls)
	if err == nil && all != 0 {
		err = mpirt.Errorf(all, "", "the shared file pointer file %s could not be opened everywhere", path)
	}
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		if c.Rank() == f.root {
			unix.Unlink(path)
		}
		return nil, err
	}
	if f.unseen != "" {
		return noPtr{mpirt.Errorf(mpirt.ErrIO, "", "%s: the shared file pointer of a process that does not see the file is its proxy's", f.path)}, nil
	}
	return &lockPtr{fd: fd, path: path}, nil
}

func (p *lockPtr) locked(f func(cur int64) (int64, bool)) (int64, error) {
	if err := rangeLock(p.fd, unix.F_WRLCK, 0, 8); err != nil {
		return 0, mpirt.Errorf(mpirt.ErrIO, "", "locking the shared file pointer: %v", err)
	}
	defer rangeLock(p.fd, unix.F_UNLCK, 0, 8)
	var b [8]byte
	if _, err := preadFull(p.fd, b[:], 0); err != nil {
		return 0, mpirt.Errorf(mpirt.ErrIO, "", "reading the shared file pointer: %v", err)
	}
	cur := int64(binary.LittleEndian.Uint64(b[:]))
	if nv, ok := f(cur); ok {
		binary.LittleEndian.PutUint64(b[:], uint64(nv))
		if err := pwriteFull(p.fd, b[:], 0); err != nil {
			return 0, mpirt.Errorf(mpirt.ErrIO, "", "writing the shared file pointer: %v", err)
		}
	}
	return cur, nil
}

func (p *lockPtr) fetchAdd(n int64) (int64, error) {
	return p.locked(func(cur int64) (int64, bool) { return cur + n, n != 0 })
}
func (p *lockPtr) get() (int64, error) {
	return p.locked(func(int64) (int64, bool) { return 0, false })
}
func (p *lockPtr) set(v int64) error {
	_, err := p.locked(func(int64) (int64, bool) { return v, true })
	return err
}
func (p *lockPtr) close(rank0 bool) {
	unix.Close(p.fd)
	if rank0 {
		unix.Unlink(p.path)
	}
}

// resetShared sets the shared pointer to v (collective: process 0 sets
// it between two barriers so no process uses the old value after).
func (f *File) resetShared(v int64) error {
	if err := f.comm.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{}); err != nil {
		return err
	}
	if f.comm.Rank() == f.root {
		if err := f.shared.set(v); err != nil {
			return err
		}
	}
	return f.comm.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{})
}

// PositionShared is MPI_File_get_position_shared.
func (f *File) PositionShared(fn string) (int64, error) {
	return f.shared.get()
}

// SeekShared is MPI_File_seek_shared (collective; every process must
// pass the same offset and whence).
func (f *File) SeekShared(fn string, offset int64, whence int) error {
	if err := f.sameInt64(fn, "offset", offset); err != nil {
		return err
	}
	if err := f.sameInt64(fn, "whence", int64(whence)); err != nil {
		return err
	}
	var pos int64
	var lerr error
	if f.comm.Rank() == f.root {
		cur, err := f.shared.get()
		if err != nil {
			lerr = err
		} else {
			f.mu.Lock()
			pos, lerr = f.seekTarget(fn, cur, offset, whence)
			f.mu.Unlock()
		}
	}
	cls := 0
	if lerr != nil {
		cls = errClass(lerr)
	}
	all, err := agree(f.comm, cls)
	if err != nil {
		return err
	}
	if lerr != nil {
		return lerr
	}
	if all != 0 {
		return mpirt.Errorf(all, fn, "invalid offset or whence (process 0 rejected them)")
	}
	if f.comm.Rank() == f.root {
		if err := f.shared.set(pos); err != nil {
			return err
		}
	}
	return f.comm.CollRun(mpirt.CollBarrier, &mpirt.CollArgs{})
}

// Ordered is MPI_File_read_ordered/write_ordered: the processes access
// the file one after the other in rank order, from the shared pointer
// on; the shared pointer ends after all of it.
func (f *File) Ordered(fn string, a Access) (mpirt.Status, error) {
	st := mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}
	lerr := f.check(fn, &a)
	s := f.snapshot()
	var n int64
	if lerr == nil {
		fb, err := s.v.rep.fileSize(a.Dt, a.Count)
		switch {
		case err != nil:
			lerr = err
		case s.v.esize == 0 || fb%s.v.esize != 0:
			lerr = mpirt.Errorf(mpirt.ErrIO, fn, "only an integral number of etypes can be accessed")
		default:
			n = fb / s.v.esize
		}
	}
	if lerr != nil {
		n = 0
	}
	mode := s.h.cbRead
	if a.Write {
		mode = s.h.cbWrite
	}
	// A contiguous view (the same on every process, as shared pointer
	// access requires): the processes' ranges follow each other without
	// interleaving, which two-phase I/O would find out with two more
	// collectives only to leave each process its own pwrite/pread.
	direct := f.seers == nil && s.v.contiguous && mode != "enable"
	var start int64
	sp, chain := f.shared.(*shmPtr)
	if chain {
		// One host: each process claims its range from the shared
		// counter when the one before it has (claimInTurn), moves its
		// data, and returns when all have claimed, having waited for
		// no one's data to move.
		f.mu.Lock()
		seq := f.ordSeq
		f.ordSeq++
		f.mu.Unlock()
		start = sp.claimInTurn(f.w, seq, f.comm.Rank(), f.comm.Size(), n)
		if direct {
			defer sp.allClaimed(f.w, seq, f.comm.Size())
		}
		if direct && lerr != nil {
			return st, lerr
		}
	} else {
		var err error
		if start, err = f.orderedStart(fn, n, lerr); err != nil {
			return st, err
		}
	}
	a.Ptr, a.Offset, a.Coll = Explicit, start, true
	fileBytes := n * s.v.esize
	if !direct {
		return f.collective(fn, a, s, fileBytes, lerr)
	}
	data, isUser, err := f.stage(a, s.v, fileBytes)
	if err != nil {
		return st, err
	}
	k, err := f.xfer(fn, a.Write, s, a.Offset*s.v.esize, data)
	return f.finish(fn, a, s, a.Offset, data, isUser, k, err)
}

// orderedStart is where this process's n etypes of an ordered access
// start when the shared pointer is a locked file (processes on several
// hosts): one allgather says what everyone accesses and whether anyone's
// arguments are wrong (then every process fails), one broadcast the base
// that process 0 claimed for all.
func (f *File) orderedStart(fn string, n int64, lerr error) (int64, error) {
	cls := 0
	if lerr != nil {
		cls = errClass(lerr)
	}
	counts, err := allgatherN(f.comm, []int64{n, int64(cls)})
	if err != nil {
		return 0, err
	}
	var before, total int64
	all := 0
	for p := 0; p < f.comm.Size(); p++ {
		if p < f.comm.Rank() {
			before += counts[2*p]
		}
		total += counts[2*p]
		all = max(all, int(counts[2*p+1]))
	}
	if all != 0 {
		if lerr != nil {
			return 0, lerr
		}
		return 0, mpirt.Errorf(all, fn, "the ordered access failed on another process")
	}
	base := []int64{0}
	var serr error
	if f.comm.Rank() == f.root {
		if base[0], serr = f.shared.fetchAdd(total); serr != nil {
			base[0] = -1
		}
	}
	if err := bcastInt64(f.comm, base, f.root); err != nil {
		return 0, err
	}
	if base[0] < 0 {
		if serr == nil {
			serr = mpirt.Errorf(mpirt.ErrIO, fn, "process %d could not update the shared file pointer", f.root)
		}
		return 0, serr
	}
	return base[0] + before, nil
}
