package mpirt_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
)

// job builds n worlds connected by an in-memory network and runs body on
// each in its own goroutine.
func job(t *testing.T, n, maxPayload, eager int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	nw := memdev.NewNetwork(n, maxPayload)
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		var routes []mpirt.Route
		for p := 0; p < n; p++ {
			if p != i {
				routes = append(routes, mpirt.Route{Peer: p, Device: nw.Device(i)})
			}
		}
		cfg := mpirt.Config{Rank: i, Size: n, EagerLimit: eager}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}))
		if err != nil {
			t.Fatal(err)
		}
		worlds[i] = w
	}
	runWorlds(t, worlds, body)
}

// runWorlds runs body on every world at once, each in its goroutine, and
// closes them all when every body has returned.
func runWorlds(t *testing.T, worlds []*mpirt.World, body func(t *testing.T, w *mpirt.World)) {
	var wg sync.WaitGroup
	for _, w := range worlds {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body(t, w)
		}()
	}
	wg.Wait()
	for _, w := range worlds {
		w.Close()
	}
}

func pattern(n, seed int) []byte {
	b := make([]byte, n)
	r := rand.New(rand.NewSource(int64(seed)))
	r.Read(b)
	return b
}

func TestRingSizes(t *testing.T) {
	for _, eager := range []int{64, 1 << 20} {
		job(t, 4, 100, eager, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			me, n := c.Rank(), c.Size()
			for _, size := range []int{0, 1, 99, 100, 101, 1000, 100000} {
				if me == 0 {
					if err := c.Send(pattern(size, size), 1, size%7, mpirt.ModeStandard); err != nil {
						t.Error(err)
					}
					buf := make([]byte, size)
					st, err := c.Recv(buf, n-1, mpirt.AnyTag)
					if err != nil || !bytes.Equal(buf, pattern(size, size)) || st.Source != n-1 || st.Tag != size%7 || st.Count != int64(size) {
						t.Errorf("size %d: ring came back wrong (err %v, status %+v)", size, err, st)
					}
				} else {
					buf := make([]byte, size)
					if _, err := c.Recv(buf, me-1, size%7); err != nil {
						t.Error(err)
					}
					if err := c.Send(buf, (me+1)%n, size%7, mpirt.ModeStandard); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
}

func TestOrderingAndWildcards(t *testing.T) {
	job(t, 3, 64, 128, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		const msgs = 50
		if c.Rank() != 0 {
			for i := 0; i < msgs; i++ {
				size := (i * 37) % 300 // mixes eager and rendezvous
				b := pattern(size, i)
				if len(b) > 0 {
					b[0] = byte(i)
				}
				if err := c.Send(b, 0, 5, mpirt.ModeStandard); err != nil {
					t.Error(err)
				}
			}
			return
		}
		next := map[int]int{1: 0, 2: 0}
		for i := 0; i < 2*msgs; i++ {
			buf := make([]byte, 300)
			st, err := c.Recv(buf, mpirt.AnySource, mpirt.AnyTag)
			if err != nil {
				t.Fatal(err)
			}
			k := next[st.Source]
			want := pattern((k*37)%300, k)
			if len(want) > 0 {
				want[0] = byte(k)
			}
			if !bytes.Equal(buf[:st.Count], want) {
				t.Fatalf("message %d from %d out of order or corrupt", k, st.Source)
			}
			next[st.Source] = k + 1
		}
	})
}

func TestSsendWaitsForMatch(t *testing.T) {
	job(t, 2, 1024, 4096, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		if c.Rank() == 0 {
			r, err := w.Isend(c, c.Context(), []byte("hi"), 1, 1, mpirt.ModeSync)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 100; i++ {
				w.Progress()
			}
			if r.Done() {
				t.Error("synchronous send completed before the receive was posted")
			}
			c.Send(nil, 1, 2, mpirt.ModeStandard) // tell rank 1 to post
			w.Wait(r)
			return
		}
		c.Recv(nil, 0, 2)
		buf := make([]byte, 2)
		if _, err := c.Recv(buf, 0, 1); err != nil || string(buf) != "hi" {
			t.Errorf("got %q, %v", buf, err)
		}
	})
}

func TestTruncation(t *testing.T) {
	for _, size := range []int{10, 1000} {
		job(t, 2, 128, 256, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			if c.Rank() == 0 {
				c.Send(pattern(size, 1), 1, 0, mpirt.ModeStandard)
				return
			}
			buf := make([]byte, size/2)
			st, err := c.Recv(buf, 0, 0)
			var e *mpirt.Error
			if !errors.As(err, &e) || e.Class != mpirt.ErrTruncate {
				t.Errorf("size %d: want MPI_ERR_TRUNCATE, got %v", size, err)
			}
			if st.Count != int64(size/2) || !bytes.Equal(buf, pattern(size, 1)[:size/2]) {
				t.Errorf("size %d: truncated receive kept %d bytes", size, st.Count)
			}
		})
	}
}

func TestCollectives(t *testing.T) {
	intT, _ := mpirt.PredefinedDatatype(0x4c000405) // MPI_INT
	const sum, max = mpirt.Handle(0x58000003), mpirt.Handle(0x58000001)
	for _, n := range []int{1, 2, 3, 4, 7, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
				c := w.CommWorld()
				me := c.Rank()
				if err := c.Coll.Barrier(c); err != nil {
					t.Error(err)
				}
				for root := 0; root < n; root++ {
					v := make([]int32, 300)
					if me == root {
						for i := range v {
							v[i] = int32(i * (root + 1))
						}
					}
					if err := c.Coll.Bcast(c, unsafe.Pointer(&v[0]), len(v), intT, root); err != nil {
						t.Fatal(err)
					}
					for i := range v {
						if v[i] != int32(i*(root+1)) {
							t.Fatalf("bcast root %d: v[%d]=%d", root, i, v[i])
						}
					}
					in := []int32{int32(me), int32(me * me)}
					out := []int32{-1, -1}
					if err := c.Coll.Reduce(c, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 2, intT, sum, root); err != nil {
						t.Fatal(err)
					}
					if me == root && (out[0] != int32(n*(n-1)/2) || out[1] != int32((n-1)*n*(2*n-1)/6)) {
						t.Errorf("reduce root %d: got %v", root, out)
					}
				}
				in := []int32{int32(me)}
				out := []int32{-1}
				if err := c.Coll.Allreduce(c, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 1, intT, max); err != nil {
					t.Fatal(err)
				}
				if out[0] != int32(n-1) {
					t.Errorf("allreduce max: %d", out[0])
				}
			})
		})
	}
}
