package relay

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for each direction's pipe: at most what
// the relay holds of a pair's bytes, besides the socket buffers.
const pipeSize = 1 << 20

// pump moves src's bytes to dst through a pipe with splice(2), until
// src's end of stream (nil) or an error, waiting for the sockets in the
// netpoller like TCPConn.ReadFrom does. Unlike ReadFrom it makes the
// splice calls, which never block (non-blocking sockets and pipe), as
// raw system calls: the scheduler need not hear of them, and a relay
// that was idle does not wake the runtime's monitor thread (sysmon) on
// the first call after a message arrives, a wake-up of another thread
// in the message's critical path.
func pump(dst, src *net.TCPConn) error {
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC|unix.O_NONBLOCK); err != nil {
		return err
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	unix.FcntlInt(uintptr(p[0]), unix.F_SETPIPE_SZ, pipeSize) // smaller works too
	sc, err := src.SyscallConn()
	if err != nil {
		return err
	}
	dc, err := dst.SyscallConn()
	if err != nil {
		return err
	}
	var (
		inPipe int
		eof    bool
		perr   error
	)
	fill := func(sfd uintptr) bool {
		for {
			n, errno := rawSplice(int(sfd), p[1], pipeSize)
			switch errno {
			case 0:
				inPipe, eof = n, n == 0
				return true
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until readable
			default:
				perr = errno
				return true
			}
		}
	}
	drain := func(dfd uintptr) bool {
		for inPipe > 0 {
			n, errno := rawSplice(p[0], int(dfd), inPipe)
			switch errno {
			case 0:
				inPipe -= n
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // wait until writable
			default:
				perr = errno
				return true
			}
		}
		return true
	}
	for {
		if err := sc.Read(fill); err != nil {
			return err
		}
		if perr != nil || eof {
			return perr
		}
		if err := dc.Write(drain); err != nil {
			return err
		}
		if perr != nil {
			return perr
		}
	}
}

// rawSplice splices up to n bytes from rfd to wfd without blocking, as a
// raw system call.
func rawSplice(rfd, wfd, n int) (int, syscall.Errno) {
	r, _, e := syscall.RawSyscall6(unix.SYS_SPLICE, uintptr(rfd), uintptr(unsafe.Pointer(nil)), uintptr(wfd), uintptr(unsafe.Pointer(nil)),
		uintptr(n), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
	return int(r), e
}
