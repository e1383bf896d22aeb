package mpirt

import (
	"encoding/binary"
	"fmt"
)

// Receiver makes right (issue 21): a message from a process of another
// data representation arrives as the sender packed it, in the sender's
// representation; the receiver converts it, element by element, as the
// type map of its receive datatype says. MPI's type-matching rule makes
// the sender's and the receiver's type signatures agree, so the packed
// stream is the receiver's basic elements in order, each in the sender's
// byte order, sizes and long double format.

// hclass says how one component of a predefined element converts.
type hclass uint8

const (
	hRaw   hclass = iota // bytes as they are: char, bool, MPI_BYTE, MPI_PACKED
	hInt                 // signed integer of fixed size
	hUint                // unsigned integer of fixed size
	hFloat               // IEEE binary16/32/64/128: byte order only
	hLong                // signed, sizeof(long)
	hULong               // unsigned, sizeof(long)
	hWchar               // unsigned, sizeof(wchar_t)
	hLD                  // C long double
)

// hcomp is one component of a predefined element: at byte offset off of
// the receiver's element, of class cls; size is its size where the class
// does not depend on the representation.
type hcomp struct {
	off  int
	cls  hclass
	size int
}

// sizeIn is the component's size in representation r.
func (c hcomp) sizeIn(r *Rep) int {
	switch c.cls {
	case hLong, hULong:
		return r.Long
	case hWchar:
		return r.Wchar
	case hLD:
		return 16 // both formats take 16 bytes of storage
	}
	return c.size
}

// hcomps are the components of every predefined datatype.
var hcomps = map[*Datatype][]hcomp{}

func init() {
	byBasic := func(b Basic, size int) hclass {
		switch b {
		case BasicInt8, BasicInt16, BasicInt32, BasicInt64, BasicLogical:
			return hInt
		case BasicUint8, BasicUint16, BasicUint32, BasicUint64:
			return hUint
		case BasicFloat16, BasicFloat32, BasicFloat64, BasicFloat128,
			BasicComplex64, BasicComplex128, BasicComplex256:
			return hFloat
		}
		return hRaw
	}
	// The value half of the pair types.
	pairValue := map[Basic]hclass{
		BasicFloatInt: hFloat, BasicDoubleInt: hFloat, BasicShortInt: hInt, Basic2Int: hInt,
		Basic2Float: hFloat, Basic2Double: hFloat,
	}
	for _, d := range PredefinedDatatypes() {
		var cs []hcomp
		switch b := d.basic; {
		case d.size == 0:
		case d.Handle == TypeLong:
			cs = []hcomp{{0, hLong, 8}}
		case d.Handle == TypeUnsignedLong:
			cs = []hcomp{{0, hULong, 8}}
		case d.Handle == TypeWchar:
			cs = []hcomp{{0, hWchar, 4}}
		case b == BasicLongDouble:
			cs = []hcomp{{0, hLD, 16}}
		case b == BasicLongDoubleComplex:
			cs = []hcomp{{0, hLD, 16}, {16, hLD, 16}}
		case b == BasicLongDoubleInt:
			cs = []hcomp{{0, hLD, 16}, {16, hInt, 4}}
		case b == BasicLongInt:
			cs = []hcomp{{0, hLong, 8}, {8, hInt, 4}}
		case b.IsPair():
			ps := pairSizes[b]
			last := d.Blocks[len(d.Blocks)-1]
			idx := hInt
			if b == Basic2Float || b == Basic2Double {
				idx = hFloat
			}
			cs = []hcomp{{0, pairValue[b], ps[0]}, {last.Off + last.Len - ps[1], idx, ps[1]}}
		case b == BasicComplex64 || b == BasicComplex128 || b == BasicComplex256:
			h := d.size / 2
			cs = []hcomp{{0, hFloat, h}, {h, hFloat, h}}
		default:
			cs = []hcomp{{0, byBasic(b, d.size), d.size}}
		}
		hcomps[d] = cs
		d.extSize = d.repSize(&ext32Rep)
	}
}

// sameSizes reports whether every C type has the same size in a and b,
// so that a packed stream has the same length in both.
func sameSizes(a, b *Rep) bool { return a.Long == b.Long && a.Wchar == b.Wchar }

// repSize is the size of one element of d packed in representation r.
func (d *Datatype) repSize(r *Rep) int {
	if d.predefined {
		s := 0
		for _, c := range hcomps[d] {
			s += c.sizeIn(r)
		}
		return s
	}
	s := 0
	for _, pt := range d.parts {
		s += pt.reps * pt.n * pt.t.repSize(r)
	}
	return s
}

// convError describes the first value a conversion could not represent.
type convError struct {
	what string
	n    int // values affected
}

// eachSig calls f for the predefined elements of count elements of d in
// type-map order (the type signature): n elements of pre at a time. It
// stops when f returns false.
func (d *Datatype) eachSig(count int, f func(pre *Datatype, n int) bool) bool {
	if d.predefined {
		if d.size == 0 || count == 0 {
			return true
		}
		return f(d, count)
	}
	for i := 0; i < count; i++ {
		for _, pt := range d.parts {
			for r := 0; r < pt.reps; r++ {
				if !pt.t.eachSig(pt.n, f) {
					return false
				}
			}
		}
	}
	return true
}

// ConvertPacked converts in, count elements of dt packed by a process of
// representation from, into out, the same elements packed in
// representation to (what Pack writes there). It converts the whole
// basic elements that both in and out hold (a short message ends early)
// and returns the bytes it consumed and wrote. A value that does not fit
// (an integer narrowed to a smaller type) is stored truncated to its low
// bytes, and err says which and how many (MPI_ERR_CONVERSION): never
// silently wrong. out may be in itself (converted in place) when both
// representations have the same sizes.
func ConvertPacked(dt *Datatype, count int, out, in []byte, from, to *Rep) (used, produced int, err error) {
	var ce convError
	pos, opos := 0, 0
	if p := dt.planFor(from, to); p != nil && p.in > 0 && p.out > 0 {
		// Whole elements by the plan, then what is left of a short buffer
		// element by element.
		k := min(count, len(in)/p.in, len(out)/p.out)
		p.run(out, in, k, &ce)
		pos, opos = k*p.in, k*p.out
		if k < count {
			u, o, _ := convertWalk(dt, 1, out[opos:], in[pos:], from, to, &ce)
			pos += u
			opos += o
		}
	} else {
		pos, opos, _ = convertWalk(dt, count, out, in, from, to, &ce)
	}
	if ce.n > 0 {
		err = Errorf(ErrConversion, "", "%d value(s) did not fit when converting from data representation %s to %s: %s",
			ce.n, from.Encode(), to.Encode(), ce.what)
	}
	return pos, opos, err
}

// convertWalk is ConvertPacked by walking the type map: types without a
// plan and the partial element at the end of a short buffer.
func convertWalk(dt *Datatype, count int, out, in []byte, from, to *Rep, ce *convError) (used, produced int, err error) {
	pos, opos := 0, 0
	dt.eachSig(count, func(pre *Datatype, n int) bool {
		cs := hcomps[pre]
		if len(cs) == 1 {
			c := cs[0]
			s := c.sizeIn(from)
			if s == c.sizeIn(to) && c.cls != hLD {
				// Same size: a copy or a byte swap per element.
				k := min(n, (len(in)-pos)/s, (len(out)-opos)/s)
				swap := from.BigEndian != to.BigEndian && c.cls != hRaw
				moveRun(out[opos:opos+k*s], in[pos:pos+k*s], s, swap)
				pos += k * s
				opos += k * s
				return k == n
			}
		}
		for j := 0; j < n; j++ {
			for _, c := range cs {
				s, t := c.sizeIn(from), c.sizeIn(to)
				if len(in)-pos < s || len(out)-opos < t {
					return false
				}
				convComp(out[opos:opos+t], in[pos:pos+s], c.cls, from, to, pre, ce)
				pos += s
				opos += t
			}
		}
		return true
	})
	return pos, opos, nil
}

// moveRun copies the elements of s bytes from in to out (the same
// length, possibly the same memory), reversing the bytes of each when
// swap is set.
func moveRun(out, in []byte, s int, swap bool) {
	k := len(in) / s
	if k == 0 {
		return
	}
	if !swap {
		copy(out, in)
		return
	}
	swapRun(out, in, s)
}

// convComp converts one component: src in representation from into dst
// in representation to. dst and src may be the same bytes.
func convComp(dst, src []byte, cls hclass, from, to *Rep, pre *Datatype, ce *convError) {
	switch cls {
	case hRaw:
		copy(dst, src)
	case hFloat:
		var tmp [16]byte
		copy(tmp[:], src)
		for i := range dst {
			if from.BigEndian != to.BigEndian {
				dst[i] = tmp[len(dst)-1-i]
			} else {
				dst[i] = tmp[i]
			}
		}
	case hLD:
		hi, lo, ok := readLD(src, from)
		if ok {
			ok = writeLD(dst, to, hi, lo)
		}
		if !ok {
			ce.add(fmt.Sprintf("%s: long double format unknown", pre))
		}
	default:
		signed := cls == hInt || cls == hLong
		v := readUint(src, from.BigEndian)
		if signed && len(src) < 8 && v>>(8*len(src)-1)&1 != 0 {
			v |= ^uint64(0) << (8 * len(src)) // sign extension
		}
		if len(dst) < len(src) {
			w := uint(8 * len(dst))
			fits := v>>w == 0
			if signed {
				x := int64(v)
				fits = x >= -1<<(w-1) && x < 1<<(w-1)
			}
			if !fits {
				if signed {
					ce.add(fmt.Sprintf("%s value %d into %d bytes", pre, int64(v), len(dst)))
				} else {
					ce.add(fmt.Sprintf("%s value %d into %d bytes", pre, v, len(dst)))
				}
			}
		}
		writeUint(dst, v, to.BigEndian)
	}
}

func (ce *convError) add(what string) {
	if ce.n == 0 {
		ce.what = what
	}
	ce.n++
}

// readUint reads an unsigned integer of len(b) <= 8 bytes.
func readUint(b []byte, big bool) uint64 {
	var v uint64
	for i := range b {
		if big {
			v = v<<8 | uint64(b[i])
		} else {
			v |= uint64(b[i]) << (8 * i)
		}
	}
	return v
}

// writeUint writes the low len(b) bytes of v.
func writeUint(b []byte, v uint64, big bool) {
	n := len(b)
	for i := range n {
		if big {
			b[n-1-i] = byte(v >> (8 * i))
		} else {
			b[i] = byte(v >> (8 * i))
		}
	}
}

// readLD reads a long double of representation r as the bits of an IEEE
// binary128 (hi: sign, exponent and the top 48 fraction bits; lo: the
// low 64 fraction bits). x87 values convert exactly.
func readLD(b []byte, r *Rep) (hi, lo uint64, ok bool) {
	if r.BigEndian {
		hi, lo = binary.BigEndian.Uint64(b[0:8]), binary.BigEndian.Uint64(b[8:16])
	} else {
		lo, hi = binary.LittleEndian.Uint64(b[0:8]), binary.LittleEndian.Uint64(b[8:16])
	}
	switch r.LongDouble {
	case LongDoubleBinary128:
		return hi, lo, true
	case LongDoubleX87:
		hi, lo = x87To128(uint16(hi), lo)
		return hi, lo, true
	}
	return 0, 0, false
}

// writeLD stores the binary128 bits hi, lo as a long double of
// representation r (rounded to nearest, ties to even, for x87).
func writeLD(b []byte, r *Rep, hi, lo uint64) bool {
	switch r.LongDouble {
	case LongDoubleBinary128:
	case LongDoubleX87:
		se, mant := f128ToX87(hi, lo)
		hi, lo = uint64(se), mant // the 6 bytes above the 80 bits are zero
	default:
		return false
	}
	if r.BigEndian {
		binary.BigEndian.PutUint64(b[0:8], hi)
		binary.BigEndian.PutUint64(b[8:16], lo)
	} else {
		binary.LittleEndian.PutUint64(b[0:8], lo)
		binary.LittleEndian.PutUint64(b[8:16], hi)
	}
	return true
}

const (
	f128FracHi = 1<<48 - 1 // fraction bits in hi
	expMax     = 0x7fff
)

// x87To128 converts an x87 extended value (sign and exponent se, 64-bit
// significand mant with its explicit integer bit) to binary128 bits; both
// formats have the same exponent range, so this is exact. Invalid x87
// encodings (unnormals, pseudo-NaNs) become a quiet NaN, as the x87 FPU
// treats them.
func x87To128(se uint16, mant uint64) (hi, lo uint64) {
	sign := uint64(se>>15) << 63
	exp := uint64(se & expMax)
	frac := mant &^ (1 << 63) // the 63 fraction bits
	intBit := mant>>63 != 0
	switch {
	case exp == expMax:
		if !intBit {
			return sign | expMax<<48 | 1<<47, 0 // pseudo-infinity/NaN: invalid
		}
		if frac == 0 {
			return sign | expMax<<48, 0
		}
		// NaN: keep the payload (the quiet bit is the top fraction bit in both).
	case exp == 0:
		if intBit {
			exp = 1 // pseudo-denormal: the same value as exponent 1
		}
	case !intBit:
		return sign | expMax<<48 | 1<<47, 0 // unnormal: invalid
	}
	// frac<<49 spread over hi (48 bits) and lo (64 bits).
	return sign | exp<<48 | frac>>15, frac << 49
}

// f128ToX87 converts binary128 bits to an x87 extended value, rounding
// the 112-bit fraction to 63 bits to nearest, ties to even. A NaN keeps
// the top of its payload (and stays a NaN); a rounding that overflows the
// largest finite value gives infinity.
func f128ToX87(hi, lo uint64) (se uint16, mant uint64) {
	sign := uint16(hi>>63) << 15
	exp := hi >> 48 & expMax
	fhi := hi & f128FracHi
	if exp == expMax {
		if fhi == 0 && lo == 0 {
			return sign | expMax, 1 << 63
		}
		m := fhi<<15 | lo>>49
		if m == 0 {
			m = 1 << 62 // a payload only in the dropped bits: still a NaN
		}
		return sign | expMax, 1<<63 | m
	}
	kept := fhi<<15 | lo>>49 // the top 63 fraction bits
	rest := lo & (1<<49 - 1)
	const half = 1 << 48
	if rest > half || rest == half && kept&1 != 0 {
		kept++
	}
	if exp == 0 {
		// Subnormal (or zero): 0.fraction × 2^-16382 in both formats; a
		// carry into bit 63 makes it the smallest normal, exponent 1.
		if kept>>63 != 0 {
			return sign | 1, kept
		}
		return sign, kept
	}
	if kept>>63 != 0 {
		// The fraction rounded up to 2: the next binade.
		kept = 0
		exp++
		if exp == expMax {
			return sign | expMax, 1 << 63
		}
	}
	return sign | uint16(exp), 1<<63 | kept
}

// recvTarget is what a typed receive expects: count elements of dt. A
// receive knows it when its data is typed (not raw protocol bytes), so a
// message from a peer of another representation can be converted.
type recvTarget struct {
	dt    *Datatype
	count int
}

// setupReps reads every process's data representation from the
// locations (Location.Rep; empty: this process's) and records the peers
// whose representation differs from ours. w.reps stays nil when every
// process agrees: the homogeneous job pays nothing.
func (w *World) setupReps() error {
	w.rep = NativeRep()
	locs := w.cfg.Locations
	if len(locs) != w.cfg.Size {
		return nil
	}
	if s := locs[w.cfg.Rank].Rep; s != "" {
		r, err := ParseRep(s)
		if err != nil {
			return err
		}
		w.rep = r
	}
	for p, l := range locs {
		if p == w.cfg.Rank || l.Rep == "" {
			continue
		}
		r, err := ParseRep(l.Rep)
		if err != nil {
			return fmt.Errorf("rank %d: %v", p, err)
		}
		if r == w.rep {
			continue
		}
		if w.reps == nil {
			w.reps = make([]*Rep, w.cfg.Size)
		}
		w.reps[p] = &r
	}
	return nil
}

// Heterogeneous reports whether some process of the job has another data
// representation than this one.
func (w *World) Heterogeneous() bool { return w.reps != nil }

// Rep is this process's data representation.
func (w *World) Rep() Rep { return w.rep }

// PeerRep is the data representation of world rank peer.
func (w *World) PeerRep(peer int) Rep {
	if r := w.foreignRep(peer); r != nil {
		return *r
	}
	return w.rep
}

// foreignRep is peer's representation when it differs from ours, else nil.
func (w *World) foreignRep(peer int) *Rep {
	if uint(peer) < uint(len(w.reps)) {
		return w.reps[peer]
	}
	return nil
}

// handlerFor is the Handler device d gets: handle itself, unless d
// reaches a peer of another representation; then handleMixed.
func (w *World) handlerFor(d Device) Handler {
	for p, r := range w.reps {
		if r != nil && w.routes[p] == d {
			return w.handleMixed
		}
	}
	return w.handle
}

// handleMixed marks the messages of peers of another representation for
// conversion (one predictable check per frame) and hands every frame to
// handle.
func (w *World) handleMixed(peer int, h *Header, payload []byte) {
	if uint(peer) < uint(len(w.reps)) && w.reps[peer] != nil && (h.Kind == FrameEager || h.Kind == FrameRTS) {
		h.Flags |= FlagForeign
	}
	w.handle(peer, h, payload)
}

// convertEager is deliver's work for an eager message h from a peer of
// another representation or marked FlagPacked: its payload, converted,
// lands in r.buf (the receiver's packed form, as if a peer like us had
// sent it; an MPI_PACKED receive gets it with the representation header
// in front, hpack.go). It returns false when there is nothing to convert
// (raw protocol bytes, or the flag came from the wire from a peer like
// us, or a marked packed buffer received as MPI_PACKED): deliver then
// copies.
func (w *World) convertEager(r *Request, peer int, h *Header, payload []byte) bool {
	from := w.foreignRep(peer)
	dt := r.rt.dt
	switch {
	case dt == nil:
		return false
	case h.Flags&FlagPacked != 0:
		if isPackedType(dt) {
			return false
		}
		w.fromPacked(r, h, payload)
	case from == nil:
		return false
	case isPackedType(dt):
		w.intoPacked(r, from, h, payload)
	default:
		w.convertInto(r, from, h, payload)
	}
	return true
}

// convertInto converts data, the first bytes of message h (all of it
// unless truncated) packed in representation from, into r.buf and sets
// r's count and error in the receiver's terms: a message longer than
// the receive is MPI_ERR_TRUNCATE as usual, a value that does not fit is
// MPI_ERR_CONVERSION.
func (w *World) convertInto(r *Request, from *Rep, h *Header, data []byte) {
	t := r.rt
	fsize := t.dt.size
	if !sameSizes(from, &w.rep) {
		fsize = t.dt.repSize(from)
	}
	r.Err, r.Status.Error = nil, 0
	if capacity := uint64(t.count) * uint64(fsize); h.Len > capacity {
		r.Status.Error = ErrTruncate
		r.Err = Errorf(ErrTruncate, "", "message of %d bytes (%d in this process's representation) from rank %d (tag %d) truncated to the %d-byte receive buffer",
			h.Len, h.Len/uint64(max(fsize, 1))*uint64(t.dt.size), h.Source, h.Tag, len(r.buf))
		data = data[:min(uint64(len(data)), capacity)]
	}
	if uint64(len(data)) > h.Len {
		data = data[:h.Len] // a rendezvous receive's buffer is larger than the message
	}
	_, produced, err := ConvertPacked(t.dt, t.count, r.buf, data, from, &w.rep)
	r.Status.Count = int64(produced)
	if err != nil && r.Err == nil {
		r.Err = err
		r.Status.Error = ErrConversion
	}
}

// stageForeign readies rendezvous receive r for message h from a peer
// of another representation, or marked FlagPacked: the data arrives as
// sent (in r.buf itself when the sizes agree, else in a staging buffer
// of the sender's size; after the room for the header when an MPI_PACKED
// receive gets one) and is converted when the last byte is in, before
// r's own completion hook (the unpack into a non-contiguous buffer) runs.
func (w *World) stageForeign(r *Request, peer int, h *Header) {
	from := w.foreignRep(peer)
	dt := r.rt.dt
	packed := h.Flags&FlagPacked != 0
	if dt == nil || (from == nil && !packed) || (packed && isPackedType(dt)) {
		return
	}
	dst := r.buf
	var done func(r *Request, data []byte)
	hdr := *h
	switch {
	case packed:
		// The header names the representation: stage it all, up to the
		// largest the receive could take.
		capacity := uint64(PackHeaderSize) + uint64(r.rt.count)*uint64(dt.repSize(&Rep{Long: 8, Wchar: 4}))
		r.buf = make([]byte, min(h.Len, capacity))
		done = func(r *Request, data []byte) { w.fromPacked(r, &hdr, data) }
	case isPackedType(dt):
		// The data lands after the room for the header.
		if len(dst) >= PackHeaderSize {
			r.buf = dst[PackHeaderSize:]
		} else {
			r.buf = nil
		}
		done = func(r *Request, data []byte) { w.intoPacked(r, from, &hdr, data) }
	default:
		if !sameSizes(from, &w.rep) {
			capacity := uint64(r.rt.count) * uint64(dt.repSize(from))
			r.buf = make([]byte, min(h.Len, capacity))
		}
		done = func(r *Request, data []byte) { w.convertInto(r, from, &hdr, data) }
	}
	r.Err, r.Status.Error = nil, 0
	orig := r.onDone
	r.onDone = func(r *Request) {
		if r.Err == nil { // a lost peer failed the receive: nothing to convert
			data := r.buf
			r.buf = dst
			done(r, data)
		}
		if orig != nil {
			orig(r)
		}
	}
}

// MixedReps reports whether the processes of c (both groups of an
// intercommunicator) do not all have one data representation: its
// collectives must then move typed data only (coll/hetero).
func (c *Comm) MixedReps() bool {
	w := c.w
	if w.reps == nil {
		return false
	}
	first := w.PeerRep(c.group[0])
	for _, g := range [][]int{c.group, c.remote} {
		for _, p := range g {
			if w.PeerRep(p) != first {
				return true
			}
		}
	}
	return false
}

// firstOtherRep is the representation of the first member of c that
// differs from this process's (for messages).
func (c *Comm) firstOtherRep() Rep {
	for _, g := range [][]int{c.group, c.remote} {
		for _, p := range g {
			if r := c.w.foreignRep(p); r != nil {
				return *r
			}
		}
	}
	return c.w.rep
}

// Status.SenderSizes bits: what a probe's status knows of the message
// beyond its length, so that MPI_Get_count and MPI_Get_elements count in
// the receiver's terms (ReceiverBytes).
const (
	sizesDiffer = 1 // the sender's C types have other sizes: 2 and 4 say which
	sizesLong4  = 2 // (with sizesDiffer) the sender's long is 4 bytes
	sizesWchar2 = 4 // (with sizesDiffer) the sender's wchar_t is 2 bytes
	// sizesHeader: received as MPI_PACKED the message gains a
	// representation header (a message from a process of another
	// representation, hpack.go); with sizesLong4 and without sizesDiffer
	// instead (sizesHasHeader): the message starts with one (FlagPacked),
	// which a typed receive drops.
	sizesHeader    = 8
	sizesHasHeader = sizesHeader | sizesLong4
)

// senderSizes is what a probe's status says of a message from world rank
// peer with frame flags flags: 0 when it reads as this process would
// have sent it, else sizesDiffer, sizesLong4, sizesWchar2 and
// sizesHeader bits.
func (w *World) senderSizes(peer int, flags uint8) uint8 {
	if flags&FlagPacked != 0 {
		return sizesHasHeader
	}
	r := w.foreignRep(peer)
	if r == nil {
		return 0
	}
	s := uint8(sizesHeader)
	if sameSizes(r, &w.rep) {
		return s
	}
	s |= sizesDiffer
	if r.Long == 4 {
		s |= sizesLong4
	}
	if r.Wchar == 2 {
		s |= sizesWchar2
	}
	return s
}

// ReceiverBytes is n bytes of a message as a probe saw them
// (Status.SenderSizes, nonzero) in this process's bytes of dt: what
// MPI_Get_count and MPI_Get_elements count in. Received as MPI_PACKED,
// a message from a process of another representation gains the
// representation header; a message that starts with one loses it when
// received typed. When the sender's C types have other sizes, a message
// that ends inside a basic element gives a count that is not whole (one
// byte more than the whole elements), so that those say MPI_UNDEFINED.
func (w *World) ReceiverBytes(n int64, sizes uint8, dt *Datatype) int64 {
	if sizes&sizesHeader != 0 {
		has := sizes&sizesDiffer == 0 && sizes&sizesLong4 != 0
		switch {
		case isPackedType(dt) && has:
			return n
		case isPackedType(dt):
			return n + PackHeaderSize
		case has:
			return max(n-PackHeaderSize, 0)
		}
		sizes &^= sizesHeader
	}
	if sizes == 0 {
		return n
	}
	r := Rep{Long: 8, Wchar: 4}
	if sizes&sizesLong4 != 0 {
		r.Long = 4
	}
	if sizes&sizesWchar2 != 0 {
		r.Wchar = 2
	}
	per := int64(dt.repSize(&r))
	if per == 0 || n < 0 {
		return n
	}
	out, rem := n/per*int64(dt.size), n%per
	dt.eachSig(1, func(pre *Datatype, k int) bool {
		for range k {
			for _, c := range hcomps[pre] {
				s := int64(c.sizeIn(&r))
				if rem < s {
					if rem > 0 {
						out++
					}
					return false
				}
				rem -= s
				out += int64(c.sizeIn(&w.rep))
			}
		}
		return true
	})
	return out
}
