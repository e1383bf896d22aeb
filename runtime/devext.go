package mpirt

import (
	"errors"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Optional abilities of devices whose frames arrive on their own
// goroutines (tcp). Each is found by type assertion in NewWorld.

// DataSinkUser is a device that reads rendezvous data straight into the
// receive buffer. NewWorld hands it the runtime's sink before Start.
type DataSinkUser interface {
	SetDataSink(DataSink)
}

// DataSink returns where the n payload bytes of a FrameData frame with
// the given RecvID and Offset belong: a slice of the matched receive's
// buffer, or nil when the request is unknown or the bytes fall outside
// it (truncation; the device then reads them into memory of its own).
// It is safe from any goroutine. The device may fill the slice before it
// hands the frame to the Handler, with the slice as payload; the Handler
// then only counts the bytes.
type DataSink func(recvID, offset uint64, n int) []byte

// DataSourceUser is a device that starts a rendezvous message's data
// with its RTS (devices/vmpi: the vendor runs its own rendezvous, so
// the data need not wait for the CTS). NewWorld hands it the runtime's
// source before Start.
type DataSourceUser interface {
	SetDataSource(DataSource)
}

// DataSource returns the buffer of the rendezvous send whose RTS carries
// sendID (the bytes its FrameData frames will carry, unchanged until the
// send completes), or nil when the request is not a pending send. It is
// safe from any goroutine.
type DataSource func(sendID uint64) []byte

// FailureReporter is a device that can lose a peer (a connection closed
// mid-message, a dead process). NewWorld hands it the runtime's entry
// point before Start; the device calls it from Poll, under the Handler's
// rules, once per lost peer.
type FailureReporter interface {
	SetFailureHandler(func(peer int, err error))
}

// Watcher is a device that can open a connection before any traffic, so
// that the loss of that peer is noticed by a process that never talked to
// it (links to other jobs: every process watches one of the other job's).
type Watcher interface {
	Watch(peer int)
}

// SingleCopyTuner is a RemoteReader that measured this machine (the shm
// device's copy probe) and says from which message size a single copy
// beats moving the data through the device twice (rmaMin), and from which
// size the receiver should share the copy with the sender (pushMin),
// given that messages up to eagerMax would otherwise go eagerly. ok false:
// no measurement, keep the defaults.
type SingleCopyTuner interface {
	SingleCopyMin(eagerMax int) (rmaMin, pushMin int, ok bool)
	CopyProbe() string
}

// EagerLimiter is a device with its own eager/rendezvous threshold
// (bytes); 0 means the world's.
type EagerLimiter interface {
	EagerLimit() int
}

// Polled is a device whose frames arrive only when it is polled: no
// goroutine of its own and nothing rings the Waker (vmpi: a vendor MPI
// progresses inside its own calls). While the world has one, a waiter
// keeps polling (yielding the CPU now and then) instead of sleeping.
type Polled interface {
	MustPoll() bool
}

// setupDeviceExtras connects the optional abilities of w's devices.
func (w *World) setupDeviceExtras() {
	for _, d := range w.devices {
		if p, ok := d.(Polled); ok && p.MustPoll() {
			w.mustPoll = true
		}
		if s, ok := d.(DataSinkUser); ok {
			s.SetDataSink(w.dataSink)
		}
		if s, ok := d.(DataSourceUser); ok {
			s.SetDataSource(w.dataSource)
		}
		if f, ok := d.(FailureReporter); ok {
			f.SetFailureHandler(w.PeerFailed)
		}
		if a, ok := d.(AsyncReceiver); ok && w.rmaDev == nil {
			w.rmaDev = a
			w.rmaSend = d
			a.SetAsyncHandler(w.rmaFrame)
		}
	}
}

// eagerLimitOf is the eager threshold towards a peer reached by d.
func (w *World) eagerLimitOf(d Device) int {
	limit := w.cfg.EagerLimit
	if e, ok := d.(EagerLimiter); ok && e.EagerLimit() > 0 {
		limit = e.EagerLimit()
	}
	return min(limit, d.MaxPayload())
}

func (w *World) dataSink(recvID, offset uint64, n int) []byte {
	r := w.lookup(recvID, false)
	if r == nil || n < 0 || offset > uint64(len(r.buf)) || uint64(n) > uint64(len(r.buf))-offset {
		return nil
	}
	return r.buf[offset : offset+uint64(n)]
}

func (w *World) dataSource(sendID uint64) []byte {
	r := w.lookup(sendID, false)
	if r == nil || r.Kind != ReqSend {
		return nil
	}
	return r.buf
}

// inPlace reports whether payload already is dst (a DataSink slice).
func inPlace(dst, payload []byte) bool {
	return len(dst) > 0 && len(payload) > 0 && unsafe.SliceData(dst) == unsafe.SliceData(payload)
}

// peerFailures records lost peers (PeerFailed).
type peerFailures struct {
	any  atomic.Bool // some peer was lost: postRecv checks
	mu   sync.Mutex
	errs map[int]error
}

// PeerFailed is the entry point for a device that lost world rank peer:
// every request that needs the peer fails with MPI_ERR_OTHER and a
// message naming the rank and its host (a send waiting for its reply, a
// rendezvous receive waiting for data, a receive posted for that
// sender), and so does every later receive posted for it. Receives from
// MPI_ANY_SOURCE stay posted while another sender may still match them:
// they fail too (now or when posted later) on an intercommunicator whose
// remote group is lost entirely (a connected job that died). Call it
// under the Handler's rules (from Poll).
func (w *World) PeerFailed(peer int, cause error) {
	if peer < 0 || peer >= len(w.routes) || peer == w.cfg.Rank {
		return
	}
	f := &w.p2px.failures
	f.mu.Lock()
	if f.errs == nil {
		f.errs = make(map[int]error)
	}
	if f.errs[peer] != nil {
		f.mu.Unlock()
		return
	}
	host := "?"
	if hosts := w.knownHosts(); peer < len(hosts) {
		host = hosts[peer]
	}
	var me *Error
	if errors.As(cause, &me) {
		cause = errors.New(me.Msg)
	}
	err := Errorf(ErrOther, "", "lost rank %d on host %q: %v", peer, host, cause)
	if name := w.foreignName(peer); name != "" {
		err = Errorf(ErrOther, "", "lost %s: %v", name, cause)
	}
	f.errs[peer] = err
	f.any.Store(true)
	f.mu.Unlock()
	w.logf("gmpi: %v", err)

	var failed []*Request
	w.pendingMu.Lock()
	for id, r := range w.pending {
		if r.peer == peer && (r.Kind == ReqSend || r.remaining > 0 || r.parts.Load() > 0) {
			delete(w.pending, id)
			failed = append(failed, r)
		}
	}
	w.pendingMu.Unlock()
	lost := w.remoteLostFunc()
	m := &w.match
	m.lock()
	for _, q := range m.queues {
		if q != nil {
			failed = q.takePostedFromLocked(peer, failed)
			failed = q.takeWildLostLocked(lost, failed)
		}
	}
	for _, q := range m.part {
		failed = q.takePostedFromLocked(peer, failed)
	}
	m.unlock()
	for _, r := range failed {
		r.Err = err
		r.Status.Error = ErrOther
		w.complete(r)
	}
}

// peerError is the error of a lost peer, nil while it is alive.
func (w *World) peerError(peer int) error {
	f := &w.p2px.failures
	if !f.any.Load() {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := f.errs[peer]; err != nil {
		return err
	}
	return nil
}

// remoteLostFunc returns a test of whether every process of an
// intercommunicator's remote group is lost (nil for an intracommunicator:
// a receive from MPI_ANY_SOURCE there may match this process's own
// sends), using the lost peers known now; it remembers its answers.
func (w *World) remoteLostFunc() func(*Comm) bool {
	f := &w.p2px.failures
	f.mu.Lock()
	lost := make(map[int]bool, len(f.errs))
	for p, err := range f.errs {
		lost[p] = err != nil
	}
	f.mu.Unlock()
	seen := make(map[*Comm]bool)
	return func(c *Comm) bool {
		if c == nil || len(c.remote) == 0 {
			return false
		}
		if v, ok := seen[c]; ok {
			return v
		}
		all := true
		for _, p := range c.remote {
			all = all && lost[p]
		}
		seen[c] = all
		return all
	}
}

// remoteLostError is the error of a receive from MPI_ANY_SOURCE on c
// when every process of its remote group is lost (the error of the first
// one), nil otherwise or when c is an intracommunicator.
func (w *World) remoteLostError(c *Comm) error {
	if len(c.remote) == 0 || !w.p2px.failures.any.Load() {
		return nil
	}
	f := &w.p2px.failures
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, p := range c.remote {
		if f.errs[p] == nil {
			return nil
		}
	}
	return f.errs[c.remote[0]]
}

// knownHosts is the host of every world rank, nil when not known.
func (w *World) knownHosts() []string {
	w.hostsMu.Lock()
	defer w.hostsMu.Unlock()
	return w.hosts
}

// takePostedFromLocked removes the posted receives whose source is world
// rank peer (no wildcard) and appends them to out. Must hold m.mu.
func (q *ctxQueues) takePostedFromLocked(peer int, out []*Request) []*Request {
	if q.nPosted == 0 {
		return out
	}
	return q.takePostedWhereLocked(func(r *Request) bool {
		return r.src != AnySource && r.comm != nil && r.comm.peerOf(r.src) == peer
	}, false, out)
}

// takeWildLostLocked removes the posted receives from MPI_ANY_SOURCE
// that no sender is left to match (lost reports it of their
// communicator) and appends them to out. Must hold m.mu.
func (q *ctxQueues) takeWildLostLocked(lost func(*Comm) bool, out []*Request) []*Request {
	if q.nWild == 0 {
		return out
	}
	return q.takePostedWhereLocked(func(r *Request) bool {
		return r.src == AnySource && lost(r.comm)
	}, true, out)
}

// takePostedWhereLocked removes the posted receives that match picks
// (the express one, those of the per-source lists and, with wild, those
// of the MPI_ANY_SOURCE list) and appends them to out. Must hold m.mu.
func (q *ctxQueues) takePostedWhereLocked(match func(*Request) bool, wild bool, out []*Request) []*Request {
	if e := q.express; e != nil && match(e) {
		q.dropExpress(e)
		out = append(out, e)
	}
	var mine []*Request
	for i, used := range q.posted.used {
		if !used {
			continue
		}
		for r := q.posted.vals[i].head; r != nil; r = r.qlink.next {
			if match(r) {
				mine = append(mine, r)
			}
		}
	}
	if wild {
		for r := q.postedAny.head; r != nil; r = r.qlink.next {
			if match(r) {
				mine = append(mine, r)
			}
		}
	}
	for _, r := range mine {
		q.removePostedLocked(r)
	}
	return append(out, mine...)
}
