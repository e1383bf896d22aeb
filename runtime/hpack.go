package mpirt

import (
	"bytes"
	"unsafe"
)

// MPI_PACKED across data representations (issue 21). MPI_Pack writes the
// packer's representation: a buffer packed for a communicator whose
// processes differ in representation starts with a header naming it, so
// MPI_Unpack on a machine of another kind converts what it reads (as
// MPICH-G2 did). Communicators of one representation pack exactly as
// before: no header, no extra byte (MPI_Pack_size unchanged).
//
// The header is PackHeaderSize bytes at position 0 of the buffer: the
// magic "gmpiPK", then the representation (byte order, long double
// format, sizeof(long), sizeof(wchar_t)) in one byte each. MPI_Pack at
// position 0 writes it; every later MPI_Pack or MPI_Unpack into or from
// the same buffer (position > 0) reads it at the buffer's start.

// PackHeaderSize is the size of the representation header of a packed
// buffer on a communicator of mixed representations.
const PackHeaderSize = 10

var packMagic = []byte("gmpiPK")

// encodeRep is the header form of r (the bytes after the magic).
func encodeRep(r *Rep) [4]byte {
	var b [4]byte
	if r.BigEndian {
		b[0] = 1
	}
	b[1] = byte(r.LongDouble)
	b[2] = byte(r.Long)
	b[3] = byte(r.Wchar)
	return b
}

// decodeRep reads the header at the start of buf; ok is false when buf
// does not start with one (packed without a header) or it is malformed.
func decodeRep(buf []byte) (r Rep, ok bool) {
	if len(buf) < PackHeaderSize || !bytes.Equal(buf[:len(packMagic)], packMagic) {
		return Rep{}, false
	}
	b := buf[len(packMagic):PackHeaderSize]
	if b[0] > 1 || b[1] > byte(LongDoubleBinary128) || (b[2] != 4 && b[2] != 8) || (b[3] != 2 && b[3] != 4) {
		return Rep{}, false
	}
	return Rep{BigEndian: b[0] == 1, LongDouble: LongDoubleFormat(b[1]), Long: int(b[2]), Wchar: int(b[3])}, true
}

// PackHeader is the size of the header MPI_Pack writes at position 0 of
// a buffer packed for c: PackHeaderSize when c spans representations,
// else 0.
func (c *Comm) PackHeader() int {
	if c.MixedReps() {
		return PackHeaderSize
	}
	return 0
}

// PackFor is MPI_Pack for communicator c: count elements of dt at p are
// packed into buf (the whole user buffer) at *pos, after the header when
// *pos is 0 and c spans representations. The only error is a buffer too
// small (ErrArg, with the bytes needed).
func (c *Comm) PackFor(buf []byte, pos *int64, p unsafe.Pointer, count int, dt *Datatype) error {
	n := int64(count) * int64(dt.size)
	start := *pos
	if *pos == 0 && c.MixedReps() {
		start = PackHeaderSize
	}
	if start < 0 || start+n > int64(len(buf)) {
		return Errorf(ErrArg, "", "invalid argument outsize: %d bytes from position %d do not fit in %d", start-*pos+n, *pos, len(buf))
	}
	if start != *pos {
		copy(buf, packMagic)
		h := encodeRep(&c.w.rep)
		copy(buf[len(packMagic):], h[:])
	}
	*pos = start + int64(dt.Pack(buf[start:start+n], p, count))
	return nil
}

// UnpackFor is MPI_Unpack for communicator c: count elements of dt into
// p from buf (the whole user buffer) at *pos. A buffer that starts with a
// representation header (packed for a communicator of mixed
// representations) is read in that representation: converted when it is
// not this process's. A short buffer is MPI_ERR_TRUNCATE.
func (c *Comm) UnpackFor(buf []byte, pos *int64, p unsafe.Pointer, count int, dt *Datatype) error {
	start := *pos
	from := &c.w.rep
	if c.w.reps != nil {
		if r, ok := decodeRep(buf); ok {
			if start == 0 {
				start = PackHeaderSize
			}
			if r != c.w.rep {
				from = &r
			}
		}
	}
	n := int64(count) * int64(dt.size)
	if from != &c.w.rep && !sameSizes(from, &c.w.rep) {
		n = int64(count) * int64(dt.repSize(from))
	}
	if start < 0 || start+n > int64(len(buf)) {
		return Errorf(ErrTruncate, "", "message truncated: unpacking %d bytes from position %d of a %d-byte buffer", n, *pos, len(buf))
	}
	in := buf[start : start+n]
	if from == &c.w.rep {
		*pos = start + int64(dt.Unpack(p, in, count))
		return nil
	}
	tmp := make([]byte, count*dt.size)
	used, produced, err := ConvertPacked(dt, count, tmp, in, from, &c.w.rep)
	dt.Unpack(p, tmp[:produced], count)
	*pos = start + int64(used)
	return err
}

// Packed messages between representations. A message of MPI_PACKED
// whose buffer starts with a header (packed here or elsewhere and
// forwarded) goes out whole, marked FlagPacked: a typed receive drops
// the header and converts from the representation it names (copies when
// it is the receiver's); an MPI_PACKED receive keeps it, so it gets the
// bytes that were sent, on any machine. A typed message from a machine
// of another representation received as MPI_PACKED gets the sender's
// header in front, so that MPI_Unpack reads it right (the standard lets
// any message be received as MPI_PACKED): such a receive needs room for
// PackHeaderSize bytes more than the message (MPI_Pack_size on a
// communicator of mixed representations counts them; so does
// MPI_Get_count(MPI_PACKED) of a probe).

// modePacked is a SendMode bit: the payload starts with a representation
// header (FlagPacked).
const modePacked SendMode = 0x80

// isPackedType reports whether dt is MPI_PACKED.
func isPackedType(dt *Datatype) bool { return dt != nil && dt.Handle == TypePacked }

// sendData is sendView for a send: count elements of dt at p as bytes,
// and the mode bits the send adds (modePacked or 0). Only MPI_PACKED
// sends in a job of several representations do any work here.
func (w *World) sendData(p unsafe.Pointer, count int, dt *Datatype) ([]byte, SendMode) {
	buf := sendView(p, count, dt)
	if w.reps == nil || dt.Handle != TypePacked {
		return buf, 0
	}
	return w.packedPayload(buf)
}

// packedPayload is what a packed buffer sends: a buffer that starts with
// a header goes whole and marked, so that an MPI_PACKED receive anywhere
// gets the bytes sent (MPI_Get_count counts what the sender sent, as in
// a homogeneous job) and a typed one drops the header.
func (w *World) packedPayload(buf []byte) ([]byte, SendMode) {
	if _, ok := decodeRep(buf); !ok {
		return buf, 0
	}
	return buf, modePacked
}

// putHeader writes the representation header of r at the start of buf
// (at least PackHeaderSize bytes).
func putHeader(buf []byte, r *Rep) {
	copy(buf, packMagic)
	h := encodeRep(r)
	copy(buf[len(packMagic):PackHeaderSize], h[:])
}

// intoPacked completes receive r of MPI_PACKED with data, message h
// (all of it unless the receive is too short) in representation from:
// the header naming from, then the data. A receive without room for both
// is MPI_ERR_TRUNCATE.
func (w *World) intoPacked(r *Request, from *Rep, h *Header, data []byte) {
	r.Err, r.Status.Error = nil, 0
	total := h.Len + PackHeaderSize
	if total > uint64(len(r.buf)) {
		r.Status.Error = ErrTruncate
		r.Err = Errorf(ErrTruncate, "", "message of %d bytes from rank %d (tag %d), %d with the sender's representation header as MPI_PACKED, truncated to the %d-byte receive buffer",
			h.Len, h.Source, h.Tag, total, len(r.buf))
	}
	if len(r.buf) < PackHeaderSize {
		r.Status.Count = 0
		return
	}
	putHeader(r.buf, from)
	n := copy(r.buf[PackHeaderSize:], data[:min(uint64(len(data)), h.Len)])
	r.Status.Count = int64(PackHeaderSize + n)
}

// fromPacked completes typed receive r with data, message h whose
// payload starts with a representation header (FlagPacked): the rest is
// converted from the representation the header names (copied when it is
// this process's).
func (w *World) fromPacked(r *Request, h *Header, data []byte) {
	rep, ok := decodeRep(data)
	if !ok || h.Len < PackHeaderSize {
		r.Status.Error = ErrOther
		r.Err = Errorf(ErrOther, "", "packed message from rank %d (tag %d) has no valid data representation header", h.Source, h.Tag)
		r.Status.Count = 0
		return
	}
	hdr := *h
	hdr.Len -= PackHeaderSize
	data = data[PackHeaderSize:]
	if rep != w.rep {
		w.convertInto(r, &rep, &hdr, data)
		return
	}
	r.Err, r.Status.Error = nil, 0
	if hdr.Len > uint64(len(r.buf)) {
		r.Status.Error = ErrTruncate
		r.Err = Errorf(ErrTruncate, "", "message of %d bytes from rank %d (tag %d) truncated to the %d-byte receive buffer",
			hdr.Len, h.Source, h.Tag, len(r.buf))
	}
	r.Status.Count = int64(copy(r.buf, data[:min(uint64(len(data)), hdr.Len)]))
}
