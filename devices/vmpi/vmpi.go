// Package vmpi is gmpi's passthrough to a vendor MPI (MPICH-G2's vMPI):
// the processes of a grid machine that has its own MPI are started by the
// vendor's launcher as one vendor job, and the frames between them travel
// over the vendor's point-to-point calls.
//
// The vendor library is loaded with dlopen(RTLD_NOW | RTLD_LOCAL |
// RTLD_DEEPBIND): the vendor and gmpi both define MPI_*, and neither binds
// to the other's. Its entry points are called through function pointers
// (shim.c), with the vendor's own handle and status types: MPICH's
// integer handles (libmpich.so.12) and Open MPI's pointer handles
// (libmpi.so.40, whose predefined objects are fetched with dlsym).
//
// Wire: the device owns a duplicate of the vendor's MPI_COMM_WORLD. Every
// frame is one vendor message with tag tagFrame: a 16-byte prefix
// (payload length, and whether the payload is inline), the runtime's
// Header, and the payload when it is at most inlineMax bytes. A larger
// payload follows as tagBody message(s) straight from the caller's buffer,
// and the receiver reads it straight into the matched receive buffer
// (rendezvous data, through the runtime's DataSink) or into a scratch
// buffer (eager data). The vendor's non-overtaking rule on (source, tag,
// communicator) keeps frames in order per pair and pairs each header with
// its body. Matching stays the runtime's: the vendor only moves frames.
//
// Rendezvous data goes around the frames (postBody, sendBody): before
// a CTS leaves, the receiver posts the message's bytes as vendor
// receives straight into the matched receive's buffer, with a tag of
// their own in [tagDirectMin, tagDirectMax] carried in the CTS's
// prefix, and the sender hands its buffer to the vendor's send with
// that tag; Poll completes the receive as the data frame it replaces.
// So the vendor moves the body into a receive that is already posted.
// Earlier still (startEarly): the sender hands the body to the vendor's
// send as its RTS leaves, with a tag of its own in the RTS's prefix,
// and the receiver posts that receive with the CTS (postEarly), so the
// vendor's own rendezvous starts without waiting for the CTS to cross
// back; the data frame only waits for the vendor. This is the default
// whenever the runtime gives the send's buffer (DataSource); the CTS
// way remains for single-copy RTSs and when no tag is free.
//
// Progress, MPICH-G2's cases: one receive for tagFrame from
// MPI_ANY_SOURCE is always posted in the vendor, and Poll tests it.
// Nothing rings the Waker when a vendor message arrives, so the device
// says MustPoll and a waiting thread never sleeps: a blocking receive
// from a vendor peer with nothing else pending is a tight loop of vendor
// tests (the shm and tcp polls in it cost an atomic load each); with
// other requests pending the same loop advances them too; with
// MPI_ANY_SOURCE or tcp peers the tcp goroutines deliver on their own
// while the loop polls the vendor. A body is read with the vendor's
// blocking receive (its header arrived, the body is on its way). The
// posted receive lives in the shim (vmpi_frame_*): Poll reposts the
// previous frame's receive and tests for the next in one call.
//
// The specified case without Go (capi's express lane, express.h): below
// MPI_THREAD_MULTIPLE, MPI_Send of a small message to a vendor peer
// builds the frame on the C stack and sends it with the vendor's
// blocking send (vmpi_send_small; Go's Send does the same for payloads
// up to VMPI_SMALL), and MPI_Recv from a vendor peer (or MPI_ANY_SOURCE)
// with nothing posted or unexpected in the matching engine tests the
// posted frame receive itself (vmpi_frame_peek), copies a frame the
// engine would have matched to it into the user's buffer and reposts
// (vmpi_frame_take); any other frame stays for Poll, and the call goes
// the Go way.
//
// Collectives (mpirt.VendorColls): coll/hier hands the part of a
// blocking barrier, bcast, reduce or allreduce that falls inside the
// vendor job to the vendor's own collective, over a vendor communicator
// of the group's processes (MPI_Comm_create_group, so only they take
// part). The call is the vendor's nonblocking form, completed by testing
// it while gmpi progresses everything else (a peer may need this
// process's help before it joins). Datatypes and operations are the
// predefined ones the shim maps (MPICH's handle values are gmpi's; Open
// MPI's are its exported objects); others stay with gmpi's algorithms.
//
// Failures: a vendor call that moves frames and fails inside Poll (the
// posted receive, a body) loses every vendor peer with that error
// (FailureReporter): their requests fail with it; nothing panics.
//
// Threads: the vendor is initialized at MPI_THREAD_SERIALIZED (or
// better) and every vendor call is made under one mutex; Init and Close
// run on the thread of MPI_Init and MPI_Finalize.
package vmpi

// #cgo LDFLAGS: -ldl
//
// /* The calls a waiting thread makes in a loop keep no pointer to the Go
//  * memory they are given past their return (the vendor keeps only the
//  * buffers of vmpi_isend and vmpi_irecv, which are not listed) and never
//  * call Go: without noescape, cgo moves every flag and count they write
//  * to the heap, and that garbage kept the collector running (its workers
//  * and sweeper took the cores the ranks spin on; bench/README.md). */
// #cgo noescape vmpi_test
// #cgo nocallback vmpi_test
// #cgo noescape vmpi_wait
// #cgo nocallback vmpi_wait
// #cgo noescape vmpi_recv
// #cgo nocallback vmpi_recv
// #cgo noescape vmpi_frame_next
// #cgo nocallback vmpi_frame_next
// #cgo noescape vmpi_send_small_fields
// #cgo nocallback vmpi_send_small_fields
// #cgo noescape vmpi_cancel
// #cgo nocallback vmpi_cancel
// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gmpi/devices/vmpi/vendorlib"
	mpirt "gmpi/runtime"
)

// ABI is the vendor library's binary interface (the shim's VMPI_ABI_*
// values are vendorlib's).
type ABI = vendorlib.ABI

// Vendor tags on the device's communicator.
const (
	tagFrame = 1
	tagBody  = 2
	// Direct bodies (see Device.postBody) take tags from this range, one
	// per transfer in flight from a peer (every MPI guarantees tags up to
	// 32767): the receiver picks them in [tagDirectMin, tagEarlyMin), the
	// sender of an early body (startEarly) in [tagEarlyMin, tagDirectMax].
	tagDirectMin = 3
	tagEarlyMin  = 16384
	tagDirectMax = 32767
)

const (
	prefixSize = 16
	// inlineMax is the largest payload carried inside the frame message.
	inlineMax = 16 << 10
	// bodyChunk is the largest body message (vendor counts are int).
	bodyChunk = 1 << 30
	frameCap  = prefixSize + mpirt.HeaderSize + inlineMax
	// pollBudget bounds the frames one Poll delivers.
	pollBudget = 32
	// directChunks bounds the vendor messages of one direct body.
	directChunks = 8
)

// Vendor is a loaded and initialized vendor MPI library (one per process).
type Vendor struct {
	ABI        ABI
	Rank, Size int // this process's rank and the size of the vendor job
	Thread     int // thread level the vendor provides
}

var loaded struct {
	sync.Mutex
	v *Vendor
}

// Init loads the vendor library at lib and initializes it. machine names
// the grid machine for messages. env lists the environment the vendor's
// launcher gave the process that gmpi's launcher moved aside ("NAME=VALUE"
// entries; see mpirun's vmpi-exec), restored before the vendor starts;
// clear lists variables to remove first (gmpi's own PMI variables, which
// the vendor would otherwise read as its launcher's).
func Init(machine, lib string, clear, env []string) (*Vendor, error) {
	loaded.Lock()
	defer loaded.Unlock()
	if loaded.v != nil {
		return loaded.v, nil
	}
	if _, err := vendorlib.Inspect(lib); err != nil {
		return nil, fmt.Errorf("machine %s: vendor MPI: %v", machine, err)
	}
	cpath := C.CString(lib)
	defer C.free(unsafe.Pointer(cpath))
	var ebuf [1024]C.char
	abi := C.vmpi_open(cpath, &ebuf[0], C.int(len(ebuf)))
	if abi == C.VMPI_ABI_NONE {
		return nil, fmt.Errorf("machine %s: vendor MPI: %s", machine, C.GoString(&ebuf[0]))
	}
	for _, k := range clear {
		setenv(k, nil)
	}
	for _, kv := range env {
		for i := 0; i < len(kv); i++ {
			if kv[i] == '=' {
				v := kv[i+1:]
				setenv(kv[:i], &v)
				break
			}
		}
	}
	spareP()
	var provided, rank, size C.int
	if rc := C.vmpi_init(2, &provided, &rank, &size); rc != 0 {
		return nil, fmt.Errorf("machine %s: vendor MPI %s: MPI_Init_thread: %s", machine, lib, errorString(rc))
	}
	if provided < 2 {
		C.vmpi_finalize()
		return nil, fmt.Errorf("machine %s: vendor MPI %s provides thread level %d, gmpi needs MPI_THREAD_SERIALIZED", machine, lib, int(provided))
	}
	loaded.v = &Vendor{ABI: ABI(abi), Rank: int(rank), Size: int(size), Thread: int(provided)}
	return loaded.v, nil
}

// minProcs is the fewest Ps (GOMAXPROCS) a process with a vendor MPI
// runs with, unless GOMAXPROCS is set.
const minProcs = 4

// spareP keeps a P idle for the thread in a long vendor call. The vendor
// moves a large message inside one call (Open MPI's single copy runs in
// the receiver's MPI_Test), during which that thread's P is in a system
// call; with no other P idle, Go's sysmon may take it away, and the
// thread must get one back when the call returns, waking and parking
// threads on the cores the ranks spin on. Measured on a 2-core host: 4
// MiB ping-pongs between two vendor ranks took 370-400 us (median) with
// the default GOMAXPROCS (2) and 310 us with 4 (bench/README.md).
func spareP() {
	if os.Getenv("GOMAXPROCS") == "" && runtime.GOMAXPROCS(0) < minProcs {
		runtime.GOMAXPROCS(minProcs)
	}
}

func setenv(k string, v *string) {
	ck := C.CString(k)
	defer C.free(unsafe.Pointer(ck))
	if v == nil {
		C.vmpi_setenv(ck, nil)
		return
	}
	cv := C.CString(*v)
	defer C.free(unsafe.Pointer(cv))
	C.vmpi_setenv(ck, cv)
}

func errorString(rc C.int) string {
	var buf [1024]C.char
	C.vmpi_error_string(rc, &buf[0], C.int(len(buf)))
	return fmt.Sprintf("%s (code %d)", C.GoString(&buf[0]), int(rc))
}

// Config describes the device's peers.
type Config struct {
	Vendor *Vendor
	// Rank and Size are this process's world rank and the world size.
	Rank, Size int
	// VendorRank maps world rank to vendor rank for every peer the device
	// reaches (the other processes of the vendor job).
	VendorRank map[int]int
}

// Device carries frames among the processes of one vendor job.
type Device struct {
	cfg   Config
	grank []int // vendor rank -> world rank (-1: not a peer)
	vrank []int // world rank -> vendor rank (-1: not a peer)

	mu   sync.Mutex // every vendor call
	pmu  sync.Mutex // the poller: one at a time, so frames are handed over in order
	h    mpirt.Handler
	sink mpirt.DataSink

	rbuf    unsafe.Pointer // C memory: the posted tagFrame receive's buffer (shim.c's vmpi_frame_*)
	posted  bool           // the frame receive is in place (under pmu)
	scratch []byte         // eager bodies (under pmu)
	rxHdr   mpirt.Header   // the header handed to the Handler (under pmu; a local would escape)

	packs []unsafe.Pointer // free C buffers for outgoing frames (under mu)

	closed bool // Close finalized the vendor (under mu)

	failed func(peer int, err error) // the runtime's (FailureReporter)
	broken error                     // the vendor failed: no more traffic (under pmu)

	// Direct bodies (postBody), under mu: the receives posted here
	// (bodies, counted in nbodies for Poll's fast check), the next tag to
	// try per vendor source, and on the sending side the bodies peers
	// posted for us, by CTS.
	bodies   []*body
	nbodies  atomic.Int32
	nextTag  []int32
	directTo map[directKey]directBody

	// Early bodies (startEarly), under mu. Sending side: the vendor
	// sends started with an RTS, by SendID, and the tags they hold
	// (per destination vendor rank, until the receiver posted the
	// body). Receiving side: the early bodies announced by RTS frames
	// whose receive is not posted yet, by (world rank, SendID).
	source    mpirt.DataSource
	earlyOut  map[uint64]*early
	earlyUsed map[earlyTag]struct{}
	nextEarly []int32
	earlyIn   map[directKey]earlyIn
}

// early is a rendezvous message's data handed to the vendor's send with
// its RTS (startEarly), before any CTS.
type early struct {
	dest C.int // vendor rank
	tag  int32
	reqs [directChunks]C.uint64_t
	nreq int
	pin  runtime.Pinner
}

// earlyTag is a tag an early body to vendor rank dest holds.
type earlyTag struct {
	dest int
	tag  int32
}

// earlyIn is an early body announced by an RTS: its tag and length.
type earlyIn struct {
	tag int32
	len uint64
}

// body is a rendezvous message's data posted as vendor receives straight
// into the matched receive's buffer before its CTS went out.
type body struct {
	src    int // vendor rank
	tag    int32
	ctx    uint32
	recvID uint64
	dst    []byte
	reqs   [directChunks]C.uint64_t
	nreq   int
	next   int // reqs[:next] completed
	pin    runtime.Pinner
}

// directKey names a rendezvous whose receiver posted a direct body: the
// receiver's world rank and its request id (the CTS's RecvID).
type directKey struct {
	peer   int
	recvID uint64
}

type directBody struct {
	tag   int32
	len   uint64
	early *early // the data already went with the RTS (startEarly)
}

var (
	_ mpirt.Device          = (*Device)(nil)
	_ mpirt.DataSinkUser    = (*Device)(nil)
	_ mpirt.DataSourceUser  = (*Device)(nil)
	_ mpirt.FailureReporter = (*Device)(nil)
)

// SetFailureHandler receives the runtime's entry point for lost peers.
func (d *Device) SetFailureHandler(f func(peer int, err error)) { d.failed = f }

// fail records that the vendor broke (a call that moves frames failed):
// every vendor peer is lost with err, once, and the device stops
// receiving. Must hold d.pmu.
func (d *Device) fail(err error) {
	if d.broken != nil {
		return
	}
	d.broken = err
	// The direct bodies' receives will not complete: withdraw them (no
	// wait on a vendor that failed). Their requests fail with the peers.
	d.mu.Lock()
	for _, b := range d.bodies {
		for i := b.next; i < b.nreq; i++ {
			C.vmpi_cancel(&b.reqs[i])
		}
		b.pin.Unpin()
	}
	d.bodies = nil
	d.nbodies.Store(0)
	d.dropEarlyOutLocked()
	d.mu.Unlock()
	if d.failed == nil {
		return
	}
	for _, w := range d.Peers() {
		d.failed(w, err)
	}
}

// New builds the device over an initialized vendor.
func New(cfg Config) (*Device, error) {
	v := cfg.Vendor
	if v == nil {
		return nil, fmt.Errorf("vmpi: no vendor MPI")
	}
	d := &Device{cfg: cfg, grank: make([]int, v.Size), vrank: make([]int, cfg.Size),
		nextTag: make([]int32, v.Size), directTo: make(map[directKey]directBody),
		earlyOut: make(map[uint64]*early), earlyUsed: make(map[earlyTag]struct{}),
		nextEarly: make([]int32, v.Size), earlyIn: make(map[directKey]earlyIn)}
	for i := range d.grank {
		d.grank[i] = -1
	}
	for i := range d.vrank {
		d.vrank[i] = -1
	}
	for w, vr := range cfg.VendorRank {
		if w < 0 || w >= cfg.Size || vr < 0 || vr >= v.Size || vr == v.Rank || d.grank[vr] >= 0 {
			return nil, fmt.Errorf("vmpi: bad rank map %d -> %d (vendor job of %d, vendor rank %d)", w, vr, v.Size, v.Rank)
		}
		d.grank[vr], d.vrank[w] = w, vr
	}
	return d, nil
}

// Name is "vmpi".
func (d *Device) Name() string { return "vmpi" }

// MaxPayload: bodies of any size travel in chunks.
func (d *Device) MaxPayload() int { return 1 << 40 }

// EagerLimit is the runtime's threshold towards the vendor's peers: 0
// keeps the world's.
func (d *Device) EagerLimit() int { return 0 }

// MustPoll reports that frames arrive only when Poll runs (no Waker).
func (d *Device) MustPoll() bool { return true }

// SetDataSink receives the runtime's sink for rendezvous data.
func (d *Device) SetDataSink(s mpirt.DataSink) { d.sink = s }

// SetDataSource receives the runtime's source of rendezvous sends' data.
func (d *Device) SetDataSource(s mpirt.DataSource) { d.source = s }

// Start posts the frame receive.
func (d *Device) Start(h mpirt.Handler) error {
	d.h = h
	d.rbuf = C.malloc(C.size_t(frameCap))
	d.mu.Lock()
	defer d.mu.Unlock()
	if rc := C.vmpi_frame_start(d.rbuf, C.int(frameCap)); rc != 0 {
		return fmt.Errorf("vmpi: MPI_Irecv: %s", errorString(rc))
	}
	d.posted = true
	return nil
}

// Send transmits one frame, waiting (and polling) until the vendor is done
// with payload.
func (d *Device) Send(peer int, hdr mpirt.Header, payload []byte) error {
	if peer < 0 || peer >= len(d.vrank) || d.vrank[peer] < 0 {
		return fmt.Errorf("vmpi: rank %d is not in this vendor job", peer)
	}
	dest := C.int(d.vrank[peer])
	btag := 0
	var e *early
	switch hdr.Kind {
	case mpirt.FrameRTS:
		if e = d.startEarly(dest, &hdr); e != nil {
			btag = int(e.tag)
		}
	case mpirt.FrameCTS:
		if ei, ok := d.takeEarlyIn(peer, hdr.SendID); ok {
			if btag = d.postEarly(int(dest), &hdr, ei); btag == 0 {
				return fmt.Errorf("vmpi: cannot post the receive of rank %d's %d-byte message", peer, ei.len)
			}
		} else {
			btag = d.postBody(int(dest), &hdr)
		}
	case mpirt.FrameCancelAck:
		if ei, ok := d.takeEarlyIn(peer, hdr.SendID); ok && hdr.Len != 0 {
			// The message is withdrawn: its early body is received
			// (and dropped) before the sender hears so, so that its
			// send is done with the buffer when the cancel completes.
			if err := d.drainEarly(peer, dest, ei); err != nil {
				return err
			}
		}
	case mpirt.FrameData:
		if db, ok := d.takeDirect(peer, hdr.RecvID); ok {
			if hdr.Offset != 0 || uint64(len(payload)) != db.len {
				return fmt.Errorf("vmpi: %d bytes at offset %d for rank %d's direct body of %d bytes", len(payload), hdr.Offset, peer, db.len)
			}
			if db.early != nil {
				// The data went with the RTS: wait for the vendor.
				return d.finishEarly(db.early)
			}
			return d.sendBody(peer, dest, db.tag, payload)
		}
	}
	if len(payload) <= C.VMPI_SMALL {
		// One call: the frame is built on the C stack and sent with the
		// vendor's blocking send (eager at this size).
		w := (*[6]uint64)(unsafe.Pointer(&hdr))
		var p unsafe.Pointer
		if len(payload) > 0 {
			p = unsafe.Pointer(unsafe.SliceData(payload))
		}
		d.mu.Lock()
		rc := C.vmpi_send_small_fields(dest, C.uint64_t(w[0]), C.uint64_t(w[1]), C.uint64_t(w[2]), C.uint64_t(w[3]),
			C.uint64_t(w[4]), C.uint64_t(w[5]), p, C.int(len(payload)), C.int(btag))
		if rc != 0 && btag != 0 {
			if e != nil {
				d.dropEarlyLocked(e)
				delete(d.earlyOut, hdr.SendID)
			} else {
				d.withdrawLocked(int(dest), int32(btag))
			}
		}
		d.mu.Unlock()
		if rc != 0 {
			return fmt.Errorf("vmpi: MPI_Send to rank %d: %s", peer, errorString(rc))
		}
		return nil
	}
	inline := len(payload) <= inlineMax
	d.mu.Lock()
	pack := d.packLocked()
	d.mu.Unlock()
	buf := unsafe.Slice((*byte)(pack), frameCap)
	binary.LittleEndian.PutUint64(buf[0:], uint64(len(payload)))
	n := prefixSize + mpirt.HeaderSize
	if inline {
		binary.LittleEndian.PutUint32(buf[8:], 1)
		n += copy(buf[n:], payload)
	} else {
		binary.LittleEndian.PutUint32(buf[8:], 0)
	}
	binary.LittleEndian.PutUint32(buf[12:], uint32(btag))
	*(*mpirt.Header)(unsafe.Pointer(&buf[prefixSize])) = hdr

	var pin runtime.Pinner
	defer pin.Unpin()
	var reqs [1 + 8]C.uint64_t // the frame, then body chunks
	nreq := 0
	var err error
	d.mu.Lock()
	if rc := C.vmpi_isend(pack, C.int(n), dest, tagFrame, &reqs[0]); rc != 0 {
		err = fmt.Errorf("vmpi: MPI_Isend to rank %d: %s", peer, errorString(rc))
	} else {
		nreq = 1
	}
	var body []byte
	if !inline && err == nil {
		body = payload
		pin.Pin(unsafe.SliceData(payload))
	}
	for err == nil && len(body) > 0 && nreq < len(reqs) {
		c := min(len(body), bodyChunk)
		if rc := C.vmpi_isend(unsafe.Pointer(unsafe.SliceData(body)), C.int(c), dest, tagBody, &reqs[nreq]); rc != 0 {
			err = fmt.Errorf("vmpi: MPI_Isend to rank %d: %s", peer, errorString(rc))
			break
		}
		nreq++
		body = body[c:]
	}
	d.mu.Unlock()
	if err == nil && len(body) > 0 {
		err = fmt.Errorf("vmpi: a payload of %d bytes is too large", len(payload))
	}
	if werr := d.wait(reqs[:nreq]); werr != nil {
		return werr
	}
	d.mu.Lock()
	d.packs = append(d.packs, pack)
	d.mu.Unlock()
	return err
}

// wait completes the vendor send requests reqs, polling meanwhile (the
// peer may be sending to us at the same time).
//
// It yields the core only after spinYield of polls that found nothing
// (then every 16th): the vendor alone spins in its wait without
// yielding, and on a busy machine a yield handed the core to another
// process for a scheduler slice just as the peer's FIN or CTS came in
// (bench/README.md).
func (d *Device) wait(reqs []C.uint64_t) error {
	var since int64
	for i, idle := 0, 0; i < len(reqs); {
		var flag, s, t, cnt C.int
		d.mu.Lock()
		rc := C.vmpi_test(&reqs[i], &flag, &s, &t, &cnt)
		d.mu.Unlock()
		if rc != 0 {
			return fmt.Errorf("vmpi: MPI_Test: %s", errorString(rc))
		}
		if flag != 0 {
			i++
			continue
		}
		if d.Poll() == 0 {
			idle++
			if idle&15 == 0 {
				now := nanotime()
				if since == 0 {
					since = now
				} else if now-since >= spinYield {
					osyield()
				}
			}
		} else {
			idle, since = 0, 0
		}
	}
	return nil
}

// postBody is the receiving side of the direct body. Before the CTS hdr
// of a rendezvous goes to vendor rank src, the message's hdr.Len bytes
// are posted as vendor receives straight into the matched receive's
// buffer (the runtime's DataSink: the user's buffer for contiguous data,
// the packed staging buffer otherwise), with a tag of their own; the CTS
// carries the tag, and the sender hands its buffer to the vendor's send
// with it (sendBody). The vendor thus moves the data between the two
// buffers into a receive that is already posted, as it does between two
// ranks of a program of its own, instead of taking it as an unexpected
// message behind a frame. Poll completes the receive (pollBodies). It
// returns the tag, or 0 when the data goes the frame way (a truncated
// receive, nothing to receive, no tag free, a vendor error).
func (d *Device) postBody(src int, hdr *mpirt.Header) int {
	n := hdr.Len
	if d.sink == nil || n == 0 || n > directChunks*bodyChunk {
		return 0
	}
	dst := d.sink(hdr.RecvID, 0, int(n))
	if dst == nil {
		return 0
	}
	return d.postBodyTag(src, hdr, dst, 0)
}

// postBodyTag posts the vendor receives of a direct body from vendor
// rank src into dst, with tag (0: a free tag of the receiver's range).
// It returns the tag, or 0 when nothing was posted.
func (d *Device) postBodyTag(src int, hdr *mpirt.Header, dst []byte, tag int32) int {
	b := &body{src: src, ctx: hdr.Context, recvID: hdr.RecvID, dst: dst, tag: tag}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return 0
	}
	if b.tag == 0 {
		if b.tag = d.bodyTagLocked(src); b.tag == 0 {
			return 0
		}
	}
	b.pin.Pin(unsafe.SliceData(dst))
	for off := 0; off < len(dst); off += bodyChunk {
		c := min(len(dst)-off, bodyChunk)
		if rc := C.vmpi_irecv(unsafe.Pointer(&dst[off]), C.int(c), C.int(src), C.int(b.tag), &b.reqs[b.nreq]); rc != 0 {
			d.dropLocked(b) // the frame way; nothing was sent for it yet
			return 0
		}
		b.nreq++
	}
	d.bodies = append(d.bodies, b)
	d.nbodies.Add(1)
	return int(b.tag)
}

// bodyTagLocked picks a tag for a direct body from vendor rank src that
// no body posted from src uses; 0 when all are taken. Must hold d.mu.
func (d *Device) bodyTagLocked(src int) int32 {
	for range tagEarlyMin - tagDirectMin {
		t := d.nextTag[src]
		if t < tagDirectMin || t >= tagEarlyMin-1 {
			d.nextTag[src] = tagDirectMin
		} else {
			d.nextTag[src] = t + 1
		}
		if t < tagDirectMin {
			t = tagDirectMin
		}
		used := false
		for _, b := range d.bodies {
			if b.src == src && b.tag == t {
				used = true
				break
			}
		}
		if !used {
			return t
		}
	}
	return 0
}

// dropLocked withdraws the posted receives of direct body b (cancelled,
// then completed). Must hold d.mu.
func (d *Device) dropLocked(b *body) {
	for i := b.next; i < b.nreq; i++ {
		var s, t, c C.int
		C.vmpi_cancel(&b.reqs[i])
		C.vmpi_wait(&b.reqs[i], &s, &t, &c)
	}
	b.nreq = b.next
	b.pin.Unpin()
}

// withdrawLocked drops the direct body posted from vendor rank src with
// tag (its CTS could not be sent). Must hold d.mu.
func (d *Device) withdrawLocked(src int, tag int32) {
	for i, b := range d.bodies {
		if b.src == src && b.tag == tag {
			d.dropLocked(b)
			d.bodies = append(d.bodies[:i], d.bodies[i+1:]...)
			d.nbodies.Store(int32(len(d.bodies)))
			return
		}
	}
}

// pollBodies hands the direct bodies that arrived to the Handler as the
// data frames they replace (the payload is the receive's own buffer, so
// the runtime only counts the bytes). Must hold d.pmu.
func (d *Device) pollBodies() int {
	var done []*body
	var err error
	d.mu.Lock()
	kept := d.bodies[:0]
	for _, b := range d.bodies {
		for err == nil && b.next < b.nreq {
			var flag, s, t, c C.int
			if rc := C.vmpi_test(&b.reqs[b.next], &flag, &s, &t, &c); rc != 0 {
				err = fmt.Errorf("vmpi: the vendor MPI failed: MPI_Test of a body from vendor rank %d: %s", b.src, errorString(rc))
			} else if flag == 0 {
				break
			} else {
				b.next++
			}
		}
		if b.next == b.nreq {
			done = append(done, b)
		} else {
			kept = append(kept, b)
		}
	}
	clear(d.bodies[len(kept):])
	d.bodies = kept
	d.nbodies.Store(int32(len(kept)))
	d.mu.Unlock()
	for _, b := range done {
		b.pin.Unpin()
		d.rxHdr = mpirt.Header{Kind: mpirt.FrameData, Context: b.ctx, RecvID: b.recvID}
		d.h(d.grank[b.src], &d.rxHdr, b.dst)
	}
	if err != nil {
		d.fail(err)
	}
	return len(done)
}

// startEarly is the sending side of an early body. A rendezvous
// message to a vendor peer is handed to the vendor's nonblocking send
// (one per bodyChunk) with a tag of the sender's range as its RTS
// leaves, with the tag in the RTS's prefix: the vendor runs its own
// rendezvous (Open MPI's single copy, MPICH's), so the receiver's
// vendor starts moving the data as soon as its receive is posted, with
// the CTS (postEarly), instead of after a CTS crossed back to us and
// our send crossed again. The data frame after the CTS only waits for
// the vendor (finishEarly); a cancelled message's body is received and
// dropped before the cancel's ack (Send, drainEarly). The tag stays
// held until the receiver posted its receive (the CTS or the cancel
// ack came back), so that two bodies to a peer never share one. nil:
// the data goes the CTS way (no source, a single-copy RTS, no tag free,
// a vendor error).
func (d *Device) startEarly(dest C.int, hdr *mpirt.Header) *early {
	if d.source == nil || hdr.Flags&mpirt.FlagRMA != 0 || hdr.Len == 0 || hdr.Len > directChunks*bodyChunk {
		return nil
	}
	buf := d.source(hdr.SendID)
	if uint64(len(buf)) != hdr.Len {
		return nil
	}
	e := &early{dest: dest}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	if e.tag = d.earlyTagLocked(int(dest)); e.tag == 0 {
		return nil
	}
	e.pin.Pin(unsafe.SliceData(buf))
	for off := 0; off < len(buf); off += bodyChunk {
		c := min(len(buf)-off, bodyChunk)
		if rc := C.vmpi_isend(unsafe.Pointer(&buf[off]), C.int(c), dest, C.int(e.tag), &e.reqs[e.nreq]); rc != 0 {
			d.dropEarlyLocked(e)
			return nil
		}
		e.nreq++
	}
	d.earlyUsed[earlyTag{int(dest), e.tag}] = struct{}{}
	d.earlyOut[hdr.SendID] = e
	return e
}

// earlyTagLocked picks a tag of the sender's range that no early body
// to vendor rank dest holds; 0 when all are taken. Must hold d.mu.
func (d *Device) earlyTagLocked(dest int) int32 {
	for range tagDirectMax - tagEarlyMin + 1 {
		t := d.nextEarly[dest]
		if t < tagEarlyMin || t > tagDirectMax {
			t = tagEarlyMin
		}
		d.nextEarly[dest] = t + 1
		if _, used := d.earlyUsed[earlyTag{dest, t}]; !used {
			return t
		}
	}
	return 0
}

// dropEarlyLocked withdraws early body e's vendor sends (cancelled, not
// waited for: the vendor failed or the receiver never heard of them)
// and frees its tag. Must hold d.mu.
func (d *Device) dropEarlyLocked(e *early) {
	for i := 0; i < e.nreq; i++ {
		C.vmpi_cancel(&e.reqs[i])
	}
	e.nreq = 0
	e.pin.Unpin()
	delete(d.earlyUsed, earlyTag{int(e.dest), e.tag})
}

// dropEarlyOutLocked withdraws every early body whose receiver has not
// answered (Close, fail). Must hold d.mu.
func (d *Device) dropEarlyOutLocked() {
	for id, e := range d.earlyOut {
		d.dropEarlyLocked(e)
		delete(d.earlyOut, id)
	}
	for k, db := range d.directTo {
		if db.early != nil {
			d.dropEarlyLocked(db.early)
			delete(d.directTo, k)
		}
	}
}

// finishEarly waits until the vendor is done with early body e (its
// receiver posted the receive), then frees its tag.
func (d *Device) finishEarly(e *early) error {
	err := d.wait(e.reqs[:e.nreq])
	d.mu.Lock()
	e.pin.Unpin()
	delete(d.earlyUsed, earlyTag{int(e.dest), e.tag})
	d.mu.Unlock()
	return err
}

// takeEarlyIn finds (and forgets) the early body world rank peer
// announced with the RTS of its send sendID.
func (d *Device) takeEarlyIn(peer int, sendID uint64) (earlyIn, bool) {
	return takeLocked(&d.mu, d.earlyIn, directKey{peer, sendID})
}

// takeLocked removes and returns m's entry for k, under mu.
func takeLocked[V any](mu *sync.Mutex, m map[directKey]V, k directKey) (V, bool) {
	mu.Lock()
	defer mu.Unlock()
	v, ok := m[k]
	if ok {
		delete(m, k)
	}
	return v, ok
}

// postEarly is the receiving side of an early body: before the CTS hdr
// goes to vendor rank src, the body announced by its RTS is posted as
// vendor receives (its sender's tag) into the matched receive's buffer,
// or into memory of our own when the receive is shorter (the Handler
// then keeps what fits). Poll completes it like a direct body. It
// returns the tag, 0 on a vendor error.
func (d *Device) postEarly(src int, hdr *mpirt.Header, ei earlyIn) int {
	if ei.len != hdr.Len {
		return 0
	}
	var dst []byte
	if d.sink != nil {
		dst = d.sink(hdr.RecvID, 0, int(ei.len))
	}
	if dst == nil {
		dst = make([]byte, ei.len)
	}
	return d.postBodyTag(src, hdr, dst, ei.tag)
}

// drainEarly receives and drops the early body ei from world rank peer
// (vendor rank src) of a message withdrawn by its sender's cancel.
func (d *Device) drainEarly(peer int, src C.int, ei earlyIn) error {
	buf := make([]byte, ei.len)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(unsafe.SliceData(buf))
	var reqs [directChunks]C.uint64_t
	nreq := 0
	d.mu.Lock()
	for off := 0; off < len(buf); off += bodyChunk {
		c := min(len(buf)-off, bodyChunk)
		if rc := C.vmpi_irecv(unsafe.Pointer(&buf[off]), C.int(c), src, C.int(ei.tag), &reqs[nreq]); rc != 0 {
			d.mu.Unlock()
			d.wait(reqs[:nreq])
			return fmt.Errorf("vmpi: MPI_Irecv from rank %d: %s", peer, errorString(rc))
		}
		nreq++
	}
	d.mu.Unlock()
	return d.wait(reqs[:nreq])
}

// takeDirect finds (and forgets) the direct body that world rank peer
// posted for its receive recvID.
func (d *Device) takeDirect(peer int, recvID uint64) (directBody, bool) {
	return takeLocked(&d.mu, d.directTo, directKey{peer, recvID})
}

// sendBody is the sending side of the direct body: payload goes with
// the vendor's nonblocking send(s) with the tag the receiver posted it
// under (no frame), and the call returns when the vendor is done with it.
func (d *Device) sendBody(peer int, dest C.int, tag int32, payload []byte) error {
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(unsafe.SliceData(payload))
	var reqs [directChunks]C.uint64_t
	nreq := 0
	var err error
	d.mu.Lock()
	for body := payload; len(body) > 0; nreq++ {
		c := min(len(body), bodyChunk)
		if rc := C.vmpi_isend(unsafe.Pointer(unsafe.SliceData(body)), C.int(c), dest, C.int(tag), &reqs[nreq]); rc != 0 {
			err = fmt.Errorf("vmpi: MPI_Isend to rank %d: %s", peer, errorString(rc))
			break
		}
		body = body[c:]
	}
	d.mu.Unlock()
	if werr := d.wait(reqs[:nreq]); werr != nil {
		return werr
	}
	return err
}

// packLocked takes a free frame buffer. Must hold d.mu.
func (d *Device) packLocked() unsafe.Pointer {
	if n := len(d.packs); n > 0 {
		p := d.packs[n-1]
		d.packs = d.packs[:n-1]
		return p
	}
	return C.malloc(C.size_t(frameCap))
}

// Poll hands the frames that arrived to the Handler, in order.
func (d *Device) Poll() int {
	if !d.pmu.TryLock() {
		return 0
	}
	defer d.pmu.Unlock()
	n := 0
	if d.nbodies.Load() != 0 {
		// A completed body finishes a receive (its waiter returns) or
		// lets a send go on: back to the runtime first, the frames
		// are tested on the next Poll.
		if n = d.pollBodies(); n > 0 {
			return n
		}
	}
	// One vendor call per frame: the repost of the previous frame's
	// receive and the test for the next (vmpi_frame_next). A frame the
	// runtime answers (an RTS, CTS, ack: not an eager message) ends the
	// Poll with the receive reposted but not tested again, so that the
	// runtime sends the answer (its outbox is flushed after the device
	// polls) and the waiter sees the step without a vendor test
	// (opal_progress) in between: on a rendezvous' critical path that
	// test came after each of RTS, CTS and body (bench/README.md).
	consumed := C.int(0)
	for d.posted {
		var flag, src, cnt C.int
		if n == pollBudget || consumed > 1 {
			if consumed == 0 {
				break
			}
			d.mu.Lock()
			rc := C.vmpi_frame_repost()
			d.mu.Unlock()
			if rc != 0 {
				d.posted = false
				// No way to receive again: the vendor's peers are lost.
				d.fail(fmt.Errorf("vmpi: the vendor MPI failed: MPI_Irecv: %s", errorString(rc)))
			}
			break
		}
		d.mu.Lock()
		rc := C.vmpi_frame_next(consumed, &flag, &src, &cnt)
		d.mu.Unlock()
		if rc != 0 {
			d.posted = false
			d.fail(fmt.Errorf("vmpi: the vendor MPI failed: MPI_Irecv/MPI_Test: %s", errorString(rc)))
			break
		}
		if flag == 0 {
			break
		}
		eager := d.deliver(int(src), unsafe.Slice((*byte)(d.rbuf), int(cnt)))
		if d.broken != nil {
			d.posted = false
			break
		}
		consumed = 1
		if !eager {
			consumed = 2 // repost only (above), then return
		}
		n++
	}
	return n
}

// deliver decodes one frame message from vendor rank src, reads its body
// if it has one, and hands it to the Handler. It reports whether the
// frame was an eager message (or dropped): anything else may have left
// the runtime an answer to send. Must hold d.pmu.
func (d *Device) deliver(src int, msg []byte) (eager bool) {
	if src < 0 || src >= len(d.grank) || d.grank[src] < 0 || len(msg) < prefixSize+mpirt.HeaderSize {
		return true // not one of ours: drop
	}
	plen := binary.LittleEndian.Uint64(msg[0:])
	inline := binary.LittleEndian.Uint32(msg[8:]) != 0
	btag := binary.LittleEndian.Uint32(msg[12:])
	d.rxHdr = *(*mpirt.Header)(unsafe.Pointer(&msg[prefixSize]))
	hdr := &d.rxHdr
	switch {
	case hdr.Kind == mpirt.FrameCTS && btag != 0:
		// The receiver posted the body (postBody, postEarly): our data
		// frame for this CTS goes to that receive (Send, sendBody), or
		// is already on its way (startEarly).
		d.mu.Lock()
		db := directBody{tag: int32(btag), len: hdr.Len}
		if e := d.earlyOut[hdr.SendID]; e != nil && e.tag == int32(btag) {
			db.early = e
			delete(d.earlyOut, hdr.SendID)
		}
		d.directTo[directKey{d.grank[src], hdr.RecvID}] = db
		d.mu.Unlock()
	case hdr.Kind == mpirt.FrameRTS && btag != 0:
		// The data follows as a vendor message with tag btag
		// (startEarly); its receive is posted with the CTS (postEarly).
		d.mu.Lock()
		d.earlyIn[directKey{d.grank[src], hdr.SendID}] = earlyIn{tag: int32(btag), len: hdr.Len}
		d.mu.Unlock()
	case hdr.Kind == mpirt.FrameCancelAck && hdr.Len != 0:
		// Our cancelled message's early body was received and dropped
		// (Send drained it before the ack): the vendor's send completes.
		d.mu.Lock()
		e := d.earlyOut[hdr.SendID]
		delete(d.earlyOut, hdr.SendID)
		d.mu.Unlock()
		if e != nil {
			if err := d.finishEarly(e); err != nil {
				d.fail(err)
				return true
			}
		}
	}
	var payload []byte
	if inline {
		payload = msg[prefixSize+mpirt.HeaderSize:]
		if uint64(len(payload)) != plen {
			return true
		}
	} else {
		var dst []byte
		if hdr.Kind == mpirt.FrameData && d.sink != nil && plen <= uint64(d.MaxPayload()) {
			dst = d.sink(hdr.RecvID, hdr.Offset, int(plen))
		}
		if dst == nil {
			if uint64(cap(d.scratch)) < plen {
				d.scratch = make([]byte, plen)
			}
			dst = d.scratch[:plen]
		}
		for off := 0; off < len(dst); {
			c := min(len(dst)-off, bodyChunk)
			var got C.int
			d.mu.Lock()
			rc := C.vmpi_recv(unsafe.Pointer(&dst[off]), C.int(c), C.int(src), tagBody, &got)
			d.mu.Unlock()
			if rc != 0 {
				d.fail(fmt.Errorf("vmpi: the vendor MPI failed: MPI_Recv from vendor rank %d: %s", src, errorString(rc)))
				return true
			}
			off += c
		}
		payload = dst
	}
	eager = hdr.Kind == mpirt.FrameEager
	d.h(d.grank[src], hdr, payload)
	return eager
}

// Close withdraws the posted receive, finalizes the vendor and frees the
// buffers. The caller made sure no traffic is in flight.
func (d *Device) Close() error {
	d.pmu.Lock()
	defer d.pmu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.posted {
		C.vmpi_frame_stop()
		d.posted = false
	}
	for _, b := range d.bodies {
		d.dropLocked(b)
	}
	d.bodies = nil
	d.nbodies.Store(0)
	d.dropEarlyOutLocked()
	for _, p := range d.packs {
		C.free(p)
	}
	d.packs = nil
	C.free(d.rbuf)
	d.rbuf = nil
	d.closed = true
	if rc := C.vmpi_finalize(); rc != 0 {
		return fmt.Errorf("vmpi: MPI_Finalize: %s", errorString(rc))
	}
	return nil
}

// VendorRanks maps the vendor job: the vendor rank of every world rank
// (-1: not a peer) and the world rank of every vendor rank (-1: not a
// peer; this process is not its own peer). capi's express lane reads them.
func (d *Device) VendorRanks() (byWorld, byVendor []int) {
	return append([]int(nil), d.vrank...), append([]int(nil), d.grank...)
}

// Peers lists the world ranks the device reaches, in order.
func (d *Device) Peers() []int {
	var ps []int
	for w, vr := range d.vrank {
		if vr >= 0 {
			ps = append(ps, w)
		}
	}
	return ps
}

// The shim and vendorlib number the ABIs alike.
var _ = [1]int{}[vendorlib.MPICH-C.VMPI_ABI_MPICH+vendorlib.OpenMPI-C.VMPI_ABI_OMPI]

// The vendor-collective handoff (mpirt.VendorColls).

var _ mpirt.VendorColls = (*Device)(nil)

// vendorGroupTag is the MPI_Comm_create_group tag of the handoff's
// communicators (creations are ordered per member like gmpi's own).
const vendorGroupTag = 4711

// VendorGroup makes the vendor communicator of worldRanks (every one
// this process or one of its vendor peers).
func (d *Device) VendorGroup(worldRanks []int) (mpirt.VendorGroup, error) {
	d.mu.Lock()
	ok := C.vmpi_coll_open() != 0
	d.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("vmpi: the vendor MPI lacks a collective entry point (MPI_Comm_create_group, MPI_Ibarrier, MPI_Ibcast, MPI_Iallreduce, MPI_Ireduce)")
	}
	vr := make([]C.int, len(worldRanks))
	for i, w := range worldRanks {
		switch {
		case w == d.cfg.Rank:
			vr[i] = C.int(d.cfg.Vendor.Rank)
		case w >= 0 && w < len(d.vrank) && d.vrank[w] >= 0:
			vr[i] = C.int(d.vrank[w])
		default:
			return nil, fmt.Errorf("vmpi: rank %d is not in this vendor job", w)
		}
	}
	g := &vgroup{d: d}
	d.mu.Lock()
	rc := C.vmpi_comm_create(C.int(len(vr)), &vr[0], vendorGroupTag, &g.comm)
	d.mu.Unlock()
	if rc != 0 {
		return nil, fmt.Errorf("vmpi: MPI_Comm_create_group: %s", errorString(rc))
	}
	return g, nil
}

// vgroup is a vendor communicator of the handoff.
type vgroup struct {
	d    *Device
	comm C.uint64_t
}

// vreq is one vendor collective in flight; its buffers stay pinned
// until it completes.
type vreq struct {
	d    *Device
	req  C.uint64_t
	pin  runtime.Pinner
	done bool
}

func (r *vreq) Test() (bool, error) {
	if r.done {
		return true, nil
	}
	var flag, s, t, c C.int
	r.d.mu.Lock()
	rc := C.vmpi_test(&r.req, &flag, &s, &t, &c)
	r.d.mu.Unlock()
	if rc != 0 {
		r.done = true
		r.pin.Unpin()
		return true, fmt.Errorf("vmpi: the vendor's collective failed: %s", errorString(rc))
	}
	if flag != 0 {
		r.done = true
		r.pin.Unpin()
	}
	return r.done, nil
}

// start runs one vendor call that starts a collective.
func (g *vgroup) start(pins []unsafe.Pointer, call func(*C.uint64_t) C.int, what string) (mpirt.VendorRequest, error) {
	r := &vreq{d: g.d}
	for _, p := range pins {
		if p != nil {
			r.pin.Pin(p)
		}
	}
	g.d.mu.Lock()
	rc := call(&r.req)
	g.d.mu.Unlock()
	if rc != 0 {
		r.pin.Unpin()
		if rc == C.VMPI_UNKNOWN {
			return nil, mpirt.ErrVendorUnknown
		}
		return nil, fmt.Errorf("vmpi: the vendor's %s: %s", what, errorString(rc))
	}
	return r, nil
}

func (g *vgroup) Ibarrier() (mpirt.VendorRequest, error) {
	return g.start(nil, func(r *C.uint64_t) C.int { return C.vmpi_ibarrier(g.comm, r) }, "MPI_Ibarrier")
}

func (g *vgroup) Ibcast(buf []byte, root int) (mpirt.VendorRequest, error) {
	if len(buf) > 1<<31-1 {
		return nil, mpirt.ErrVendorUnknown
	}
	p := unsafe.Pointer(unsafe.SliceData(buf))
	return g.start([]unsafe.Pointer{p}, func(r *C.uint64_t) C.int {
		return C.vmpi_ibcast(p, C.int(len(buf)), C.int(root), g.comm, r)
	}, "MPI_Ibcast")
}

func (g *vgroup) Known(dt *mpirt.Datatype, op mpirt.Handle) bool {
	if !dt.IsPredefined() {
		return false
	}
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	return C.vmpi_known(C.int(int32(dt.Handle)), C.int(int32(op))) != 0
}

func (g *vgroup) Ireduce(sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) (mpirt.VendorRequest, error) {
	if !dt.IsPredefined() || count > 1<<31-1 {
		return nil, mpirt.ErrVendorUnknown
	}
	return g.start([]unsafe.Pointer{sbuf, rbuf}, func(r *C.uint64_t) C.int {
		return C.vmpi_ireduce(sbuf, rbuf, C.int(count), C.int(int32(dt.Handle)), C.int(int32(op)), C.int(root), g.comm, r)
	}, "MPI_Ireduce")
}

func (g *vgroup) Free() error {
	g.d.mu.Lock()
	defer g.d.mu.Unlock()
	if g.d.closed {
		return nil // the vendor is finalized, its communicators with it
	}
	if rc := C.vmpi_comm_release(&g.comm); rc != 0 {
		return fmt.Errorf("vmpi: MPI_Comm_free: %s", errorString(rc))
	}
	return nil
}

// The shim's frame calls use the device's frame tag, prefix and the
// runtime's header size; a small frame is inline.
var _ = [1]int{}[(tagFrame-1)+(prefixSize-C.VMPI_PREFIX)+(mpirt.HeaderSize-C.VMPI_HEADER)+
	(C.VMPI_SMALL-min(C.VMPI_SMALL, inlineMax))]

// osyield gives the core to another runnable thread or process. Not
// runtime.Gosched: a device call made from C (MPI_Send) runs on a
// goroutine locked to its thread, and Gosched there hands the P to
// another thread and back (two futex wakes and thread switches per call,
// which on a 2-core host took the core from the peer doing the copy).
func osyield() { unix.RawSyscall(unix.SYS_SCHED_YIELD, 0, 0, 0) }

// spinYield is how long (ns) a waiting sender polls before it starts
// yielding the core (the runtime's waiters spin GMPI_SPIN_NS, 50 us by
// default, before they sleep).
const spinYield = 50_000

// nanotime is the monotonic clock in ns (since the package started; the
// vDSO's clock, no allocation).
func nanotime() int64 { return int64(time.Since(clockBase)) + 1 }

var clockBase = time.Now()
