package mpirt_test

import (
	"encoding/binary"
	"testing"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/coll/hetero"
	"gmpi/coll/inter"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
)

// heteroJob4 runs body on 4 ranks in one process: even ranks of this
// machine's representation, odd ranks of s390x's (zRep), with the
// basic, inter and hetero collective components.
func heteroJob4(t *testing.T, eager int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	const n = 4
	nw := memdev.NewNetwork(n, 256)
	locs := make([]mpirt.Location, n)
	for i := range locs {
		locs[i] = mpirt.Location{Host: "x" + string(rune('0'+i)), Rep: mpirt.NativeRep().Encode()}
		if i%2 == 1 {
			locs[i].Rep = zRep
		}
	}
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		var routes []mpirt.Route
		for p := range n {
			if p != i {
				routes = append(routes, mpirt.Route{Peer: p, Device: nw.Device(i)})
			}
		}
		cfg := mpirt.Config{Rank: i, Size: n, EagerLimit: eager, Locations: locs, Hostname: locs[i].Host}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}, inter.Component{}, hetero.Component{}))
		if err != nil {
			t.Fatal(err)
		}
		worlds[i] = w
	}
	runWorlds(t, worlds, body)
}

// TestHeteroIntercomm: the collectives of intercommunicators across
// representations, blocking and nonblocking: the halves {0,1} and {2,3}
// (each group of both representations) and even and odd ranks (each
// group of one). Reductions use MPI_BOR, which the emulated big-endian
// ranks' kernels (this machine's) compute right on their bytes.
func TestHeteroIntercomm(t *testing.T) {
	if mpirt.NativeRep().Encode() == zRep {
		t.Skip("this machine is the emulated representation")
	}
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	const k = 6 // ints per block
	val := func(wr, i int) int32 { return int32(1<<wr | (i+1)<<8 | (wr+1)<<20) }
	for _, eager := range []int{16, 1 << 20} {
		for _, split := range []struct {
			name string
			inA  func(int) bool
		}{{"halves", func(r int) bool { return r < 2 }}, {"parity", func(r int) bool { return r%2 == 0 }}} {
			heteroJob4(t, eager, func(t *testing.T, w *mpirt.World) {
				ic, _, a := makeInter(t, w, split.inA)
				me := w.CommWorld().Rank()
				order := binary.ByteOrder(binary.NativeEndian)
				if me%2 == 1 {
					order = binary.BigEndian
				}
				var remote []int // world ranks of the remote group, in its rank order
				for r := range 4 {
					if split.inA(r) != a {
						remote = append(remote, r)
					}
				}
				ints := func(n int, f func(i int) int32) []byte {
					b := make([]byte, 4*n)
					for i := range n {
						order.PutUint32(b[4*i:], uint32(f(i)))
					}
					return b
				}
				check := func(what string, got []byte, f func(i int) int32) {
					t.Helper()
					for i := range len(got) / 4 {
						if v := int32(order.Uint32(got[4*i:])); v != f(i) {
							t.Errorf("%s eager %d rank %d: %s[%d] = %#x, want %#x", split.name, eager, me, what, i, v, f(i))
							return
						}
					}
				}
				orOf := func(i int) int32 {
					var x int32
					for _, r := range remote {
						x |= val(r, i)
					}
					return x
				}
				for _, nb := range []bool{false, true} {
					run := func(op mpirt.CollOp, args *mpirt.CollArgs) {
						t.Helper()
						var err error
						if nb {
							var r *mpirt.Request
							if r, err = ic.CollStart(op, args); err == nil {
								err = w.Wait(r)
							}
						} else {
							err = ic.CollRun(op, args)
						}
						if err != nil {
							t.Errorf("%s eager %d rank %d nonblocking %v: %v: %v", split.name, eager, me, nb, op, err)
						}
					}
					// Rooted: the root is local rank 1 of group A, then 0 of B.
					for _, rootInA := range []bool{true, false} {
						rr := 0
						if rootInA {
							rr = 1
						}
						root, isRoot := rr, false
						if a == rootInA {
							root = mpirt.ProcNull
							if ic.Rank() == rr {
								root, isRoot = mpirt.RootRank, true
							}
						}
						rootW := -1
						for r, n := 0, 0; r < 4; r++ {
							if split.inA(r) == rootInA {
								if n == rr {
									rootW = r
								}
								n++
							}
						}
						buf := make([]byte, 4*k)
						if isRoot {
							buf = ints(k, func(i int) int32 { return val(me, i) })
						}
						run(mpirt.CollBcast, &mpirt.CollArgs{Rbuf: ptr(buf), Rcount: k, Rdt: di, Root: root})
						if a != rootInA {
							check("bcast", buf, func(i int) int32 { return val(rootW, i) })
						}
						sb, rb := ints(k, func(i int) int32 { return val(me, i) }), make([]byte, 4*k)
						run(mpirt.CollReduce, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: k, Rdt: di, Op: mpirt.OpBor, Root: root})
						if isRoot {
							check("reduce", rb, orOf)
						}
						all := make([]byte, 4*k*2)
						run(mpirt.CollGather, &mpirt.CollArgs{Sbuf: ptr(sb), Scount: k, Sdt: di, Rbuf: ptr(all), Rcount: k, Rdt: di, Root: root})
						if isRoot {
							for j, r := range remote {
								check("gather", all[4*k*j:4*k*(j+1)], func(i int) int32 { return val(r, i) })
							}
						}
					}
					sb, rb := ints(2*k, func(i int) int32 { return val(me, i) }), make([]byte, 4*k)
					run(mpirt.CollAllreduce, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: k, Rdt: di, Op: mpirt.OpBor})
					check("allreduce", rb, orOf)
					rb = make([]byte, 4*k)
					run(mpirt.CollReduceScatterBlock, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcount: k, Rdt: di, Op: mpirt.OpBor})
					check("reduce_scatter_block", rb, func(i int) int32 { return orOf(ic.Rank()*k + i) })
					counts := []int{k - 2, k + 2}
					rb = make([]byte, 4*counts[ic.Rank()])
					run(mpirt.CollReduceScatter, &mpirt.CollArgs{Sbuf: ptr(sb), Rbuf: ptr(rb), Rcounts: counts, Rdt: di, Op: mpirt.OpBor})
					check("reduce_scatter", rb, func(i int) int32 { return orOf(ic.Rank()*counts[0] + i) })
					all := make([]byte, 4*k*2)
					run(mpirt.CollAllgather, &mpirt.CollArgs{Sbuf: ptr(sb), Scount: k, Sdt: di, Rbuf: ptr(all), Rcount: k, Rdt: di})
					for j, r := range remote {
						check("allgather", all[4*k*j:4*k*(j+1)], func(i int) int32 { return val(r, i) })
					}
					run(mpirt.CollBarrier, &mpirt.CollArgs{})
				}
			})
		}
	}
}
