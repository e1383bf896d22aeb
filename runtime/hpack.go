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
	if c.MixedReps() {
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
