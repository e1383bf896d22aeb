package mpirt

import (
	"sync"
	"unsafe"
)

// Matched probe (MPI_Mprobe, MPI_Improbe, MPI_Mrecv, MPI_Imrecv). A
// matched probe takes the message out of the unexpected queue, so no
// other receive or probe can see it, and binds it to a Message; a later
// Mrecv/Imrecv on the Message receives exactly that message. A Message
// that is an RTS starts its rendezvous only when it is received.

// Message is a message bound by a matched probe (MPI_Message).
type Message struct {
	comm *Comm
	// noProc marks the message of a probe with source MPI_PROC_NULL
	// (MPI_MESSAGE_NO_PROC); the fields below are unset then.
	noProc bool
	u      *unexpected // the message, out of the matching engine
	handle Handle
}

// NoProcMessage is the message a matched probe on MPI_PROC_NULL returns.
var NoProcMessage = &Message{noProc: true, handle: HandleMessageNoProc}

// messageIndexBase is the first table index of a message handle. Messages
// are requests in the MPICH ABI (object type 0xb, like MPI_MESSAGE_NULL),
// so their handles share the request handle space; starting the message
// table high keeps the two ranges apart, and a message handle passed where
// a request is expected (or the other way round) is reported as invalid.
const messageIndexBase = 1 << 20

type messageTable struct {
	once sync.Once
	tab  HandleTable[*Message]
}

func (w *World) messageTab() *HandleTable[*Message] {
	mt := &w.p2px.messages
	mt.once.Do(func() {
		mt.tab.Init(ObjRequest)
		mt.tab.next = messageIndexBase
	})
	return &mt.tab
}

// Handle returns the user-visible handle of m (set by AddMessage).
func (m *Message) Handle() Handle { return m.handle }

// NoProc reports whether m is MPI_MESSAGE_NO_PROC.
func (m *Message) NoProc() bool { return m.noProc }

// Comm returns the communicator the message arrived on (nil for
// MPI_MESSAGE_NO_PROC).
func (m *Message) Comm() *Comm { return m.comm }

// AddMessage gives m a user-visible handle (MPI_MESSAGE_NO_PROC keeps its
// predefined one).
func (w *World) AddMessage(m *Message) Handle {
	if m.noProc {
		return HandleMessageNoProc
	}
	m.handle = w.messageTab().Add(m)
	return m.handle
}

// Message resolves a message handle: MPI_MESSAGE_NO_PROC or a live
// message; nil otherwise (MPI_MESSAGE_NULL, a received message, garbage).
func (w *World) Message(h Handle) *Message {
	if h == HandleMessageNoProc {
		return NoProcMessage
	}
	m, ok := w.messageTab().Get(h)
	if !ok {
		return nil
	}
	return m
}

// messageStatus is the status a matched probe reports for m.
func (m *Message) status() Status {
	if m.noProc {
		return Status{Source: ProcNull, Tag: AnyTag}
	}
	h := &m.u.hdr
	return Status{Source: int(h.Source), Tag: int(h.Tag), Count: int64(h.Len), SenderSizes: m.comm.w.senderSizes(m.u.peer, h.Flags)}
}

// Improbe looks for a message matching (src, tag) on context ctx of c and,
// when there is one, takes it out of the matching engine and returns it
// with its status.
func (w *World) Improbe(c *Comm, ctx uint32, src, tag int) (*Message, Status, bool) {
	if src == ProcNull {
		return NoProcMessage, NoProcMessage.status(), true
	}
	w.progress()
	m := &w.match
	m.mu.Lock()
	u := m.queuesLocked(ctx).findUnexpectedLocked(src, tag, true)
	m.mu.Unlock()
	if u == nil {
		return nil, Status{}, false
	}
	msg := &Message{comm: c, u: u}
	return msg, msg.status(), true
}

// Mprobe blocks until a message matching (src, tag) arrives and takes it
// like Improbe, or until no sender is left (ProbeLost's error).
func (w *World) Mprobe(c *Comm, ctx uint32, src, tag int) (*Message, Status, error) {
	var msg *Message
	var st Status
	var err error
	w.waitUntil(func() bool {
		var ok bool
		msg, st, ok = w.Improbe(c, ctx, src, tag)
		if !ok {
			err = w.ProbeLost(c, src)
		}
		return ok || err != nil
	})
	return msg, st, err
}

// ImrecvTyped starts receiving message m into up to count elements of dt
// at buf and releases m's handle (MPI_Imrecv). Receiving
// MPI_MESSAGE_NO_PROC completes at once with an MPI_PROC_NULL status.
func (w *World) ImrecvTyped(m *Message, buf unsafe.Pointer, count int, dt *Datatype) *Request {
	if m.noProc {
		return w.completedRequest(m.comm, ReqRecv, ProcNull, AnyTag)
	}
	if m.handle != 0 {
		w.messageTab().Remove(m.handle)
		m.handle = 0
	}
	data, unpack := recvView(buf, count, dt)
	u := m.u
	m.u = nil
	if checkRequests && u == nil {
		reqBug(&Request{comm: m.comm}, "matched message received twice")
	}
	r := &Request{w: w, Kind: ReqRecv, comm: m.comm, ctx: u.hdr.Context, buf: data,
		src: int(u.hdr.Source), tag: int(u.hdr.Tag), onDone: unpack, rt: recvTarget{dt, count}}
	if !w.deliverPosted(r, u.peer, &u.hdr, u.data) {
		w.flush()
	}
	u.release()
	return r
}

// MrecvTyped is the blocking form of ImrecvTyped.
func (w *World) MrecvTyped(m *Message, buf unsafe.Pointer, count int, dt *Datatype) (Status, error) {
	r := w.ImrecvTyped(m, buf, count, dt)
	err := w.Wait(r)
	return r.Status, err
}
