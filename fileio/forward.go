package fileio

import (
	"encoding/binary"
	"time"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// I/O forwarding for processes that do not see their file (unseen.go):
// each such "blind" process has a proxy among the processes that see the
// file, and every operation it would do on a descriptor (pread, pwrite,
// fstat, a byte-range lock, fsync, the shared file pointer) travels to
// the proxy as a request on a communicator of its own and comes back as a
// reply. On the proxy a looping schedule per blind process serves the
// requests (background progress runs it, so the proxy need not be in an
// MPI call), with a descriptor of its own for that process, so that its
// range locks exclude the proxy's and other processes' as a local
// descriptor's would. Locks are tried without waiting on the proxy (its
// progress must not block); the blind process retries. Large transfers
// go in pieces of fwdChunk bytes. Headers are little-endian int64s, so
// processes of different representations forward to each other.

const (
	fwdChunk = 1 << 20
	fwdHdr   = 5 * 8
)

// Requests: [op, a, b, c, data length] (+ data for writes); replies:
// [result, errno, 0, 0, data length] (+ data for reads).
const (
	opRead = iota + 1
	opWrite
	opSize
	opLock
	opSync
	opShFetchAdd
	opShGet
	opShSet
	opQuit
)

func putHdr(b []byte, v ...int64) {
	for i := 0; i < 5; i++ {
		var x int64
		if i < len(v) {
			x = v[i]
		}
		binary.LittleEndian.PutUint64(b[8*i:], uint64(x))
	}
}

func hdr(b []byte, i int) int64 { return int64(binary.LittleEndian.Uint64(b[8*i:])) }

// fwdClient is a blind process's end: one persistent schedule (send the
// request, receive the reply) run for each request.
type fwdClient struct {
	s      *mpirt.Schedule
	proxy  int
	req    []byte
	reqLen int
	rep    []byte
}

// fwdServer is the proxy's end for one blind process.
type fwdServer struct {
	f      *File
	client int
	fd     int
	shared *lockPtr // its own descriptor of the shared pointer's file (nil: none)
	s      *mpirt.Schedule
	r      *mpirt.Request
	in     []byte
	out    []byte
	outLen int
	quit   bool
}

// setupForward connects the blind processes with their proxies
// (collective over the file's communicator, once the file is open where
// it is seen and the shared pointer exists). flags are the open flags.
func (f *File) setupForward(flags int) error {
	fwd, err := f.comm.Dup(nil)
	if err != nil {
		return err
	}
	f.fwdComm = fwd
	me := fwd.Rank()
	var blind []int
	for r := 0; r < fwd.Size(); r++ {
		if !f.sees(r) {
			blind = append(blind, r)
		}
	}
	cls := 0
	var lerr error
	// Every process builds one schedule per blind process, in the same
	// order, so that a client's and its server's share a tag.
	for i, b := range blind {
		proxy := f.seers[i%len(f.seers)]
		s := fwd.NewSchedule()
		switch me {
		case b:
			c := &fwdClient{s: s, proxy: proxy, req: make([]byte, fwdHdr+fwdChunk), rep: make([]byte, fwdHdr+fwdChunk)}
			s.SendFunc(fwd, func() []byte { return c.req[:c.reqLen] }, proxy)
			s.Round()
			s.Recv(fwd, c.rep, proxy)
			f.client = c
		case proxy:
			sv := &fwdServer{f: f, client: b, s: s, in: make([]byte, fwdHdr+fwdChunk), out: make([]byte, fwdHdr+fwdChunk)}
			fd, err := openFile(f.path, flags, f.amode)
			if err != nil {
				cls, lerr = Errno(err), ioError("MPI_File_open", f.path, err)
				continue
			}
			sv.fd = fd
			if lp, ok := f.shared.(*lockPtr); ok {
				if sfd, err := unix.Open(lp.path, unix.O_RDWR|unix.O_CLOEXEC, 0); err == nil {
					sv.shared = &lockPtr{fd: sfd, path: lp.path}
				}
			}
			s.Recv(fwd, sv.in, b)
			s.Round()
			s.Local(sv.handle)
			s.SendFunc(fwd, func() []byte { return sv.out[:sv.outLen] }, b)
			s.Loop(func() bool { return !sv.quit })
			f.servers = append(f.servers, sv)
		}
	}
	for _, sv := range f.servers {
		if sv.r, err = sv.s.Start(); err != nil && lerr == nil {
			cls, lerr = mpirt.ErrOther, err
		}
	}
	all, err := agree(fwd, cls)
	if err != nil {
		return err
	}
	if all != 0 {
		f.stopForward()
		if lerr != nil {
			return lerr
		}
		return mpirt.Errorf(all, "MPI_File_open", "%s: a process that sees the file could not open it for a process that does not", f.path)
	}
	if f.client != nil {
		f.shared = remotePtr{f}
	}
	return nil
}

// stopForward ends forwarding (collective): clients tell their servers
// to quit, servers wait for that and release their descriptors.
func (f *File) stopForward() error {
	var first error
	if f.client != nil {
		if _, _, err := f.call(opQuit, 0, 0, 0, nil, nil); err != nil {
			first = err
		}
		f.client = nil
	}
	for _, sv := range f.servers {
		if sv.r != nil {
			if err := f.w.Wait(sv.r); err != nil && first == nil {
				first = err
			}
		}
		unix.Close(sv.fd)
		if sv.shared != nil {
			unix.Close(sv.shared.fd)
		}
	}
	f.servers = nil
	if f.fwdComm != nil {
		if err := f.fwdComm.Free(); err != nil && first == nil {
			first = err
		}
		f.fwdComm = nil
	}
	return first
}

// handle serves the request in sv.in (a step of the server's schedule).
func (sv *fwdServer) handle() error {
	op, a, b, c, dlen := hdr(sv.in, 0), hdr(sv.in, 1), hdr(sv.in, 2), hdr(sv.in, 3), hdr(sv.in, 4)
	var res, n int64
	var err error
	switch op {
	case opRead:
		var k int
		k, err = preadFull(sv.fd, sv.out[fwdHdr:fwdHdr+min(b, fwdChunk)], a)
		res, n = int64(k), int64(k)
	case opWrite:
		err = pwriteFull(sv.fd, sv.in[fwdHdr:fwdHdr+dlen], a)
	case opSize:
		var st unix.Stat_t
		if err = unix.Fstat(sv.fd, &st); err == nil {
			res = st.Size
		}
	case opLock:
		err = tryLock(sv.fd, int16(c), a, b)
	case opSync:
		err = unix.Fsync(sv.fd)
	case opShFetchAdd, opShGet, opShSet:
		if sv.shared == nil {
			err = unix.ENOENT
			break
		}
		var e error
		switch op {
		case opShFetchAdd:
			res, e = sv.shared.fetchAdd(a)
		case opShGet:
			res, e = sv.shared.get()
		default:
			e = sv.shared.set(a)
		}
		if e != nil {
			err = unix.EIO
		}
	case opQuit:
		sv.quit = true
	default:
		err = unix.EINVAL
	}
	var en int64
	if err != nil {
		en = int64(unix.EIO)
		if e, ok := err.(unix.Errno); ok {
			en = int64(e)
		}
	}
	putHdr(sv.out, res, en, 0, 0, n)
	sv.outLen = fwdHdr + int(n)
	return nil
}

// tryLock takes (or releases) a range lock without waiting: EAGAIN when
// another descriptor holds a conflicting one.
func tryLock(fd int, typ int16, off, n int64) error {
	lk := unix.Flock_t{Type: typ, Whence: 0, Start: off, Len: n}
	cmd := unix.F_OFD_SETLK
	for {
		err := unix.FcntlFlock(uintptr(fd), cmd, &lk)
		switch {
		case err == unix.EINVAL && cmd == unix.F_OFD_SETLK:
			cmd = unix.F_SETLK
		case err == unix.EACCES:
			return unix.EAGAIN
		case err != unix.EINTR:
			return err
		}
	}
}

// call sends one request to the proxy and waits for its reply; a read's
// data land in into. It returns the result, the bytes received and the
// proxy's errno as an error.
func (f *File) call(op, a, b, c int64, data, into []byte) (int64, int, error) {
	cl := f.client
	putHdr(cl.req, op, a, b, c, int64(len(data)))
	copy(cl.req[fwdHdr:], data)
	cl.reqLen = fwdHdr + len(data)
	if err := cl.s.RunBlocking(); err != nil {
		return 0, 0, err
	}
	res, en, n := hdr(cl.rep, 0), hdr(cl.rep, 1), int(hdr(cl.rep, 4))
	copy(into, cl.rep[fwdHdr:fwdHdr+n])
	if en != 0 {
		return res, n, unix.Errno(en)
	}
	return res, n, nil
}

// pread reads into b at off until b is full or the file ends.
func (f *File) pread(b []byte, off int64) (int, error) {
	if f.client == nil {
		return preadFull(f.fd, b, off)
	}
	done := 0
	for done < len(b) {
		want := min(len(b)-done, fwdChunk)
		_, n, err := f.call(opRead, off+int64(done), int64(want), 0, nil, b[done:done+want])
		done += n
		if err != nil {
			return done, err
		}
		if n < want {
			break
		}
	}
	return done, nil
}

// pwrite writes all of b at off.
func (f *File) pwrite(b []byte, off int64) error {
	if f.client == nil {
		return pwriteFull(f.fd, b, off)
	}
	for len(b) > 0 {
		k := min(len(b), fwdChunk)
		if _, _, err := f.call(opWrite, off, 0, 0, b[:k], nil); err != nil {
			return err
		}
		b, off = b[k:], off+int64(k)
	}
	return nil
}

// remoteLock takes a range lock through the proxy, retrying while
// another process holds a conflicting one.
func (f *File) remoteLock(typ int16, off, n int64) error {
	wait := 50 * time.Microsecond
	for {
		_, _, err := f.call(opLock, off, n, int64(typ), nil, nil)
		if err != unix.EAGAIN {
			return err
		}
		time.Sleep(wait)
		wait = min(2*wait, 5*time.Millisecond)
	}
}

// remotePtr is a blind process's shared file pointer: its proxy's.
type remotePtr struct{ f *File }

func (p remotePtr) op(op, v int64) (int64, error) {
	res, _, err := p.f.call(op, v, 0, 0, nil, nil)
	if err != nil {
		return 0, mpirt.Errorf(mpirt.ErrIO, "", "the shared file pointer (through process %d, which sees the file): %v", p.f.client.proxy, err)
	}
	return res, nil
}

func (p remotePtr) fetchAdd(n int64) (int64, error) { return p.op(opShFetchAdd, n) }
func (p remotePtr) get() (int64, error)             { return p.op(opShGet, 0) }
func (p remotePtr) set(v int64) error               { _, err := p.op(opShSet, v); return err }
func (p remotePtr) close(bool)                      {}
