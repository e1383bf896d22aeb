package mpirt_test

import (
	"fmt"
	"testing"
	"unsafe"

	mpirt "gmpi/runtime"
)

// Schedules over the in-memory device: many nonblocking collectives in
// flight at once on one communicator, completed in reverse order;
// persistent schedules started repeatedly with fresh inputs; messages
// above the eager limit (rendezvous through a small frame size).
func TestSchedules(t *testing.T) {
	intT, _ := mpirt.PredefinedDatatype(0x4c000405) // MPI_INT
	const sum = mpirt.Handle(0x58000003)
	for _, n := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			job(t, n, 256, 512, func(t *testing.T, w *mpirt.World) {
				w.SetThreadLevel(3) // background progress without a baton
				c := w.CommWorld()
				me := c.Rank()
				const k, m = 6, 700 // collectives in flight, ints each (> eager)
				bufs := make([][]int32, k)
				outs := make([][]int32, k)
				reqs := make([]*mpirt.Request, 0, 2*k)
				for i := range k {
					bufs[i] = make([]int32, m*n)
					outs[i] = make([]int32, m*n)
					for j := range bufs[i] {
						bufs[i][j] = int32(me*1000 + j + i)
					}
					root := i % n
					bcast := make([]int32, m)
					if me == root {
						for j := range bcast {
							bcast[j] = int32(j*7 + i)
						}
					}
					ops := []struct {
						op mpirt.CollOp
						a  mpirt.CollArgs
					}{
						{mpirt.CollAllreduce, mpirt.CollArgs{Sbuf: unsafe.Pointer(&bufs[i][0]), Rbuf: unsafe.Pointer(&outs[i][0]), Rcount: m, Rdt: intT, Op: sum}},
						{mpirt.CollBcast, mpirt.CollArgs{Rbuf: unsafe.Pointer(&bcast[0]), Rcount: m, Rdt: intT, Root: root}},
					}
					for _, o := range ops {
						r, err := c.CollStart(o.op, &o.a)
						if err != nil {
							t.Fatal(err)
						}
						reqs = append(reqs, r)
					}
					defer func() {
						for j := range bcast {
							if bcast[j] != int32(j*7+i) {
								t.Errorf("rank %d: ibcast %d [%d] = %d", me, i, j, bcast[j])
								return
							}
						}
					}()
				}
				for i := len(reqs) - 1; i >= 0; i-- {
					if err := w.Wait(reqs[i]); err != nil {
						t.Fatal(err)
					}
				}
				for i := range k {
					for j := 0; j < m; j++ {
						want := int32(1000*n*(n-1)/2 + n*(j+i))
						if outs[i][j] != want {
							t.Fatalf("rank %d: iallreduce %d [%d] = %d, want %d", me, i, j, outs[i][j], want)
						}
					}
				}

				// Persistent: one schedule, three starts.
				in := make([]int32, n)
				out := make([]int32, n)
				pr, err := c.CollPersistent(mpirt.CollAlltoall, &mpirt.CollArgs{
					Sbuf: unsafe.Pointer(&in[0]), Scount: 1, Sdt: intT,
					Rbuf: unsafe.Pointer(&out[0]), Rcount: 1, Rdt: intT})
				if err != nil {
					t.Fatal(err)
				}
				for it := range 3 {
					for j := range in {
						in[j] = int32(it*10000 + me*100 + j)
					}
					if err := pr.Start(); err != nil {
						t.Fatal(err)
					}
					if err := w.Wait(pr.Op()); err != nil {
						t.Fatal(err)
					}
					pr.Deactivate()
					for j := range out {
						if want := int32(it*10000 + j*100 + me); out[j] != want {
							t.Fatalf("rank %d: persistent alltoall start %d: out[%d] = %d, want %d", me, it, j, out[j], want)
						}
					}
				}
			})
		})
	}
}
