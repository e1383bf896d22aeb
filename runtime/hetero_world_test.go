package mpirt_test

import (
	"encoding/binary"
	"errors"
	"math"
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
	heteroJobWith(t, zRep, eager, body)
}

// heteroJobWith is heteroJob with rank 1 of representation rep1.
func heteroJobWith(t *testing.T, rep1 string, eager int, body func(t *testing.T, w *mpirt.World)) {
	t.Helper()
	const n = 2
	nw := memdev.NewNetwork(n, 256)
	locs := []mpirt.Location{{Host: "x0", Rep: mpirt.NativeRep().Encode()}, {Host: "z0", Rep: rep1}}
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
	runWorlds(t, worlds, body)
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

// TestHeteroPacked: a buffer packed on one machine for a communicator of
// mixed representations carries the packer's representation, so that
// the other machine unpacks it right (also from positions > 0); a
// communicator of one representation packs without the header.
func TestHeteroPacked(t *testing.T) {
	if mpirt.NativeRep().Encode() == zRep {
		t.Skip("this machine is the emulated representation")
	}
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	dd, _ := mpirt.PredefinedDatatype(mpirt.TypeDouble)
	dp, _ := mpirt.PredefinedDatatype(mpirt.TypePacked)
	heteroJob(t, 1<<20, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		me := c.Rank()
		order := binary.ByteOrder(binary.NativeEndian)
		if me == 1 {
			order = binary.BigEndian
		}
		ints, dbl := make([]byte, 12), make([]byte, 8)
		for i := 0; i < 3; i++ {
			order.PutUint32(ints[4*i:], uint32(0x01020304*(i+1)+me))
		}
		order.PutUint64(dbl, math.Float64bits(1.0/3+float64(me)))
		if c.PackHeader() != mpirt.PackHeaderSize {
			t.Errorf("rank %d: a mixed communicator packs with a header of %d bytes", me, c.PackHeader())
		}
		if self := w.CommSelf(); self.PackHeader() != 0 {
			t.Errorf("rank %d: MPI_COMM_SELF packs with a header", me)
		}
		buf := make([]byte, 64)
		var pos int64
		if err := c.PackFor(buf[:mpirt.PackHeaderSize+12], &pos, ptr(ints), 3, di); err != nil {
			t.Fatal(err)
		}
		if err := c.PackFor(buf[:pos+8], &pos, ptr(dbl), 1, dd); err != nil {
			t.Fatal(err)
		}
		if pos != mpirt.PackHeaderSize+20 {
			t.Fatalf("rank %d: packed to position %d", me, pos)
		}
		peer := 1 - me
		rbuf := make([]byte, 64)
		errc := make(chan error, 1)
		go func() { errc <- c.SendTyped(ptr(buf), int(pos), dp, peer, 7, mpirt.ModeStandard) }()
		st, err := c.RecvTyped(ptr(rbuf), len(rbuf), dp, peer, 7)
		if err != nil || <-errc != nil {
			t.Fatal(err)
		}
		gotI, gotD := make([]byte, 12), make([]byte, 8)
		var rp int64
		if err := c.UnpackFor(rbuf[:st.Count], &rp, ptr(gotI), 3, di); err != nil {
			t.Fatal(err)
		}
		if err := c.UnpackFor(rbuf[:st.Count], &rp, ptr(gotD), 1, dd); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 3; i++ {
			if v := order.Uint32(gotI[4*i:]); v != uint32(0x01020304*(i+1)+peer) {
				t.Errorf("rank %d: int %d is %#x", me, i, v)
			}
		}
		if v := math.Float64frombits(order.Uint64(gotD)); v != 1.0/3+float64(peer) || rp != st.Count {
			t.Errorf("rank %d: double %v, position %d of %d", me, v, rp, st.Count)
		}
		// A short buffer is MPI_ERR_TRUNCATE.
		rp = 0
		var e *mpirt.Error
		if err := c.UnpackFor(rbuf[:st.Count-1], &rp, ptr(make([]byte, 40)), 5, di); !errors.As(err, &e) || e.Class != mpirt.ErrTruncate {
			t.Errorf("rank %d: unpacking past the end gave %v", me, err)
		}
	})
}

// TestHeteroProbeSizes: a probe of a message from a process whose long
// is 4 bytes counts in the receiver's terms (MPI_Get_count with the
// receiver's datatype); the receive converts 4-byte longs to 8.
func TestHeteroProbeSizes(t *testing.T) {
	if mpirt.NativeRep().Long != 8 {
		t.Skip("this machine's long is not 8 bytes")
	}
	dl, _ := mpirt.PredefinedDatatype(mpirt.TypeLong)
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	db, _ := mpirt.PredefinedDatatype(mpirt.TypeByte)
	li, _ := mpirt.PredefinedDatatype(mpirt.TypeLongInt)
	st, _ := mpirt.TypeStruct([]int{2, 1}, []int{0, 16}, []*mpirt.Datatype{dl, di}, false)
	st.Commit()
	heteroJobWith(t, "be,binary128,long4,wchar2", 1<<20, func(t *testing.T, w *mpirt.World) {
		c := w.CommWorld()
		if c.Rank() == 1 {
			// Five 4-byte big-endian longs, then one struct {long[2]; int}
			// and a message that ends inside a long.
			b := make([]byte, 20)
			for i := 0; i < 5; i++ {
				binary.BigEndian.PutUint32(b[4*i:], uint32(0x01020304*(i+1)))
			}
			for _, m := range []struct {
				n   int
				tag int
			}{{20, 1}, {12, 2}, {10, 3}} {
				if err := c.SendTyped(ptr(b), m.n, db, 0, m.tag, mpirt.ModeStandard); err != nil {
					t.Error(err)
				}
			}
			return
		}
		var s mpirt.Status
		for {
			var ok bool
			if s, ok = w.Iprobe(c, c.Context(), 1, 1); ok {
				break
			}
		}
		if s.SenderSizes == 0 || s.Count != 20 {
			t.Fatalf("probe status %+v: no sender sizes", s)
		}
		if n := w.ReceiverBytes(s.Count, s.SenderSizes, dl); n != 40 {
			t.Errorf("5 longs of 4 bytes are %d bytes here, want 40", n)
		}
		if n := w.ReceiverBytes(s.Count, s.SenderSizes, db); n != 20 {
			t.Errorf("MPI_BYTE: %d bytes, want 20", n)
		}
		if n := w.ReceiverBytes(s.Count, s.SenderSizes, li); n%int64(li.Size()) == 0 {
			t.Errorf("20 bytes of 8-byte long-int pairs counted whole (%d bytes)", n)
		}
		got := make([]byte, 40)
		rs, err := c.RecvTyped(ptr(got), 5, dl, 1, 1)
		if err != nil || rs.Count != 40 || rs.SenderSizes != 0 {
			t.Fatalf("receive: %+v %v", rs, err)
		}
		for i := 0; i < 5; i++ {
			if v := binary.NativeEndian.Uint64(got[8*i:]); v != uint64(0x01020304*(i+1)) {
				t.Errorf("long %d: %#x", i, v)
			}
		}
		// struct {long[2]; int}: 12 bytes there, 20 here.
		for {
			var ok bool
			if s, ok = w.Iprobe(c, c.Context(), 1, 2); ok {
				break
			}
		}
		if n := w.ReceiverBytes(s.Count, s.SenderSizes, st); n != int64(st.Size()) {
			t.Errorf("one struct: %d bytes, want %d", n, st.Size())
		}
		c.RecvTyped(ptr(make([]byte, 64)), 3, dl, 1, 2)
		// 10 bytes: two longs and half of a third.
		for {
			var ok bool
			if s, ok = w.Iprobe(c, c.Context(), 1, 3); ok {
				break
			}
		}
		if n := w.ReceiverBytes(s.Count, s.SenderSizes, dl); n != 17 {
			t.Errorf("two and a half longs: %d bytes, want 17 (not whole)", n)
		}
		c.RecvTyped(ptr(make([]byte, 64)), 8, dl, 1, 3)
	})
}

// TestHeteroPackedCrossing: any message may be received as MPI_PACKED
// and a packed one typed (issue 21): a typed message from the other
// representation received as MPI_PACKED gets the sender's header, so
// that MPI_Unpack converts it (a probe counts the header, a buffer
// without room for it is MPI_ERR_TRUNCATE); a packed message received
// typed converts like a typed one; a buffer received from the other
// machine and sent on as MPI_PACKED keeps its header (FlagPacked), so a
// typed receive on the packer's machine reads it natively; eager and
// rendezvous.
func TestHeteroPackedCrossing(t *testing.T) {
	if mpirt.NativeRep().Encode() == zRep {
		t.Skip("this machine is the emulated representation")
	}
	di, _ := mpirt.PredefinedDatatype(mpirt.TypeInt)
	dp, _ := mpirt.PredefinedDatatype(mpirt.TypePacked)
	const n = 40
	for _, eager := range []int{64, 1 << 20} {
		heteroJob(t, eager, func(t *testing.T, w *mpirt.World) {
			c := w.CommWorld()
			me, peer := c.Rank(), 1-c.Rank()
			order := func(r int) binary.ByteOrder {
				if r == 1 {
					return binary.BigEndian
				}
				return binary.NativeEndian
			}
			ints := make([]byte, 4*n)
			for i := 0; i < n; i++ {
				order(me).PutUint32(ints[4*i:], uint32(0x01020304*(i+1)+me))
			}
			checkInts := func(what string, got []byte, from int) {
				t.Helper()
				for i := 0; i < n; i++ {
					if v := order(me).Uint32(got[4*i:]); v != uint32(0x01020304*(i+1)+from) {
						t.Errorf("rank %d eager %d %s: int %d is %#x", me, eager, what, i, v)
						return
					}
				}
			}
			probe := func(tag int) mpirt.Status {
				for {
					if s, ok := w.Iprobe(c, c.Context(), peer, tag); ok {
						return s
					}
				}
			}
			send := func(buf []byte, count int, dt *mpirt.Datatype, tag int) chan error {
				errc := make(chan error, 1)
				go func() { errc <- c.SendTyped(ptr(buf), count, dt, peer, tag, mpirt.ModeStandard) }()
				return errc
			}
			// 1. Typed in, MPI_PACKED out: the probe counts the header.
			errc := send(ints, n, di, 1)
			s := probe(1)
			if got := w.ReceiverBytes(s.Count, s.SenderSizes, dp); got != 4*n+mpirt.PackHeaderSize {
				t.Errorf("rank %d eager %d: probe counts %d bytes of MPI_PACKED, want %d", me, eager, got, 4*n+mpirt.PackHeaderSize)
			}
			if got := w.ReceiverBytes(s.Count, s.SenderSizes, di); got != 4*n {
				t.Errorf("rank %d eager %d: probe counts %d bytes of MPI_INT, want %d", me, eager, got, 4*n)
			}
			rbuf := make([]byte, 4*n+mpirt.PackHeaderSize)
			st, err := c.RecvTyped(ptr(rbuf), len(rbuf), dp, peer, 1)
			if err != nil || <-errc != nil || st.Count != int64(len(rbuf)) {
				t.Fatalf("rank %d eager %d: typed into MPI_PACKED: %+v %v", me, eager, st, err)
			}
			got := make([]byte, 4*n)
			var rp int64
			if err := c.UnpackFor(rbuf, &rp, ptr(got), n, di); err != nil || rp != st.Count {
				t.Fatalf("rank %d eager %d: unpack: %v at %d", me, eager, err, rp)
			}
			checkInts("typed into MPI_PACKED", got, peer)
			// 2. Without room for the header: MPI_ERR_TRUNCATE.
			errc = send(ints, n, di, 2)
			var e *mpirt.Error
			if _, err := c.RecvTyped(ptr(make([]byte, 4*n)), 4*n, dp, peer, 2); !errors.As(err, &e) || e.Class != mpirt.ErrTruncate {
				t.Errorf("rank %d eager %d: MPI_PACKED receive without room for the header: %v", me, eager, err)
			}
			<-errc
			// 3. Packed here, received typed there.
			pk := make([]byte, 4*n+mpirt.PackHeaderSize)
			var pos int64
			if err := c.PackFor(pk, &pos, ptr(ints), n, di); err != nil {
				t.Fatal(err)
			}
			errc = send(pk, int(pos), dp, 3)
			s = probe(3)
			if got := w.ReceiverBytes(s.Count, s.SenderSizes, di); got != 4*n {
				t.Errorf("rank %d eager %d: probe of a packed message counts %d bytes of MPI_INT, want %d", me, eager, got, 4*n)
			}
			got = make([]byte, 4*n)
			st, err = c.RecvTyped(ptr(got), n, di, peer, 3)
			if err != nil || <-errc != nil || st.Count != 4*n {
				t.Fatalf("rank %d eager %d: MPI_PACKED into typed: %+v %v", me, eager, st, err)
			}
			checkInts("MPI_PACKED into typed", got, peer)
			// 4. Rank 1 sends on what it received in 1 (rank 0's ints with
			// rank 0's header); rank 0 receives it typed, then as
			// MPI_PACKED, and reads its own ints.
			if me == 1 {
				for tag := 4; tag <= 5; tag++ {
					if err := c.SendTyped(ptr(rbuf), len(rbuf), dp, 0, tag, mpirt.ModeStandard); err != nil {
						t.Fatal(err)
					}
				}
				return
			}
			s = probe(4)
			if got := w.ReceiverBytes(s.Count, s.SenderSizes, di); got != 4*n {
				t.Errorf("eager %d: probe of a forwarded packed message counts %d bytes of MPI_INT, want %d", eager, got, 4*n)
			}
			if got := w.ReceiverBytes(s.Count, s.SenderSizes, dp); got != 4*n+mpirt.PackHeaderSize {
				t.Errorf("eager %d: probe of a forwarded packed message counts %d bytes of MPI_PACKED", eager, got)
			}
			got = make([]byte, 4*n)
			if st, err = c.RecvTyped(ptr(got), n, di, 1, 4); err != nil || st.Count != 4*n {
				t.Fatalf("eager %d: forwarded packed into typed: %+v %v", eager, st, err)
			}
			checkInts("forwarded MPI_PACKED into typed", got, 0)
			fwd := make([]byte, 4*n+mpirt.PackHeaderSize)
			if st, err = c.RecvTyped(ptr(fwd), len(fwd), dp, 1, 5); err != nil || st.Count != int64(len(fwd)) {
				t.Fatalf("eager %d: forwarded packed as MPI_PACKED: %+v %v", eager, st, err)
			}
			rp = 0
			if err := c.UnpackFor(fwd, &rp, ptr(got), n, di); err != nil {
				t.Fatal(err)
			}
			checkInts("forwarded MPI_PACKED unpacked", got, 0)
		})
	}
}
