package mpirt_test

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/coll/hetero"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
)

// An emulated heterogeneous pair in one process: rank 0 has this
// machine's representation, rank 1 declares s390x's (big-endian, long
// double binary128) in its business card, and its buffers hold data in
// that representation, as a real s390x process's would.
const zRep = "be,binary128,long8,wchar4"

func heteroJob(t *testing.T, eager int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	const n = 2
	nw := memdev.NewNetwork(n, 256)
	locs := []mpirt.Location{{Host: "x0", Rep: mpirt.NativeRep().Encode()}, {Host: "z0", Rep: zRep}}
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		routes := []mpirt.Route{{Peer: 1 - i, Device: nw.Device(i)}}
		cfg := mpirt.Config{Rank: i, Size: n, EagerLimit: eager, Locations: locs, Hostname: locs[i].Host}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}, hetero.Component{}))
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
}

func ptr(b []byte) unsafe.Pointer { return unsafe.Pointer(&b[0]) }

// TestHeteroPointToPoint: ints, doubles, long doubles and a vector type
// both ways, eager and rendezvous; MPI_BYTE untouched; truncation.
func TestHeteroPointToPoint(t *testing.T) {
	if mpirt.NativeRep().Encode() == zRep {
		t.Skip("this machine is the emulated representation")
	}
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	dd, _ := mpirt.PredefinedDatatype(mpirt.TypeDouble)
	dl, _ := mpirt.PredefinedDatatype(mpirt.TypeLongDouble)
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	vec, _ := mpirt.TypeVector(33, 1, 3, dd, false, false)
	vec.Commit()
	native := binary.NativeEndian
	for _, eager := range []int{64, 1 << 20} {
		heteroJob(t, eager, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			if !w.Heterogeneous() || w.PeerRep(1-c.Rank()).Encode() == w.Rep().Encode() {
				t.Error("the pair does not see two representations")
			}
			const n = 100
			ints := make([]byte, 4*n)
			dbls := make([]byte, 8*n)
			for i := 0; i < n; i++ {
				v := uint32(0x01020304 + i*0x01010101)
				f := math.Float64bits(float64(i) + 0.25)
				if c.Rank() == 0 {
					native.PutUint32(ints[4*i:], v)
					native.PutUint64(dbls[8*i:], f)
				} else {
					binary.BigEndian.PutUint32(ints[4*i:], v)
					binary.BigEndian.PutUint64(dbls[8*i:], f)
				}
			}
			// 1.5 as x87 (rank 0) and as big-endian binary128 (rank 1).
			ld := make([]byte, 16)
			if c.Rank() == 0 {
				native.PutUint64(ld, 0xC000000000000000)
				native.PutUint16(ld[8:], 0x3FFF)
			} else {
				binary.BigEndian.PutUint64(ld, 0x3FFF800000000000)
			}
			check := func(what string, got, want []byte) {
				t.Helper()
				if string(got) != string(want) {
					t.Errorf("rank %d eager %d %s: got % x... want % x...", c.Rank(), eager, what, got[:min(16, len(got))], want[:min(16, len(want))])
				}
			}
			me, peer := c.Rank(), 1-c.Rank()
			for round := 0; round < 2; round++ {
				if me == round {
					for _, m := range []struct {
						buf []byte
						dt  *mpirt.Datatype
						n   int
					}{{ints, di, n}, {dbls, dd, n}, {ld, dl, 1}, {ints, db, 4 * n}} {
						if err := c.SendTyped(ptr(m.buf), m.n, m.dt, peer, 1, mpirt.ModeStandard); err != nil {
							t.Fatal(err)
						}
					}
					// The vector: doubles 0, 3, 6, ..., 96 of dbls.
					if err := c.SendTyped(ptr(dbls), 1, vec, peer, 2, mpirt.ModeStandard); err != nil {
						t.Fatal(err)
					}
					if err := c.SendTyped(ptr(ints), n, di, peer, 3, mpirt.ModeStandard); err != nil {
						t.Fatal(err)
					}
					continue
				}
				got := make([]byte, 4*n)
				st, err := c.RecvTyped(ptr(got), n, di, peer, 1)
				if err != nil || st.Count != 4*n {
					t.Errorf("ints: %v count %d", err, st.Count)
				}
				check("MPI_INT", got, ints)
				gd := make([]byte, 8*n)
				r, err := c.IrecvTyped(ptr(gd), n, dd, peer, 1)
				if err == nil {
					err = w.Wait(r)
				}
				if err != nil {
					t.Error(err)
				}
				check("MPI_DOUBLE", gd, dbls)
				gl := make([]byte, 16)
				if _, err := c.RecvTyped(ptr(gl), 1, dl, peer, 1); err != nil {
					t.Error(err)
				}
				check("MPI_LONG_DOUBLE", gl, ld)
				// MPI_BYTE: the sender's bytes as they are.
				gb := make([]byte, 4*n)
				if _, err := c.RecvTyped(ptr(gb), 4*n, db, peer, 1); err != nil {
					t.Error(err)
				}
				other := make([]byte, 4*n)
				for i := 0; i < n; i++ {
					for k := 0; k < 4; k++ {
						other[4*i+k] = ints[4*i+3-k]
					}
				}
				check("MPI_BYTE", gb, other)
				// Received through the vector type (non-contiguous, staged).
				gv := make([]byte, vec.Extent())
				if _, err := c.RecvTyped(ptr(gv), 1, vec, peer, 2); err != nil {
					t.Error(err)
				}
				for k := 0; k < 33; k++ {
					check("vector", gv[24*k:24*k+8], dbls[24*k:24*k+8])
				}
				// Truncation: 100 ints into room for 10.
				small := make([]byte, 40)
				_, err = c.RecvTyped(ptr(small), 10, di, peer, 3)
				var e *mpirt.Error
				if !errors.As(err, &e) || e.Class != mpirt.ErrTruncate {
					t.Errorf("truncated receive: %v", err)
				}
			}
		})
	}
}

// TestHeteroCollectives: bcast, reductions (converted before they are
// combined), scan and allgather across the two representations.
func TestHeteroCollectives(t *testing.T) {
	if mpirt.NativeRep().Encode() == zRep {
		t.Skip("this machine is the emulated representation")
	}
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	dd, _ := mpirt.PredefinedDatatype(mpirt.TypeDouble)
	for _, eager := range []int{64, 1 << 20} {
		heteroJob(t, eager, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			me := c.Rank()
			const n = 40
			order := binary.ByteOrder(binary.NativeEndian)
			if me == 1 {
				order = binary.BigEndian
			}
			ints := func(f func(i int) int) []byte {
				b := make([]byte, 4*n)
				for i := 0; i < n; i++ {
					order.PutUint32(b[4*i:], uint32(int32(f(i))))
				}
				return b
			}
			wantInts := func(what string, got []byte, f func(i int) int) {
				t.Helper()
				for i := 0; i < n; i++ {
					if v := int(int32(order.Uint32(got[4*i:]))); v != f(i) {
						t.Errorf("rank %d eager %d %s[%d] = %d, want %d", me, eager, what, i, v, f(i))
						return
					}
				}
			}
			run := func(op mpirt.CollOp, a *mpirt.CollArgs) {
				t.Helper()
				if err := c.CollRun(op, a); err != nil {
					t.Errorf("%v: %v", op, err)
				}
			}
			// Bcast of doubles from rank 1 (big-endian) and rank 0.
			for root := 0; root < 2; root++ {
				d := make([]byte, 8*n)
				if me == root {
					for i := 0; i < n; i++ {
						order.PutUint64(d[8*i:], math.Float64bits(float64(i)*1.5+float64(root)))
					}
				}
				run(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: ptr(d), Rcount: n, Rdt: dd, Root: root})
				for i := 0; i < n; i++ {
					if v := math.Float64frombits(order.Uint64(d[8*i:])); v != float64(i)*1.5+float64(root) {
						t.Errorf("rank %d bcast from %d: [%d] = %g", me, root, i, v)
						break
					}
				}
			}
			// Allreduce, reduce to each root, scan, exscan (MPI_SUM).
			contrib := func(i int) int { return (me+1)*1000 + i*(me*2+1) - 7 }
			sum := func(i int) int { return 1000 + i - 7 + 2000 + 3*i - 7 }
			sb, rb := ints(contrib), make([]byte, 4*n)
			run(mpirt.CollAllreduce, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: n, Rdt: di, Op: mpirt.OpSum})
			wantInts("allreduce", rb, sum)
			// Reductions combine at rank 0 only: the emulated big-endian
			// rank runs on this little-endian host, whose kernels cannot
			// add its numbers (a real s390x process adds its own).
			{
				root := 0
				rb := make([]byte, 4*n)
				run(mpirt.CollReduce, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: n, Rdt: di, Op: mpirt.OpSum, Root: root})
				if me == root {
					wantInts("reduce", rb, sum)
				}
			}
			rb = make([]byte, 4*n)
			run(mpirt.CollScan, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: n, Rdt: di, Op: mpirt.OpSum})
			if me == 0 {
				wantInts("scan", rb, contrib)
			} else {
				wantInts("scan", rb, sum)
			}
			// Allgather: each rank's block lands converted in every rank.
			ag := make([]byte, 8*n)
			run(mpirt.CollAllgather, &mpirt.CollArgs{Sbuf: ptr(sb), Scount: n, Sdt: di, Rbuf: ptr(ag), Rcount: n, Rdt: di})
			for r := 0; r < 2; r++ {
				f := func(i int) int { return (r+1)*1000 + i*(r*2+1) - 7 }
				wantInts("allgather", ag[4*n*r:], f)
			}
		})
	}
}
