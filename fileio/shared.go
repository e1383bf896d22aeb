package fileio

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync/atomic"
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

type shmPtr struct {
	mem []byte
	v   *int64
}

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
			if err = unix.Ftruncate(fd, 8); err != nil {
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
		mem, err = unix.Mmap(fd, 0, 8, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
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
	return &shmPtr{mem: mem, v: (*int64)(unsafe.Pointer(&mem[0]))}, nil
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
	cls := 0
	if lerr != nil {
		n, cls = 0, errClass(lerr)
	}
	// One allgather says what everyone accesses and whether anyone's
	// arguments are wrong; one broadcast the base from the shared pointer.
	counts, err := allgatherN(f.comm, []int64{n, int64(cls)})
	if err != nil {
		return st, err
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
			return st, lerr
		}
		return st, mpirt.Errorf(all, fn, "the ordered access failed on another process")
	}
	base := []int64{0}
	var serr error
	if f.comm.Rank() == f.root {
		if base[0], serr = f.shared.fetchAdd(total); serr != nil {
			base[0] = -1
		}
	}
	if err := bcastInt64(f.comm, base, f.root); err != nil {
		return st, err
	}
	if base[0] < 0 {
		if serr == nil {
			serr = mpirt.Errorf(mpirt.ErrIO, fn, "process %d could not update the shared file pointer", f.root)
		}
		return st, serr
	}
	a.Ptr, a.Offset, a.Coll = Explicit, base[0]+before, true
	fileBytes := n * s.v.esize
	mode := s.h.cbRead
	if a.Write {
		mode = s.h.cbWrite
	}
	if f.seers != nil || !s.v.contiguous || mode == "enable" {
		return f.collective(fn, a, s, fileBytes, nil)
	}
	// A contiguous view: the processes' ranges follow each other without
	// interleaving, which two-phase I/O would find out with two more
	// collectives only to leave each process its own pwrite/pread.
	data, direct, err := f.stage(a, s.v, fileBytes)
	if err != nil {
		return st, err
	}
	k, err := f.xfer(fn, a.Write, s, a.Offset*s.v.esize, data)
	return f.finish(fn, a, s, a.Offset, data, direct, k, err)
}
