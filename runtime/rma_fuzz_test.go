package mpirt

import (
	"encoding/binary"
	"sync"
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

// FuzzRMAPiece: a one-sided request frame from a peer (its operation,
// target address and payload: segments, element type, op, data), served
// by a window of 256 bytes between guard bytes (created, or dynamic with
// that one region attached). Whatever the frame holds, the target never
// panics, writes nothing outside its window, and answers a fetch with at
// most the bytes an origin's piece may ask for (rmaPiece).
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
		[]any{uint8(rmaOpPut), false, uint64(250), rmaPieceOf(0, 0, [][2]int64{{0, 16}}, ramp[:16])},       // past the end
		[]any{uint8(rmaOpPut), false, ^uint64(0), rmaPieceOf(0, 0, [][2]int64{{2, 4}}, ramp[:4])},          // wraps around
		[]any{uint8(rmaOpGet), false, uint64(0), rmaPieceOf(0, 0, wholeWindow(1100), nil)},                 // amplification
		[]any{uint8(rmaOpAcc), false, uint64(0), rmaPieceOf(TypeInt, 0x44000001, [][2]int64{{0, 4}}, one)}, // not a predefined op
		[]any{uint8(rmaOpAcc), false, uint64(0), rmaPieceOf(0x4c00ffff, OpSum, [][2]int64{{0, 4}}, one)},   // not a type
		[]any{uint8(rmaOpPut), false, uint64(0), []byte{0xff, 0xff, 0xff, 0xff}},                           // short
		[]any{uint8(rmaOpPut), false, uint64(0), rmaPieceOf(0, 0, [][2]int64{{0, -1}}, nil)},               // negative length
	)
	f.Fuzz(func(t *testing.T, op uint8, dynamic bool, addr uint64, payload []byte) {
		const guard, size = 64, 256
		mem := make([]byte, guard+size+guard)
		for i := range mem {
			mem[i] = 0xa5
		}
		base := unsafe.Pointer(&mem[guard])
		win := &Win{flavor: FlavorCreate, base: base, size: size}
		nt := &rmaNet{win: win, me: 0, world: []int{0, 1}, deferred: make([]int, 2), waits: map[uint64]*rmaWait{}}
		nt.outCond = sync.NewCond(&nt.outMu)
		if dynamic {
			win.flavor, win.base, win.size = FlavorDynamic, nil, 0
			nt.regs = []netRegion{{lo: uint64(uintptr(base)), n: size, p: base}}
		} else {
			// Addresses relative to the window, as a 0 displacement
			// unit would give; the origin adds the base.
			addr += uint64(uintptr(base))
		}
		h := Header{Kind: FrameRMA, Source: 1, Tag: int32((int(op)+4)%5 + 1), SendID: 9, Offset: addr}
		nt.serve(1, &h, payload)
		for i := 0; i < guard; i++ {
			if mem[i] != 0xa5 || mem[guard+size+i] != 0xa5 {
				t.Fatalf("operation %d wrote outside the window", h.Tag)
			}
		}
		for _, o := range nt.out {
			if o.hdr.Tag != rmaOpAnswer || o.hdr.SendID != 9 || o.peer != 1 {
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
