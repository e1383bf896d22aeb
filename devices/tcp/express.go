package tcp

import (
	"fmt"
	"runtime"
	"sync/atomic"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// The C express lane's side of the device (capi/express.c): a blocking
// send of a small message to a tcp peer is written by C code, without
// entering Go, straight to the pair's socket: one frame (header and
// payload, as write makes it) with one send(2). The caller owns two
// words per peer, in memory that outlives their use here:
//
//   - the lock word, which every writer of the connection holds while it
//     writes (Go writers after wmu; the C caller only tries it, and
//     leaves the send to Go when it is taken), so that frames never
//     interleave;
//   - the descriptor word: 1 + the socket's descriptor once the pair's
//     connection is installed, 0 before and once it is lost.
//
// A C caller that wrote only part of a frame (a full socket) finishes it
// with ExpressFinish, still holding the lock word.

// ExpressHeaderSize is the size of a frame header; ExpressSmall the
// largest payload the C caller may send (write's single-buffer frames).
const (
	ExpressHeaderSize = headerSize
	ExpressSmall      = smallFrame
)

// ExpressHeader is a frame header as write puts it before a payload of n
// bytes (for checking the C caller's copy of the format).
func ExpressHeader(h mpirt.Header, n int) []byte {
	b := make([]byte, headerSize)
	putHeader(b, &h, n)
	return b
}

// SetExpress gives the pair towards rank the C caller's lock and
// descriptor words (see above); nil, nil takes them back (before the
// caller frees them). It reports whether rank is reached by the device.
func (d *Device) SetExpress(rank int, lock *uint32, fd *int32) bool {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil {
		return false
	}
	p := d.peers[rank]
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.xfd != nil {
		atomic.StoreInt32(p.xfd, 0)
	}
	c := p.conn.Load()
	if c != nil {
		// No writer is inside while the word changes.
		c.wmu.Lock()
		c.xlock.Store(nil)
		c.wmu.Unlock()
	}
	p.xlock, p.xfd = lock, fd
	if c != nil {
		d.publishLocked(p, c)
	}
	return true
}

// publishLocked hands c to the C caller of p, if any. Must hold p.mu.
func (d *Device) publishLocked(p *peer, c *conn) {
	if p.xfd == nil || p.err != nil || c.lost.Load() || d.closing.Load() {
		return
	}
	c.wmu.Lock()
	c.xlock.Store(p.xlock)
	c.wmu.Unlock()
	atomic.StoreInt32(p.xfd, int32(c.fd)+1)
}

// ExpressFinish writes rest, the end of a frame whose beginning the C
// caller wrote to rank while it holds the lock word; it waits for room as
// Send does (draining meanwhile). On an error the connection is shut
// down: a frame cut short leaves it unusable, and the peer is lost.
func (d *Device) ExpressFinish(rank int, rest []byte) error {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil {
		return fmt.Errorf("tcp: rank %d is not reached by rank %d's tcp device", rank, d.cfg.Rank)
	}
	c := d.peers[rank].conn.Load()
	if c == nil {
		return fmt.Errorf("tcp: no connection to rank %d", rank)
	}
	var v [1][]byte
	v[0] = rest
	err := d.writev(c, v[:])
	if err != nil {
		shutdown(c.fd)
	}
	return err
}

// lockW takes the right to write on c: wmu, then the C caller's lock
// word when there is one (held by C for one send at a time).
func (c *conn) lockW() {
	c.wmu.Lock()
	if l := c.xlock.Load(); l != nil {
		for i := 0; !atomic.CompareAndSwapUint32(l, 0, 1); i++ {
			if i >= 64 {
				runtime.Gosched()
			}
		}
	}
}

// unlockW ends lockW.
func (c *conn) unlockW() {
	if l := c.xlock.Load(); l != nil {
		atomic.StoreUint32(l, 0)
	}
	c.wmu.Unlock()
}

// shutdown ends both directions of the socket fd (its reader then sees
// the end and reports the peer lost).
func shutdown(fd int) { unix.Shutdown(fd, unix.SHUT_RDWR) }
