package mpirt

import (
	"encoding/binary"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"gmpi/internal/fuzzseed"
)

// rmaPieceOf builds a request payload: segments (offset, length), the
// element type and op, then data.
func rmaPieceOf(elem, op Handle, segs [][2]int64, data []byte) []byte {
	b := make([]byte, rmaPieceHead, rmaPieceHead+16*len(segs)+len(data))
	binary.LittleEndian.PutUint32(b[0:], uint32(len(segs)))
	binary.LittleEndian.PutUint32(b[8:], uint32(elem))
	binary.LittleEndian.PutUint32(b[12:], uint32(op))
	for _, s := range segs {
		b = binary.LittleEndian.AppendUint64(b, uint64(s[0]))
		b = binary.LittleEndian.AppendUint64(b, uint64(s[1]))
	}
	return append(b, data...)
}

// wholeWindow is n segments, each the whole 256-byte window.
func wholeWindow(n int) [][2]int64 {
	s := make([][2]int64, n)
	for i := range s {
		s[i] = [2]int64{0, 256}
	}
	return s
}

// FuzzRMAPiece: a one-sided frame from a peer (its operation, target
// address and payload: for data operations segments, element type, op,
// data), served by a window of 256 bytes between guard bytes (created,
// or dynamic with that one region attached) whose lock and accumulate
// words are in a control segment as setup lays it out (this process the
// only one of its host, the peer on another). Whatever the frame holds,
// the target never panics, writes nothing outside its window, answers a
// fetch with at most the bytes an origin's piece may ask for (rmaPiece),
// leaves its lock word free or held by that peer, and an answer to one of
// the two waits of this process (id 9: 64 bytes of result, id 10: a
// regions request) lands in its buffer only, with an error class.
func FuzzRMAPiece(f *testing.F) {
	ramp := make([]byte, 64)
	for i := range ramp {
		ramp[i] = byte(i)
	}
	one := binary.LittleEndian.AppendUint32(nil, 7)
	fuzzseed.Add(f,
		[]any{uint8(rmaOpPut), false, uint64(0), rmaPieceOf(0, 0, [][2]int64{{0, 8}, {16, 8}}, ramp[:16])},
		[]any{uint8(rmaOpGet), false, uint64(8), rmaPieceOf(0, 0, [][2]int64{{0, 64}}, nil)},
		[]any{uint8(rmaOpAcc), false, uint64(0), rmaPieceOf(TypeInt, OpSum, [][2]int64{{0, 4}}, one)},
		[]any{uint8(rmaOpAcc), true, uint64(0), rmaPieceOf(TypeInt, OpReplace, [][2]int64{{4, 4}}, one)},
		[]any{uint8(rmaOpGetAcc), false, uint64(0), rmaPieceOf(TypeDouble, OpNoOp, [][2]int64{{0, 8}}, nil)},
		[]any{uint8(rmaOpCAS), false, uint64(0), rmaPieceOf(TypeInt, 0, [][2]int64{{0, 4}}, append(one, 0, 0, 0, 0))},
		[]any{uint8(rmaOpPut), false, uint64(250), rmaPieceOf(0, 0, [][2]int64{{0, 16}}, ramp[:16])},           // past the end
		[]any{uint8(rmaOpPut), false, ^uint64(0), rmaPieceOf(0, 0, [][2]int64{{2, 4}}, ramp[:4])},              // wraps around
		[]any{uint8(rmaOpGet), false, uint64(0), rmaPieceOf(0, 0, wholeWindow(1100), nil)},                     // amplification
		[]any{uint8(rmaOpAcc), false, uint64(0), rmaPieceOf(TypeInt, 0x44000001, [][2]int64{{0, 4}}, one)},     // not a predefined op
		[]any{uint8(rmaOpAcc), false, uint64(0), rmaPieceOf(0x4c00ffff, OpSum, [][2]int64{{0, 4}}, one)},       // not a type
		[]any{uint8(rmaOpPut), false, uint64(0), []byte{0xff, 0xff, 0xff, 0xff}},                               // short
		[]any{uint8(rmaOpPut), false, uint64(0), rmaPieceOf(0, 0, [][2]int64{{0, -1}}, nil)},                   // negative length
		[]any{uint8(rmaOpPut), false, uint64(0), rmaPieceOf(0, 0, [][2]int64{{0, 8}}, ramp[:9])},               // longer than announced
		[]any{uint8(rmaOpGetAcc), false, uint64(0), rmaPieceOf(TypeInt, OpNoOp, nil, nil)},                     // no segment
		[]any{uint8(rmaOpGetAcc), true, uint64(0), rmaPieceOf(TypeInt, OpSum, [][2]int64{{252, 8}}, ramp[:8])}, // past a region
		[]any{uint8(rmaOpFlush), false, uint64(0), []byte(nil)},
		[]any{uint8(rmaOpLock), false, uint64(0), binary.LittleEndian.AppendUint64(nil, LockExclusive)},
		[]any{uint8(rmaOpLock), false, uint64(0), binary.LittleEndian.AppendUint64(nil, 99)},           // not a lock type
		[]any{uint8(rmaOpUnlock), false, uint64(0), binary.LittleEndian.AppendUint64(nil, LockShared)}, // holds none
		[]any{uint8(rmaOpPost), false, uint64(0), []byte(nil)},
		[]any{uint8(rmaOpComplete), false, uint64(0), []byte(nil)},
		[]any{uint8(rmaOpRegions), true, uint64(0), []byte(nil)},
		[]any{uint8(rmaOpAnswer), false, uint64(9), ramp},                  // fills the result
		[]any{uint8(rmaOpAnswer), false, uint64(9), append(ramp, ramp...)}, // longer
		[]any{uint8(rmaOpAnswer), false, uint64(10), ramp[:40]},            // regions
		[]any{uint8(rmaOpAnswer), false, uint64(1<<32 | 9), ramp[:8]},      // class not a class
		[]any{uint8(rmaOpAnswer), false, uint64(77), []byte(nil)},          // unknown id
		[]any{uint8(13), false, uint64(0), []byte(nil)},                    // unknown operation
	)
	f.Fuzz(func(t *testing.T, op uint8, dynamic bool, addr uint64, payload []byte) {
		const guard, size = 64, 256
		raw := addr
		mem := make([]byte, guard+size+guard)
		for i := range mem {
			mem[i] = 0xa5
		}
		base := unsafe.Pointer(&mem[guard])
		win := &Win{w: &World{waker: NewLocalWaker()}, flavor: FlavorCreate, base: base, size: size, lidx: []int{0, -1}}
		win.layout = newWinLayout(1, FlavorCreate, []int64{size}, false)
		win.seg = make([]byte, win.layout.total)
		nt := &rmaNet{win: win, me: 0, world: []int{0, 1}, deferred: make([]int, 2), held: make([]int, 2),
			posts: make([]atomic.Uint32, 2), completes: make([]atomic.Uint32, 2), waits: map[uint64]*rmaWait{}}
		nt.outCond = sync.NewCond(&nt.outMu)
		if dynamic {
			win.flavor, win.base, win.size = FlavorDynamic, nil, 0
			nt.regs = []netRegion{{lo: uint64(uintptr(base)), n: size, p: base}}
		} else {
			// Addresses relative to the window, as a 0 displacement
			// unit would give; the origin adds the base.
			addr += uint64(uintptr(base))
		}
		res := make([]byte, guard+64+guard)
		res64 := unsafe.Pointer(&res[guard])
		w9 := &rmaWait{segs: []rmaSeg{{loc: res64, n: 32}, {loc: unsafe.Add(res64, 32), n: 32}}}
		w10 := &rmaWait{}
		nt.waits[9], nt.waits[10] = w9, w10
		// The operation; Offset is the address, or for an answer the id
		// (low half) and class (high half); Len, for lock and unlock, the
		// payload's first 8 bytes.
		h := Header{Kind: FrameRMA, Source: 1, Tag: int32(op % 14), SendID: 9, Offset: addr}
		switch int(h.Tag) {
		case rmaOpAnswer:
			h.SendID, h.Len = uint64(uint32(raw)), raw>>32
		case rmaOpLock, rmaOpUnlock:
			if len(payload) >= 8 {
				h.Len = binary.LittleEndian.Uint64(payload)
			}
		}
		nt.serve(1, &h, payload)
		if h.Tag == rmaOpUnlock && h.Len == LockShared {
			// A second unlock, as a peer that never locked sends.
			nt.serve(1, &h, nil)
		}
		for i := 0; i < guard; i++ {
			if mem[i] != 0xa5 || mem[guard+size+i] != 0xa5 {
				t.Fatalf("operation %d wrote outside the window", h.Tag)
			}
			if res[i] != 0 || res[guard+64+i] != 0 {
				t.Fatalf("answer to %d wrote outside the result", h.SendID)
			}
		}
		for _, wt := range []*rmaWait{w9, w10} {
			if wt.done.Load() && (wt.cls < 0 || wt.cls > ErrLastClass) {
				t.Fatalf("answer class %d", wt.cls)
			}
		}
		if v, _ := win.lockWords(0); *v != 0 && !(h.Tag == rmaOpLock && (*v == lockWriter || *v == 1)) {
			t.Fatalf("lock word %#x after operation %d (Len %d)", *v, h.Tag, h.Len)
		}
		for _, o := range nt.out {
			if o.hdr.Tag != rmaOpAnswer || o.hdr.SendID != h.SendID || o.peer != 1 {
				t.Fatalf("answer %+v", o.hdr)
			}
			if len(o.payload) > rmaPiece {
				t.Fatalf("answer of %d bytes to a piece of %d", len(o.payload), len(payload))
			}
			if o.hdr.Len != 0 && len(o.payload) != 0 {
				t.Fatalf("failed answer (class %d) with %d bytes", o.hdr.Len, len(o.payload))
			}
		}
	})
}
