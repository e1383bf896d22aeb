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

// ExpressReader are the words of a C caller that also reads the pair's
// socket itself (a small blocking receive, capi/express.c's tcp_recv):
//
//   - Lock is held by whoever reads or parses the connection's bytes:
//     the C caller while it reads (it only tries the word, and leaves
//     the receive to Go when it is taken), Go's readers after the
//     connection's own mutex; so the stream is never read by two;
//   - Pend is 1 while the device holds bytes of the stream it has not
//     handed over (part of a frame): the C caller must not read then.
//
// The C caller reads only when the device's queue of frames read but not
// handed over is empty (the word SetExpressWords mirrors it to), takes a
// whole frame when it is the receive's, and gives back with ExpressUnread,
// still holding Lock, any bytes it read and does not take.
type ExpressReader struct {
	Lock *uint32
	Pend *int32
}

// SetExpress gives the pair towards rank the C caller's lock and
// descriptor words (see above) and, when rd.Lock is set, the words of a C
// reader; nil, nil, ExpressReader{} takes them back (before the caller
// frees them). It reports whether rank is reached by the device.
func (d *Device) SetExpress(rank int, lock *uint32, fd *int32, rd ExpressReader) bool {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil {
		return false
	}
	p := d.peers[rank]
	p.mu.Lock()
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
	p.xlock, p.xfd, p.xrd = lock, fd, rd
	p.mu.Unlock()
	if c != nil {
		// A Go reader that found no reader words is out before the C
		// caller may read (it does once publishLocked gave it the
		// descriptor).
		c.rx.mu.Lock()
		c.rx.setReader(rd)
		c.rx.mu.Unlock()
		p.mu.Lock()
		if p.xfd == fd && p.conn.Load() == c {
			d.publishLocked(p, c)
		}
		p.mu.Unlock()
	}
	return true
}

// SetExpressWords gives the device a C reader's words shared by every
// pair: inbox, where the count of frames read and not yet handed over
// is mirrored, and polls, which the C reader counts up as it polls (the
// drainer stands aside meanwhile, as for Poll). nil, nil takes them back.
func (d *Device) SetExpressWords(inbox *int32, polls *uint32) {
	d.inMu.Lock()
	if inbox != nil {
		atomic.StoreInt32(inbox, d.n.Load())
	}
	d.xinbox.Store(inbox)
	d.inMu.Unlock()
	d.xpolls.Store(polls)
}

// setN sets the count of queued frames (under inMu), and its mirror.
func (d *Device) setN(n int32) {
	d.n.Store(n)
	if p := d.xinbox.Load(); p != nil {
		atomic.StoreInt32(p, n)
	}
}

// ExpressUnread takes back b, bytes the C reader read from rank's
// connection while holding its Lock word (still held) and did not take: they
// are the stream's next bytes. Its frames are parsed and queued as the
// drainer does, and whatever follows them in the socket; a frame cut
// short stays for the next reader (Pend).
func (d *Device) ExpressUnread(rank int, b []byte) {
	if uint(rank) >= uint(len(d.peers)) || d.peers[rank] == nil || len(b) == 0 {
		return
	}
	p := d.peers[rank]
	c := p.conn.Load()
	if c == nil {
		return
	}
	x := &c.rx
	// The C caller holds the Lock word: no Go reader is inside (they
	// take it after mu), and Pend was 0, so buf and hdr are empty.
	if x.dead || x.hdr || x.r != x.w || len(b) > len(x.buf) {
		panic(fmt.Sprintf("tcp: express reader of rank %d gave back %d bytes in state dead=%v hdr=%v buffered=%d",
			rank, len(b), x.dead, x.hdr, x.w-x.r))
	}
	x.r, x.w = 0, copy(x.buf, b)
	err := d.drain(p, c, false)
	if err != errAgain {
		x.dead = true
	}
	x.setPend()
	if err != nil && err != errAgain {
		d.lost(p, c, err)
	}
}

// setReader installs rd on x. Before x's connection is visible, or
// under x.mu.
func (x *rx) setReader(rd ExpressReader) {
	x.xl.Store(rd.Lock)
	x.xp.Store(rd.Pend)
	x.setPend()
}

// setPend tells the C reader whether x holds bytes of the stream. Must
// hold the Lock word (or x.mu before the reader exists).
func (x *rx) setPend() {
	if p := x.xp.Load(); p != nil {
		v := int32(0)
		if x.hdr || x.r != x.w || x.dead {
			v = 1
		}
		atomic.StoreInt32(p, v)
	}
}

// lockX takes the C reader's Lock word after x.mu, when there is one; it
// returns the word for unlockX.
func (x *rx) lockX() *uint32 {
	l := x.xl.Load()
	if l != nil {
		for i := 0; !atomic.CompareAndSwapUint32(l, 0, 1); i++ {
			if i >= 64 {
				runtime.Gosched()
			}
		}
	}
	return l
}

// unlockX ends lockX, telling the C reader first what x holds.
func (x *rx) unlockX(l *uint32) {
	if l != nil {
		x.setPend()
		atomic.StoreUint32(l, 0)
	}
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
