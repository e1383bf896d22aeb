package mpirt_test

import (
	"encoding/binary"
	"fmt"
	"testing"
	"unsafe"

	"gmpi/coll"
	"gmpi/coll/basic"
	"gmpi/coll/inter"
	"gmpi/devices/memdev"
	mpirt "gmpi/runtime"
)

// interJob is job with the intercommunicator component selected too.
func interJob(t *testing.T, n int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	nw := memdev.NewNetwork(n, 256)
	worlds := make([]*mpirt.World, n)
	for i := range worlds {
		var routes []mpirt.Route
		for p := 0; p < n; p++ {
			if p != i {
				routes = append(routes, mpirt.Route{Peer: p, Device: nw.Device(i)})
			}
		}
		cfg := mpirt.Config{Rank: i, Size: n, EagerLimit: 512}
		w, err := mpirt.NewWorld(cfg, routes, nw.Device(i).Waker(), coll.NewSelector(basic.Component{}, inter.Component{}))
		if err != nil {
			t.Fatal(err)
		}
		worlds[i] = w
	}
	runWorlds(t, worlds, body)
}

// makeInter splits world by inA(world rank) and joins the two halves:
// it returns the intercommunicator, the local half and whether this
// process is in group A.
func makeInter(t *testing.T, w *mpirt.World, inA func(int) bool) (*mpirt.Comm, *mpirt.Comm, bool) {
	t.Helper()
	cw := w.CommWorld()
	me := cw.Rank()
	a := inA(me)
	color := 1
	if a {
		color = 0
	}
	half, err := cw.Split(color, me)
	if err != nil {
		t.Fatal(err)
	}
	// The remote leader is the lowest world rank of the other half.
	rl := -1
	for r := 0; r < cw.Size(); r++ {
		if inA(r) != a {
			rl = r
			break
		}
	}
	ic, err := half.IntercommCreate(0, cw, rl, 77, nil)
	if err != nil {
		t.Fatal(err)
	}
	return ic, half, a
}

func TestIntercomm(t *testing.T) {
	intT, _ := mpirt.PredefinedDatatype(0x4c000405) // MPI_INT
	splits := map[string]func(n int) func(int) bool{
		"evenodd": func(n int) func(int) bool { return func(r int) bool { return r%2 == 0 } },
		"unequal": func(n int) func(int) bool { return func(r int) bool { return r < (n+2)/3 } },
	}
	for _, n := range []int{2, 3, 4, 7} {
		for name, split := range splits {
			t.Run(fmt.Sprint(name, n), func(t *testing.T) {
				interJob(t, n, func(t *testing.T, w *mpirt.World) {
					free0 := w.FreeContexts()
					ic, half, a := makeInter(t, w, split(n))
					wr := w.Rank()
					if !ic.IsInter() || half.IsInter() {
						t.Fatal("IsInter")
					}
					if ic.Size() != half.Size() || ic.Rank() != half.Rank() || ic.RemoteSize() != n-half.Size() {
						t.Fatalf("sizes: local %d/%d remote %d", ic.Size(), half.Size(), ic.RemoteSize())
					}
					for r := 0; r < ic.RemoteSize(); r++ {
						if split(n)(ic.RemoteGroup().WorldRank(r)) == a {
							t.Fatalf("remote rank %d is in my half", r)
						}
					}
					// Point-to-point: everyone sends its world rank to every
					// remote process, then receives from ANY_SOURCE.
					for r := 0; r < ic.RemoteSize(); r++ {
						if err := ic.Send(binary.LittleEndian.AppendUint32(nil, uint32(wr)), r, 5, mpirt.ModeStandard); err != nil {
							t.Fatal(err)
						}
					}
					seen := map[int]bool{}
					for i := 0; i < ic.RemoteSize(); i++ {
						buf := make([]byte, 4)
						st, err := ic.Recv(buf, mpirt.AnySource, 5)
						if err != nil {
							t.Fatal(err)
						}
						if got := int(binary.LittleEndian.Uint32(buf)); got != ic.RemoteGroup().WorldRank(st.Source) || seen[st.Source] {
							t.Fatalf("message from world rank %d reported as remote rank %d", got, st.Source)
						}
						seen[st.Source] = true
					}
					// Collectives.
					if err := ic.Coll.Barrier(ic); err != nil {
						t.Fatal(err)
					}
					for _, rootA := range []bool{true, false} {
						for root := 0; root < n-ic.RemoteSize() || root < ic.RemoteSize(); root++ {
							// The root is rank root of group A (or B).
							var arg int
							inRootGroup := a == rootA
							rootGroupSize := ic.Size()
							if !inRootGroup {
								rootGroupSize = ic.RemoteSize()
							}
							if root >= rootGroupSize {
								continue
							}
							switch {
							case inRootGroup && ic.Rank() == root:
								arg = mpirt.RootRank
							case inRootGroup:
								arg = mpirt.ProcNull
							default:
								arg = root
							}
							v := make([]int32, 100)
							if arg == mpirt.RootRank {
								for i := range v {
									v[i] = int32(i + root)
								}
							}
							if err := ic.Coll.Bcast(ic, unsafe.Pointer(&v[0]), len(v), intT, arg); err != nil {
								t.Fatal(err)
							}
							if !inRootGroup {
								for i := range v {
									if v[i] != int32(i+root) {
										t.Fatalf("bcast: v[%d] = %d", i, v[i])
									}
								}
							}
							in := []int32{int32(wr), 1}
							out := []int32{-1, -1}
							if err := ic.Coll.Reduce(ic, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 2, intT, mpirt.OpSum, arg); err != nil {
								t.Fatal(err)
							}
							if arg == mpirt.RootRank {
								want := 0
								for _, x := range ic.RemoteGroup().Ranks() {
									want += x
								}
								if out[0] != int32(want) || out[1] != int32(ic.RemoteSize()) {
									t.Fatalf("reduce: got %v, want [%d %d]", out, want, ic.RemoteSize())
								}
							} else if out[0] != -1 {
								t.Fatalf("reduce wrote a non-root buffer")
							}
						}
					}
					in := []int32{int32(wr)}
					out := []int32{-1}
					if err := ic.Coll.Allreduce(ic, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 1, intT, mpirt.OpMax); err != nil {
						t.Fatal(err)
					}
					if want := ic.RemoteGroup().Ranks(); out[0] != int32(maxOf(want)) {
						t.Fatalf("allreduce: %d, want %d", out[0], maxOf(want))
					}
					// Dup.
					d, err := ic.Dup(nil)
					if err != nil {
						t.Fatal(err)
					}
					if mpirt.CompareComms(ic, d) != mpirt.Congruent || mpirt.CompareComms(ic, half) != mpirt.Unequal || d.Context() == ic.Context() {
						t.Fatal("dup compare")
					}
					if err := d.Coll.Barrier(d); err != nil {
						t.Fatal(err)
					}
					// Merge both ways.
					for _, highA := range []bool{false, true} {
						m, err := d.Merge(a == highA)
						if err != nil {
							t.Fatal(err)
						}
						if m.IsInter() || m.Size() != n {
							t.Fatal("merge size")
						}
						// Group A first unless A passed high.
						first := ic.Group().Ranks()
						if a == highA {
							first = ic.RemoteGroup().Ranks()
						}
						for i, x := range first {
							if m.WorldRank(i) != x {
								t.Fatalf("merge(highA=%v): rank %d is world %d, want %d", highA, i, m.WorldRank(i), x)
							}
						}
						in := []int32{1}
						out := []int32{0}
						if err := m.Coll.Allreduce(m, unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), 1, intT, mpirt.OpSum); err != nil || out[0] != int32(n) {
							t.Fatalf("allreduce on merged: %d %v", out[0], err)
						}
						if err := m.Free(); err != nil {
							t.Fatal(err)
						}
					}
					// Split by world rank parity within each side: the pieces
					// with a color on both sides get intercommunicators.
					s, err := d.Split(wr%2, -wr)
					if err != nil {
						t.Fatal(err)
					}
					var lw, rw []int
					for _, x := range ic.Group().Ranks() {
						if x%2 == wr%2 {
							lw = append([]int{x}, lw...)
						}
					}
					for _, x := range ic.RemoteGroup().Ranks() {
						if x%2 == wr%2 {
							rw = append([]int{x}, rw...)
						}
					}
					if len(rw) == 0 {
						if s != nil {
							t.Fatal("split: expected no communicator")
						}
					} else {
						if s == nil || !s.IsInter() || fmt.Sprint(s.Group().Ranks()) != fmt.Sprint(lw) || fmt.Sprint(s.RemoteGroup().Ranks()) != fmt.Sprint(rw) {
							t.Fatalf("split: got %v/%v want %v/%v", s.Group().Ranks(), s.RemoteGroup().Ranks(), lw, rw)
						}
						if err := s.Coll.Barrier(s); err != nil {
							t.Fatal(err)
						}
						s.Free()
					}
					// Undefined everywhere on one side: nobody gets one.
					col := 0
					if a {
						col = mpirt.Undefined
					}
					if s, err := d.Split(col, 0); err != nil || s != nil {
						t.Fatalf("split with an undefined side: %v %v", s, err)
					}
					// A leader's argument error fails its whole group; so
					// does a remote leader inside the local group.
					var lerr error
					if half.Rank() == 0 {
						lerr = mpirt.Errorf(mpirt.ErrComm, "", "bad peer_comm")
					}
					if _, err := half.IntercommCreate(0, w.CommWorld(), 0, 1, lerr); mpirt.ErrorClassOf(err) != mpirt.ErrComm {
						t.Fatalf("leader error not propagated: %v", err)
					}
					if _, err := half.IntercommCreate(0, w.CommWorld(), half.WorldRank(half.Size()-1), 1, nil); mpirt.ErrorClassOf(err) != mpirt.ErrRank {
						t.Fatalf("remote leader in the local group: %v", err)
					}
					if _, err := ic.IntercommCreate(0, w.CommWorld(), 0, 1, nil); mpirt.ErrorClassOf(err) != mpirt.ErrComm {
						t.Fatalf("intercomm as local_comm: %v", err)
					}
					// Merge of an intracommunicator is an error.
					if _, err := half.Merge(true); mpirt.ErrorClassOf(err) != mpirt.ErrComm {
						t.Fatalf("merge of an intracomm: %v", err)
					}
					if _, err := ic.SplitType(mpirt.CommTypeShared, 0, nil); mpirt.ErrorClassOf(err) != mpirt.ErrComm {
						t.Fatalf("split_type of an intercomm: %v", err)
					}
					d.Free()
					ic.Free()
					half.Free()
					if got := w.FreeContexts(); got != free0 {
						t.Errorf("context ids leaked: %d free, %d before", got, free0)
					}
				})
			})
		}
	}
}

func maxOf(xs []int) int {
	m := xs[0]
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}
