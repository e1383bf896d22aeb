package shm

import mpirt "gmpi/runtime"

// Segment layout. Each rank creates one segment, /dev/shm/gmpi-<job>-<rank>,
// and is the only consumer of every ring in it; ring i carries frames from
// the i-th local peer (the producer whose world rank is in descriptor i) to
// the owner. All offsets are in bytes; all counters are little-endian host
// words accessed with sync/atomic.
//
//	0              control line (written once by the owner, before barrier 1)
//	  +0   u64  magic "gmpishm" + version
//	  +8   u32  number of rings n
//	  +16  u64  ring capacity R (power of two)
//	  +24  u64  owner's world rank
//	  +32  u32  closed: owner called Close (producers stop waiting for space)
//	  +40  f64  copy probe (probe.go; lowest local rank only, written
//	  +48  f64    before barrier 2, +56 last and nonzero when valid):
//	  +56  f64    ns/byte of memmove, of process_vm_readv, fixed ns
//	64             doorbell line: the words of the owner's mpirt.FutexWaker
//	  +0   u32  event count (producers add 1 after each frame they publish)
//	  +4   u32  sleepers
//	128 + 64*i     descriptor of ring i, one line each
//	  +0   u64  head: bytes consumed so far (monotonic; written by the owner)
//	  +8   u32  wantSpace: the producer sleeps until head moves
//	  +16  u64  producer's world rank
//	C = roundup(128 + 64*n, page)
//	C + R*i        data of ring i, R bytes
//
// A ring is a byte array of capacity R holding variable-size records; each
// record starts on a 64-byte line and is a whole number of lines:
//
//	 0      8                  8+HeaderSize             rec = roundup(8+HeaderSize+len, 64)
//	 +------+------------------+------------------------+---------+
//	 | ctl  | mpirt.Header     | payload (len bytes)    | padding |
//	 +------+------------------+------------------------+---------+
//
//	ctl = 0                  nothing published here yet
//	ctl = ctlValid | len     a record; the consumer advances by rec
//	ctl = ctlSkip            the rest of the ring is unused this lap; the
//	                         next record is at offset 0
//	ctl = ctlValid | ctlPartial | done<<32 | len
//	                         a record being written (a pipelined send,
//	                         express.c): its header and the first done
//	                         bytes of its payload are there; the producer
//	                         stores ctl again as it writes, and last
//	                         ctlValid | len. A reader that knows where
//	                         the payload goes (the express lane's blocking
//	                         receive) copies the part that is there, so
//	                         its copy out overlaps the producer's copy in;
//	                         every other reader waits for the whole record
//	                         (Poll treats it as not yet published).
//
// With HeaderSize 48, a frame with up to 8 bytes of payload is exactly one
// cache line. The producer's position (tail) is private to the producer:
// the consumer learns of a record from its ctl word, so on the fast path it
// touches only the record's own lines. This works because of one invariant:
// every line of the ring that holds no published, unconsumed record starts
// with a zero word. The consumer keeps it by zeroing the first word of each
// line of a record (and a skip marker) it consumed, before it makes that
// space available by publishing head; the ring starts zeroed. The producer
// publishes a record's ctl word only after the header and payload are
// written; a wrap publishes the record at offset 0 before the skip marker
// that leads there. (Zeroing on the consumer side keeps the producer off
// the line the consumer polls next: a message costs one line transfer.)
//
// The consumer publishes head lazily: after a quarter of the ring, or at
// once when the producer says it waits for space (wantSpace).
//
// Space: the producer needs rec (plus the skipped tail of the ring when the
// record does not fit before the end) plus one free line. With
// MaxPayload = R/4 a record is at most R/4+64 bytes, so the worst case
// (skip + record + line) is under R/2+192 bytes and an empty ring always
// has room: a frame always fits eventually.
const (
	lineSize = 64
	magic    = 0x01_6d_68_73_69_70_6d_67 // "gmpishm" + version 1

	offMagic     = 0
	offNRings    = 8
	offRingBytes = 16
	offOwner     = 24
	offClosed    = 32
	offProbeMem  = 40
	offProbeCMA  = 48
	offProbeSys  = 56
	offEpoch     = 64
	offWaiters   = 68
	offDesc      = 128

	descHead     = 0
	descWant     = 8
	descProducer = 16

	// ctrlKeep is how much of the first page Close preserves for the Waker.
	ctrlKeep = offDesc

	recHdr     = 8 + uint64(mpirt.HeaderSize) // ctl word + header
	ctlValid   = uint64(1) << 63
	ctlSkip    = uint64(1) << 62
	ctlPartial = uint64(1) << 61
	ctlLen     = uint64(1)<<32 - 1
)

// Ring sizes.
const (
	// DefaultRingBytes is the per-pair ring capacity when neither
	// Config.RingBytes nor GMPI_SHM_RING says otherwise, as long as the
	// segment stays within segmentBudget.
	DefaultRingBytes = 1 << 20
	// DefaultFrameBytes caps MaxPayload unless GMPI_SHM_FRAME says
	// otherwise (a quarter of the ring is the hard limit).
	DefaultFrameBytes = 64 << 10
	// MinRingBytes and MaxRingBytes bound a configured capacity.
	MinRingBytes = 4 << 10
	MaxRingBytes = 1 << 30
	// segmentBudget caps the default segment size: with many local peers
	// the default ring shrinks (not below minDefaultRing) so a host with
	// 64 ranks does not ask /dev/shm for 1 GiB.
	segmentBudget  = 8 << 20
	minDefaultRing = 64 << 10
)

// recSize is the size in bytes of the record carrying n payload bytes.
func recSize(n uint64) uint64 { return (recHdr + n + lineSize - 1) &^ (lineSize - 1) }

// segLayout computes the control size and total size of a segment.
func segLayout(nrings int, ringBytes uint64, page int) (ctrl, total uint64) {
	p := uint64(page)
	ctrl = (offDesc + lineSize*uint64(nrings) + p - 1) / p * p
	return ctrl, ctrl + uint64(nrings)*ringBytes
}
