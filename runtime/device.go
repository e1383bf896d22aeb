// Package mpirt is gmpi's MPI engine. Import it everywhere as
//
//	import mpirt "gmpi/runtime"
//
// because the package name shadows the standard library's runtime.
package mpirt

import (
	"time"
	"unsafe"
)

// FrameKind says what a frame carries. The runtime owns the protocol; a
// device moves frames without looking inside the header.
type FrameKind uint8

const (
	// FrameEager carries a whole message as payload (Len == len(payload)).
	FrameEager FrameKind = iota + 1
	// FrameRTS announces a rendezvous message of Len bytes; no payload.
	// SendID names the sender's request.
	FrameRTS
	// FrameCTS answers an RTS once it matched: SendID echoes the sender's
	// request and RecvID names the receiver's; Len repeats the message's
	// length (a device may prepare the data's way, devices/vmpi).
	FrameCTS
	// FrameData carries bytes [Offset, Offset+len(payload)) of the
	// rendezvous message identified by RecvID.
	FrameData
	// FrameSyncAck tells the sender of a synchronous eager message
	// (FlagSync) that it matched; SendID names the sender's request.
	FrameSyncAck
	// FrameRMADone tells a rendezvous sender that the receiver copied the
	// data itself (single copy); SendID names the sender's request.
	FrameRMADone
	// FrameCancelReq asks the receiver to withdraw the unmatched message
	// (Context, Source, Tag, SendID) of a cancelled send (cancel.go).
	FrameCancelReq
	// FrameCancelAck answers FrameCancelReq: Len 1 when the message was
	// withdrawn, 0 when it had been matched.
	FrameCancelAck
	// FrameRMAPush asks a single-copy rendezvous sender to write the last
	// Len bytes of its message itself, to address Offset in the
	// receiver, while the receiver reads the rest (both cores copy).
	// SendID names the sender's request, RecvID the receiver's.
	FrameRMAPush
	// FramePushDone tells the receiver that the sender wrote its part;
	// RecvID names the receiver's request.
	FramePushDone
	// FrameRMA carries a one-sided operation, its answer or a
	// synchronization message of an RMA window whose processes are on
	// several hosts (rma_net.go). Context names the window; it never
	// enters matching.
	FrameRMA
)

// Frame flags.
const (
	// FlagSync: the sender waits for FrameSyncAck (MPI_Ssend, eager path).
	FlagSync uint8 = 1 << iota
	// FlagRMA: an RTS whose data the receiver may read directly from the
	// sender's address space at Addr (cross-memory attach); the receiver
	// may also answer with a CTS, and the data streams.
	FlagRMA
	// FlagForeign is never sent: the receiver sets it on an eager or RTS
	// frame from a peer of another data representation (hetero.go) as the
	// frame arrives, so that the receive converts it.
	FlagForeign
	// FlagPacked: the payload is a packed buffer (MPI_PACKED) that starts
	// with a data representation header (hpack.go).
	FlagPacked
)

// Header is the fixed-size envelope in front of every frame. It is plain
// data (no pointers) so devices may copy it byte for byte.
type Header struct {
	Kind    FrameKind
	Flags   uint8
	_       [2]byte
	Context uint32 // communicator context id (point-to-point or collective)
	Source  int32  // sender's rank in the communicator
	Tag     int32
	Len     uint64 // total message length in bytes
	SendID  uint64 // sender-side request id (RTS, CTS, SyncAck, RMADone)
	RecvID  uint64 // receiver-side request id (CTS, Data)
	Offset  uint64 // byte offset of a Data payload; sender address for FlagRMA
}

// HeaderSize is the size of Header in bytes.
const HeaderSize = int(unsafe.Sizeof(Header{}))

// Handler is how a device hands an incoming frame to the runtime. peer is
// the sender's rank in MPI_COMM_WORLD. payload aliases device memory and
// is valid only until Handler returns. A Handler never calls back into the
// device that invoked it (no Send, no Poll); replies are queued and sent
// later by the runtime.
type Handler func(peer int, hdr *Header, payload []byte)

// Device moves frames between this process and some peers, reliably and in
// order per peer pair. It knows nothing of communicators or matching.
//
// Concurrency: Send may be called from several goroutines at once (also to
// the same peer); Poll may be called concurrently with Send and with
// itself. The runtime never holds one of its own locks while calling Send
// or Poll, so a device may call the Handler from inside Send while it waits
// for buffer space (it must, to avoid deadlock when two peers send to each
// other at once).
type Device interface {
	// Name is a short name for logs ("shm", "tcp", "self").
	Name() string
	// Start is called once before any Send or Poll; h receives every
	// incoming frame.
	Start(h Handler) error
	// Send transmits one frame to peer (a world rank). len(payload) must not
	// exceed MaxPayload. It returns when the payload may be reused; it may
	// block for buffer space, making progress on incoming frames meanwhile.
	Send(peer int, hdr Header, payload []byte) error
	// Poll delivers pending incoming frames through the Handler and returns
	// how many it delivered. It never blocks.
	Poll() int
	// MaxPayload is the largest payload one frame may carry.
	MaxPayload() int
	// Close releases everything the device holds. After Close, no Handler
	// call is made.
	Close() error
}

// AsyncReceiver is an optional Device ability: the device hands chosen
// frames to a handler from its own receive path (whichever thread or
// goroutine reads them), so they are served while no thread of the
// process is inside MPI. The runtime uses it for the one-sided
// operations of windows spanning hosts (passive target progress).
type AsyncReceiver interface {
	// SetAsyncHandler installs h, called for every complete incoming
	// frame before it is queued for Poll; when h returns true the frame
	// is consumed (payload is valid only during the call). h may run
	// concurrently with itself (frames of different peers) and with
	// every other runtime call; it never calls Send or Poll.
	SetAsyncHandler(h func(peer int, hdr *Header, payload []byte) bool)
	// Reaches reports whether Send works towards world rank peer.
	Reaches(peer int) bool
}

// RemoteReader is an optional Device ability: copy bytes straight out of a
// peer's address space (process_vm_readv). The runtime uses it for single-
// copy rendezvous, towards the peers whose device says RemoteReadable.
type RemoteReader interface {
	// RemoteReadable reports whether ReadRemote works and is wanted.
	RemoteReadable() bool
	ReadRemote(peer int, dst []byte, addr uintptr) error
}

// RemoteWriter is what a RemoteReader may also offer: writing into a
// peer's memory (process_vm_writev), so that a large single-copy
// rendezvous is copied by both processes at once (FrameRMAPush).
type RemoteWriter interface {
	WriteRemote(peer int, src []byte, addr uintptr) error
}

// Waker is the process's doorbell: every device rings it when something
// arrives, and waiting threads sleep on it after spinning briefly.
//
// Two ways to sleep and two ways to wake go together:
//   - Epoch, then check the condition, then Sleep: correct only against
//     Wake, which always advances the event count.
//   - Arm, then check the condition, then SleepArmed (or Disarm): correct
//     also against Ring, which skips the shared event count when nobody
//     is armed (the cheap notification the data path uses).
type Waker interface {
	// Epoch returns the current event count.
	Epoch() uint32
	// Sleep blocks until the event count is no longer epoch, or until
	// timeout elapses. Spurious returns are allowed.
	Sleep(epoch uint32, timeout time.Duration)
	// Wake advances the event count and wakes every sleeper. Safe from any
	// goroutine.
	Wake()
	// Arm registers an upcoming sleeper and returns the epoch to pass to
	// SleepArmed.
	Arm() uint32
	// SleepArmed is Sleep for an armed sleeper; it disarms.
	SleepArmed(epoch uint32, timeout time.Duration)
	// Disarm cancels an Arm.
	Disarm()
	// Ring wakes armed sleepers; it does nothing when none is armed.
	Ring()
}

// Sleeper is an optional Device ability, used when the device is the
// process's only one: an armed waiter sleeps in the device (in the kernel
// on its own descriptors and the doorbell at once) instead of on the
// Waker, so that the device's input wakes it directly.
type Sleeper interface {
	// Sleep is Waker.SleepArmed(epoch, timeout) that also returns when
	// the device has input; it disarms w. It returns false, without
	// sleeping or disarming, when it cannot (the caller then sleeps on
	// the Waker).
	Sleep(w Waker, epoch uint32, timeout time.Duration) bool
}

// KVS is the job's key-value space used to exchange business cards
// (PMI put/commit/barrier/get). Keys are unique per job.
type KVS interface {
	Put(key, value string) error
	// Barrier commits this process's puts and waits for all processes.
	Barrier() error
	Get(key string) (string, error)
}
