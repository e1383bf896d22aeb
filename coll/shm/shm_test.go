package shm_test

import (
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	collshm "gmpi/coll/shm"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
)

// job runs body on n ranks (goroutines of this process, each with its own
// World over an in-memory device) that all claim one host, so coll/shm
// serves their communicators; every rank maps the segments itself.
func job(t *testing.T, n int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	jobID := fmt.Sprintf("gotest%d", os.Getpid())
	nw := memdev.NewNetwork(n, 1<<16)
	hosts := make([]string, n)
	for i := range hosts {
		hosts[i] = "h"
	}
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		var routes []mpirt.Route
		for p := 0; p < n; p++ {
			if p != i {
				routes = append(routes, mpirt.Route{Peer: p, Device: nw.Device(i)})
			}
		}
		cfg := mpirt.Config{Rank: i, Size: n, Hostname: "h", Hosts: hosts, LocalRanks: n}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(),
			coll.NewSelector(basic.Component{}, collshm.Component{JobID: jobID}))
		if err != nil {
			t.Fatal(err)
		}
		worlds[i] = w
	}
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
	if left, _ := filepath.Glob("/dev/shm/gmpi-" + jobID + "-*"); len(left) > 0 {
		t.Errorf("left in /dev/shm: %v", left)
	}
}

func dtype(t *testing.T, h mpirt.Handle) *mpirt.Datatype {
	dt, ok := mpirt.PredefinedDatatype(h)
	if !ok {
		t.Fatalf("no predefined datatype %v", h)
	}
	return dt
}

// operand is rank r's i-th value: not integers, so the order of the
// additions shows in the bits of the sum.
func operand(r, i int) float64 { return 1/float64(r+1+i%17) + 1e-3*float64(i%101)*float64(1-2*(r%2)) }

// binomialSum is element i of the sum of every rank's operand over the
// binomial tree of the point-to-point reduction: (b0+b1)+(b2+b3), ...
func binomialSum(n, i int) float64 {
	acc := make([]float64, n)
	for r := range acc {
		acc[r] = operand(r, i)
	}
	for mask := 1; mask < n; mask <<= 1 {
		for r := 0; r+mask < n; r += 2 * mask {
			acc[r] = acc[r] + acc[r+mask]
		}
	}
	return acc[0]
}

// TestAllreduceBits: the sum is the same on every rank and is exactly
// the sum over the binomial tree, as the point-to-point reduction
// computes it (basic.Allreduce), for counts that take the
// small path, the split path and several rounds; Reduce to every root
// gives the same bits; Bcast and Barrier in between.
func TestAllreduceBits(t *testing.T) {
	t.Setenv("GMPI_COLL_SHM_OPS", "all")
	for _, n := range []int{2, 3, 5, 7} {
		job(t, n, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			// a dup and a split (even/odd ranks, reversed) get segments of their own
			dup, err := c.Dup(nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer dup.Free()
			dbl := dtype(t, mpirt.TypeDouble)
			for _, cm := range []*mpirt.Comm{c, dup} {
				me, size := cm.Rank(), cm.Size()
				for _, count := range []int{1, 7, 2000, 20000, 100001} {
					in := make([]float64, count)
					for i := range in {
						in[i] = operand(me, i)
					}
					out := make([]float64, count)
					if err := cm.Coll.Allreduce(cm, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), count, dbl, mpirt.OpSum); err != nil {
						t.Error(err)
						return
					}
					// The point-to-point reduction gives the same bits.
					p2p := make([]float64, count)
					if err := basic.Allreduce(cm, unsafe.Pointer(&in[0]), unsafe.Pointer(&p2p[0]), count, dbl, mpirt.OpSum); err != nil {
						t.Error(err)
						return
					}
					for i := range out {
						want := binomialSum(size, i)
						if math.Float64bits(p2p[i]) != math.Float64bits(want) {
							t.Errorf("n %d count %d rank %d: basic gives element %d = %v, want %v", size, count, me, i, p2p[i], want)
							break
						}
						if math.Float64bits(out[i]) != math.Float64bits(want) {
							t.Errorf("n %d count %d rank %d: element %d is %v, want %v", size, count, me, i, out[i], want)
							break
						}
					}
					if err := cm.Coll.Barrier(cm); err != nil {
						t.Error(err)
					}
					for root := 0; root < size; root++ {
						red := make([]float64, count)
						if err := cm.Coll.Reduce(cm, unsafe.Pointer(&in[0]), unsafe.Pointer(&red[0]), count, dbl, mpirt.OpSum, root); err != nil {
							t.Error(err)
							return
						}
						if me == root {
							for i := range red {
								if math.Float64bits(red[i]) != math.Float64bits(out[i]) {
									t.Errorf("n %d count %d: reduce to %d differs from allreduce at %d", size, count, root, i)
									break
								}
							}
						}
						bc := make([]float64, count)
						if me == root {
							copy(bc, in)
						}
						if err := cm.Coll.Bcast(cm, unsafe.Pointer(&bc[0]), count, dbl, root); err != nil {
							t.Error(err)
							return
						}
						for i := range bc {
							if bc[i] != operand(root, i) {
								t.Errorf("n %d count %d: bcast from %d: element %d wrong", size, count, root, i)
								break
							}
						}
					}
				}
			}
		})
	}
}

// TestManyComms: create, use and free many communicators; nothing stays
// in /dev/shm (checked by job) and every rank agrees throughout.
func TestManyComms(t *testing.T) {
	t.Setenv("GMPI_COLL_SHM_OPS", "all")
	job(t, 3, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		for i := 0; i < 200; i++ {
			d, err := c.Dup(nil)
			if err != nil {
				t.Error(err)
				return
			}
			v := []int64{int64(rand.Intn(5))}
			sum := []int64{0}
			if err := d.Coll.Allreduce(d, unsafe.Pointer(&v[0]), unsafe.Pointer(&sum[0]), 1, dtype(t, mpirt.TypeLong), mpirt.OpMax); err != nil {
				t.Error(err)
			}
			if err := d.Free(); err != nil {
				t.Error(err)
			}
		}
	})
}

// inPlace is MPI_IN_PLACE ((void *)-1), made without a uintptr
// conversion.
var inPlace = func() unsafe.Pointer {
	allOnes := ^uintptr(0)
	return *(*unsafe.Pointer)(unsafe.Pointer(&allOnes))
}()

// runBasic runs op's basic schedule (the point-to-point reference).
func runBasic(c *mpirt.Comm, op mpirt.CollOp, a *mpirt.CollArgs) error {
	s, err := basic.SchedFuncs[op](c, a)
	if err != nil {
		return err
	}
	return s.RunBlocking()
}

// TestBlockOps: Scatter, Alltoall, Scan, Exscan and Reduce_scatter_block
// through the segment give exactly (bit for bit) what the basic
// component's schedules give, for counts that take one round, several
// rounds and the small ring, every root, in place or not.
func TestBlockOps(t *testing.T) {
	t.Setenv("GMPI_COLL_SHM_OPS", "all")
	for _, n := range []int{2, 3, 5} {
		job(t, n, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			me := c.Rank()
			dbl := dtype(t, mpirt.TypeDouble)
			for _, count := range []int{1, 5, 3000, 70001} {
				in := make([]float64, count*n)
				for i := range in {
					in[i] = operand(me, i)
				}
				ptr := func(x []float64) unsafe.Pointer { return unsafe.Pointer(&x[0]) }
				type call struct {
					op          mpirt.CollOp
					outLen      int
					inPlace     bool
					root        int
					skipMissing bool // exscan: rank 0's output is undefined
				}
				var calls []call
				for root := range n {
					calls = append(calls, call{op: mpirt.CollScatter, outLen: count, root: root})
				}
				calls = append(calls,
					call{op: mpirt.CollScatter, outLen: count * n, inPlace: true, root: n - 1},
					call{op: mpirt.CollAlltoall, outLen: count * n},
					call{op: mpirt.CollAlltoall, outLen: count * n, inPlace: true},
					call{op: mpirt.CollScan, outLen: count},
					call{op: mpirt.CollScan, outLen: count, inPlace: true},
					call{op: mpirt.CollExscan, outLen: count, skipMissing: true},
					call{op: mpirt.CollReduceScatterBlock, outLen: count},
					call{op: mpirt.CollReduceScatterBlock, outLen: count * n, inPlace: true},
				)
				for _, k := range calls {
					var got, want []float64
					for pass := range 2 {
						out := make([]float64, k.outLen)
						for i := range out {
							out[i] = -1
						}
						a := mpirt.CollArgs{Sbuf: ptr(in), Rbuf: ptr(out), Scount: count, Rcount: count,
							Sdt: dbl, Rdt: dbl, Op: mpirt.OpSum, Root: k.root}
						if k.inPlace {
							copy(out, in)
							if k.op != mpirt.CollScatter || me == k.root {
								a.Sbuf = inPlace
							}
							if k.op == mpirt.CollScatter && me == k.root {
								a.Sbuf, a.Rbuf = ptr(out), inPlace
							}
						}
						var err error
						if pass == 0 {
							err = c.CollRun(k.op, &a)
						} else {
							err = runBasic(c, k.op, &a)
						}
						if err != nil {
							t.Error(err)
							return
						}
						if pass == 0 {
							got = out
						} else {
							want = out
						}
					}
					if k.skipMissing && me == 0 {
						continue
					}
					for i := range want {
						if math.Float64bits(got[i]) != math.Float64bits(want[i]) {
							t.Errorf("n %d rank %d %v count %d in place %v root %d: element %d is %v, want %v",
								n, me, k.op, count, k.inPlace, k.root, i, got[i], want[i])
							break
						}
					}
				}
			}
		})
	}
}

// TestNoAllocs: small blocking calls through the segment allocate
// nothing per call once the communicator is set up (measured over every
// rank of the job: the rare allocation of point-to-point progress made
// while a rank waits stays far below one per call).
func TestNoAllocs(t *testing.T) {
	t.Setenv("GMPI_COLL_SHM_OPS", "all")
	const n, calls = 3, 300
	var before, after runtime.MemStats
	job(t, n, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		dbl := dtype(t, mpirt.TypeDouble)
		in := make([]float64, 4*n)
		out := make([]float64, 4*n)
		a := &mpirt.CollArgs{Sbuf: unsafe.Pointer(&in[0]), Rbuf: unsafe.Pointer(&out[0]), Scount: 1, Rcount: 1,
			Sdt: dbl, Rdt: dbl, Op: mpirt.OpSum}
		ops := []mpirt.CollOp{mpirt.CollBarrier, mpirt.CollBcast, mpirt.CollReduce, mpirt.CollAllreduce,
			mpirt.CollAllgather, mpirt.CollGather, mpirt.CollScatter, mpirt.CollAlltoall, mpirt.CollScan,
			mpirt.CollExscan, mpirt.CollReduceScatterBlock}
		for _, op := range ops {
			for range 3 { // set up and warm up
				if err := c.CollRun(op, a); err != nil {
					t.Error(err)
					return
				}
			}
			c.Coll.Barrier(c)
			if c.Rank() == 0 {
				runtime.ReadMemStats(&before)
			}
			c.Coll.Barrier(c)
			for range calls {
				c.CollRun(op, a)
			}
			c.Coll.Barrier(c)
			if c.Rank() == 0 {
				runtime.ReadMemStats(&after)
				if per := float64(after.Mallocs-before.Mallocs) / (n * calls); per >= 0.5 {
					t.Errorf("%v: %.2f allocations per call and rank", op, per)
				}
			}
			c.Coll.Barrier(c)
		}
	})
}
