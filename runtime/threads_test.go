package mpirt_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// TestThreadsAnySource drives the engine as MPI_THREAD_MULTIPLE programs
// do (tests/c/threads_anysrc.c): per rank, several goroutines act as
// application threads, each on a duplicated communicator of its own,
// sending to every peer with nonblocking standard and synchronous sends
// and receiving with MPI_ANY_SOURCE/MPI_ANY_TAG in every style (Recv,
// Probe+Recv, Iprobe+Recv, Mprobe+Mrecv, Improbe+Imrecv, Irecv+Test),
// retiring requests as capi does (handle freed, request recycled); a
// sender/receiver pair shares one more communicator and a tag; the main
// goroutine polls MPI_COMM_WORLD. Messages mix eager and rendezvous
// sizes. Every message must arrive whole, in order per source, and its
// buffer must not change after its receive completed. Run it with -race:
// a request or unexpected record recycled while something can still
// reach it shows up as a race or a corrupt message.
func TestThreadsAnySource(t *testing.T) {
	n, iters := 4, 30
	if testing.Short() {
		iters = 10
	}
	runThreadsAnySource(t, n, iters)
}

const (
	thrMix    = 3
	thrPairTg = 77
	thrMaxLen = 3000
)

var thrLens = [...]int{12, 16, 64, 255, 256, 700, thrMaxLen}

func thrLen(src, t, it int) int { return thrLens[(src*3+t*5+it)%len(thrLens)] }

// thrFill writes message (src, t, it): a 12-byte header, then bytes that
// depend on all three.
func thrFill(b []byte, src, t, it int) []byte {
	b = b[:thrLen(src, t, it)]
	binary.LittleEndian.PutUint32(b[0:], uint32(src))
	binary.LittleEndian.PutUint32(b[4:], uint32(t))
	binary.LittleEndian.PutUint32(b[8:], uint32(it))
	for j := 12; j < len(b); j++ {
		b[j] = byte(src*7 + t*13 + it*31 + j)
	}
	return b
}

// thrChecker verifies the messages one receiving thread gets.
type thrChecker struct {
	me, t int
	next  []int
	want  []byte
	errs  []string
}

func (k *thrChecker) fail(format string, a ...any) {
	if len(k.errs) < 10 {
		k.errs = append(k.errs, fmt.Sprintf("rank %d thread %d: ", k.me, k.t)+fmt.Sprintf(format, a...))
	}
}

func (k *thrChecker) check(buf []byte, st mpirt.Status, err error) {
	if err != nil {
		k.fail("receive failed: %v", err)
		return
	}
	src := st.Source
	if src < 0 || src >= len(k.next) || src == k.me {
		k.fail("message from %d", src)
		return
	}
	it := k.next[src]
	k.next[src]++
	k.want = thrFill(k.want[:cap(k.want)], src, k.t, it)
	got := buf[:min(int(st.Count), len(buf))]
	if !bytes.Equal(got, k.want) {
		h := make([]uint32, 3)
		for i := range h {
			if len(got) >= 4*i+4 {
				h[i] = binary.LittleEndian.Uint32(got[4*i:])
			}
		}
		k.fail("round %d from %d: %d bytes (want %d), header %v", it, src, len(got), len(k.want), h)
		return
	}
	// The receive is complete: nothing may write into its buffer any
	// more. Give a late writer a chance, then look again.
	runtime.Gosched()
	if !bytes.Equal(buf[:len(k.want)], k.want) {
		k.fail("round %d from %d: the buffer changed after the receive completed", it, src)
	}
}

func runThreadsAnySource(t *testing.T, n, iters int) {
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	job(t, n, 1000, 256, func(t *testing.T, w *mpirt.World) {
		w.SetThreadLevel(3)
		world := w.CommWorld()
		me := world.Rank()
		var comms [thrMix + 1]*mpirt.Comm
		for i := range comms {
			c, err := world.Dup(nil)
			if err != nil {
				t.Error(err)
				return
			}
			comms[i] = c
		}
		var mu sync.Mutex
		var errs []string
		report := func(e []string) {
			mu.Lock()
			errs = append(errs, e...)
			mu.Unlock()
		}
		retire := func(r *mpirt.Request) {
			w.FreeRequest(r)
			w.ReleaseRequest(r)
		}
		recvOne := func(style int, c *mpirt.Comm, buf []byte, tag int) (mpirt.Status, error) {
			ctx := c.Context()
			p := unsafe.Pointer(&buf[0])
			switch style % 6 {
			case 0:
				return c.Recv(buf, mpirt.AnySource, tag)
			case 1:
				st := w.Probe(c, ctx, mpirt.AnySource, tag)
				return c.Recv(buf, st.Source, st.Tag)
			case 2:
				for {
					if st, ok := w.Iprobe(c, ctx, mpirt.AnySource, tag); ok {
						return c.Recv(buf, st.Source, st.Tag)
					}
					runtime.Gosched()
				}
			case 3:
				m, _, _ := w.Mprobe(c, ctx, mpirt.AnySource, tag)
				w.AddMessage(m)
				return w.MrecvTyped(m, p, len(buf), db)
			case 4:
				for {
					m, _, ok := w.Improbe(c, ctx, mpirt.AnySource, tag)
					if ok {
						w.AddMessage(m)
						r := w.ImrecvTyped(m, p, len(buf), db)
						w.AddRequest(r)
						err := w.Wait(r)
						st := r.Status
						retire(r)
						return st, err
					}
					runtime.Gosched()
				}
			default:
				r, _ := c.IrecvTyped(p, len(buf), db, mpirt.AnySource, tag)
				w.AddRequest(r)
				for !w.Test(r) {
					runtime.Gosched()
				}
				st, err := r.Status, r.Err
				retire(r)
				return st, err
			}
		}
		var done atomic.Int32
		var wg sync.WaitGroup
		for th := 0; th < thrMix; th++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer done.Add(1)
				c := comms[th]
				k := &thrChecker{me: me, t: th, next: make([]int, n), want: make([]byte, thrMaxLen)}
				sbuf := make([]byte, thrMaxLen)
				rbuf := make([]byte, thrMaxLen)
				rs := make([]*mpirt.Request, 0, n)
				for it := 0; it < iters; it++ {
					msg := thrFill(sbuf, me, th, it)
					rs = rs[:0]
					for j := 0; j < n-1; j++ {
						peer := (me + 1 + (j+th+it)%(n-1)) % n
						mode := mpirt.ModeStandard
						if (it+j)%2 == 1 {
							mode = mpirt.ModeSync
						}
						r, err := c.IsendTyped(unsafe.Pointer(&msg[0]), len(msg), db, peer, it%5, mode)
						if err != nil {
							k.fail("Isend: %v", err)
							continue
						}
						w.AddRequest(r)
						rs = append(rs, r)
					}
					for j := 0; j < n-1; j++ {
						st, err := recvOne(it+j+th, c, rbuf, mpirt.AnyTag)
						k.check(rbuf, st, err)
					}
					if err := w.WaitAll(rs); err != nil {
						k.fail("WaitAll: %v", err)
					}
					for _, r := range rs {
						retire(r)
					}
				}
				for p, got := range k.next {
					if p != me && got != iters {
						k.fail("%d rounds from %d, want %d", got, p, iters)
					}
				}
				report(k.errs)
			}()
		}
		wg.Add(2)
		go func() { // the pair's sender: blocking standard and synchronous sends
			defer wg.Done()
			defer done.Add(1)
			sbuf := make([]byte, thrMaxLen)
			for it := 0; it < iters; it++ {
				msg := thrFill(sbuf, me, thrMix, it)
				for j := 0; j < n-1; j++ {
					peer := (me + 1 + (j+it)%(n-1)) % n
					mode := mpirt.ModeStandard
					if it%2 == 1 {
						mode = mpirt.ModeSync
					}
					if err := comms[thrMix].Send(msg, peer, thrPairTg, mode); err != nil {
						report([]string{fmt.Sprintf("rank %d pair sender: %v", me, err)})
					}
				}
			}
		}()
		go func() { // the pair's receiver: MPI_ANY_SOURCE, one tag
			defer wg.Done()
			defer done.Add(1)
			k := &thrChecker{me: me, t: thrMix, next: make([]int, n), want: make([]byte, thrMaxLen)}
			rbuf := make([]byte, thrMaxLen)
			for i := 0; i < iters*(n-1); i++ {
				st, err := recvOne(i, comms[thrMix], rbuf, thrPairTg)
				k.check(rbuf, st, err)
			}
			report(k.errs)
		}()
		for done.Load() < thrMix+2 {
			if _, ok := w.Iprobe(world, world.Context(), mpirt.AnySource, mpirt.AnyTag); ok {
				report([]string{fmt.Sprintf("rank %d: a message arrived on MPI_COMM_WORLD", me)})
				break
			}
			runtime.Gosched()
		}
		wg.Wait()
		for _, e := range errs {
			t.Error(e)
		}
		for _, c := range comms {
			if err := c.Free(); err != nil {
				t.Error(err)
			}
		}
	})
}
