package mpirt

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"

	"gmpi/runtime/param"
)

// Processes of other jobs (MPI_Comm_accept/connect, MPI_Comm_join).
//
// Two jobs meet through one connection between their roots (a port's
// authenticated connection, or the socket given to MPI_Comm_join). Over
// it the roots swap their groups' cards (every local process opens a
// listening endpoint for the purpose first) and agree on a link secret;
// each side then numbers the processes of both groups alike (acceptor
// first), and every process builds a device of its own (capi: a tcp
// device) that reaches the other group's processes with that numbering.
//
// Inside this process the other job's processes become world ranks past
// the job's own (Size, Size+1, ...): routes, eager limits and failures
// are kept per world rank, and matching needs nothing new (a frame's
// Source is the sender's rank in its own group). Those ranks are this
// process's names only; nothing that travels between the jobs carries
// them. A set of such ranks (one device) lives as long as a
// communicator with a handle uses it: the last one freed or
// disconnected closes the device (an orderly close, after every frame
// sent before it) and the ranks are reused.

// dynCap is how many processes of other jobs one process reaches at once.
const dynCap = 1024

// RootConn carries messages between the roots of two jobs that meet.
type RootConn interface {
	Send(b []byte) error
	Recv() ([]byte, error)
}

// LinkEndpoint is a process's listening end of a new link set (opened
// before the cards are exchanged).
type LinkEndpoint interface {
	// Card is what a peer dials.
	Card() string
	// Build makes this process's device in a link set of len(cards)
	// processes, where it is number me and reaches the numbers in
	// peers. hosts name every number (for messages); secret
	// authenticates every link; id names the set.
	Build(me int, peers []int, cards, hosts []string, secret []byte, id string) (Device, error)
	// Close releases the endpoint when Build is not called.
	Close()
}

// Linker opens a LinkEndpoint (capi hands NewWorld's caller one: tcp).
type Linker func() (LinkEndpoint, error)

// SetLinker gives the engine its way to reach other jobs.
func (w *World) SetLinker(l Linker) { w.dyn.linker = l }

// Waker is the process doorbell (devices built later ring it too).
func (w *World) Waker() Waker { return w.waker }

// dynState is the world's bookkeeping of other jobs' processes.
type dynState struct {
	linker Linker
	mu     sync.Mutex
	owner  [dynCap]*peerSet // world rank Size+i -> its set (nil: free)
	devs   atomic.Pointer[[]Device]
	n      atomic.Int32 // live sets
}

// peerSet is one device's processes of another job: world ranks
// base..base+n-1, numbers off..off+n-1 in the device.
type peerSet struct {
	base, n int
	dev     *mappedDevice
	refs    int    // under dynState.mu
	job     string // the other job's name (its GMPI_JOBID), for messages
	hosts   []string
	// failed is set at the first loss of one of its processes: the
	// whole set is failed then (a job that lost a process is gone).
	failed atomic.Bool
}

// mappedDevice renumbers a device's peers into world ranks.
type mappedDevice struct {
	d         Device
	base, off int
}

func (m *mappedDevice) toWorld(p int) int { return p - m.off + m.base }

func (m *mappedDevice) Name() string { return m.d.Name() }
func (m *mappedDevice) Start(h Handler) error {
	return m.d.Start(func(p int, hdr *Header, payload []byte) { h(m.toWorld(p), hdr, payload) })
}
func (m *mappedDevice) Send(peer int, hdr Header, payload []byte) error {
	return m.d.Send(peer-m.base+m.off, hdr, payload)
}
func (m *mappedDevice) Poll() int       { return m.d.Poll() }
func (m *mappedDevice) MaxPayload() int { return m.d.MaxPayload() }
func (m *mappedDevice) Close() error    { return m.d.Close() }

// attachPeers makes d's peers off..off+n-1 world ranks of this process;
// the set starts with one reference (the caller's).
func (w *World) attachPeers(d Device, off, n int, job string, hosts []string) (*peerSet, error) {
	ds := &w.dyn
	ds.mu.Lock()
	start := -1
	for i := 0; i+n <= dynCap && start < 0; i++ {
		free := true
		for k := i; k < i+n; k++ {
			if ds.owner[k] != nil {
				free, i = false, k
				break
			}
		}
		if free {
			start = i
		}
	}
	if start < 0 {
		ds.mu.Unlock()
		return nil, Errorf(ErrOther, "", "cannot reach %d more processes of other jobs (at most %d at once)", n, dynCap)
	}
	md := &mappedDevice{d: d, base: w.cfg.Size + start, off: off}
	s := &peerSet{base: md.base, n: n, dev: md, refs: 1, job: job, hosts: hosts}
	for k := start; k < start+n; k++ {
		ds.owner[k] = s
	}
	ds.mu.Unlock()

	if u, ok := d.(DataSinkUser); ok {
		u.SetDataSink(w.dataSink)
	}
	if f, ok := d.(FailureReporter); ok {
		f.SetFailureHandler(func(p int, err error) { w.setFailed(s, md.toWorld(p), err) })
	}
	w.clearFailures(s.base, n)
	limit := w.eagerLimitOf(d)
	for p := s.base; p < s.base+n; p++ {
		w.routes[p], w.eagerTo[p], w.remote[p] = md, limit, nil
	}
	if err := md.Start(w.handle); err != nil {
		w.dropSet(s)
		return nil, err
	}
	ds.mu.Lock()
	devs := []Device{md}
	if old := ds.devs.Load(); old != nil {
		devs = append(devs, *old...)
	}
	ds.devs.Store(&devs)
	ds.n.Add(1)
	ds.mu.Unlock()
	return s, nil
}

// setFailed fails every process of s: one of them (world rank lost) is
// gone, and with it its job (its mpirun ends the rest). Every operation
// on them, pending or later, fails naming the job, also at processes that
// never talked to the lost one.
func (w *World) setFailed(s *peerSet, lost int, cause error) {
	if !s.failed.CompareAndSwap(false, true) {
		w.PeerFailed(lost, cause)
		return
	}
	var me *Error
	if errors.As(cause, &me) {
		cause = errors.New(me.Msg)
	}
	host := "?"
	if k := lost - s.base; k >= 0 && k < len(s.hosts) {
		host = s.hosts[k]
	}
	err := fmt.Errorf("its process %d (on host %q) was lost: %v", lost-s.base, host, cause)
	w.PeerFailed(lost, cause)
	for p := s.base; p < s.base+s.n; p++ {
		if p != lost {
			w.PeerFailed(p, err)
		}
	}
}

// foreignName names world rank peer of another job for messages ("" when
// it is not one): the job's name and the process's rank in its group.
func (w *World) foreignName(peer int) string {
	k := peer - w.cfg.Size
	if k < 0 || k >= dynCap {
		return ""
	}
	ds := &w.dyn
	ds.mu.Lock()
	s := ds.owner[k]
	ds.mu.Unlock()
	if s == nil {
		return ""
	}
	host := "?"
	if i := peer - s.base; i < len(s.hosts) {
		host = s.hosts[i]
	}
	return fmt.Sprintf("process %d (host %q) of the connected job %s (%d process(es))", peer-s.base, host, s.job, s.n)
}

// jobName names this job to the jobs it connects to: its mpirun's job id
// (GMPI_JOBID), else the host and process id.
func (w *World) jobName() string {
	if id := param.JobID.Get(w.cfg.Params); id != "" {
		return id
	}
	return fmt.Sprintf("%s:%d (a process started without mpirun)", w.cfg.Hostname, os.Getpid())
}

// unref drops one reference to s; the last closes its device.
func (w *World) unref(s *peerSet) {
	ds := &w.dyn
	ds.mu.Lock()
	s.refs--
	last := s.refs == 0
	if last {
		var devs []Device
		found := false
		if old := ds.devs.Load(); old != nil {
			for _, d := range *old {
				if d == s.dev {
					found = true
				} else {
					devs = append(devs, d)
				}
			}
		}
		if found {
			ds.n.Add(-1)
			ds.devs.Store(&devs)
		}
	}
	ds.mu.Unlock()
	if last {
		w.dropSet(s)
	}
}

// dropSet closes s's device and frees its world ranks.
func (w *World) dropSet(s *peerSet) {
	if err := s.dev.Close(); err != nil {
		w.logf("gmpi: closing the links to another job: %v", err)
	}
	ds := &w.dyn
	ds.mu.Lock()
	for k := s.base - w.cfg.Size; k < s.base-w.cfg.Size+s.n; k++ {
		ds.owner[k] = nil
	}
	ds.mu.Unlock()
}

// clearFailures forgets the lost-peer records of world ranks being reused.
func (w *World) clearFailures(base, n int) {
	f := &w.p2px.failures
	f.mu.Lock()
	for p := base; p < base+n; p++ {
		delete(f.errs, p)
	}
	f.mu.Unlock()
}

// pollDynamic polls the devices of other jobs' processes.
func (w *World) pollDynamic() int {
	n := 0
	if p := w.dyn.devs.Load(); p != nil {
		for _, d := range *p {
			n += d.Poll()
		}
	}
	return n
}

// refPeers makes c (a communicator with a handle) hold the peer sets of
// the other jobs' processes it names, until it is freed.
func (w *World) refPeers(c *Comm) {
	if w.dyn.n.Load() == 0 {
		return
	}
	ds := &w.dyn
	var sets []*peerSet
	ds.mu.Lock()
	for _, rs := range [][]int{c.group, c.remote} {
		for _, r := range rs {
			if k := r - w.cfg.Size; k >= 0 && k < dynCap && ds.owner[k] != nil {
				s := ds.owner[k]
				dup := false
				for _, t := range sets {
					dup = dup || t == s
				}
				if !dup {
					s.refs++
					sets = append(sets, s)
				}
			}
		}
	}
	ds.mu.Unlock()
	if len(sets) > 0 {
		c.onFree = append(c.onFree, func() {
			for _, s := range sets {
				w.unref(s)
			}
		})
	}
}

// closeDynamic closes every remaining link to other jobs (MPI_Finalize).
func (w *World) closeDynamic() {
	ds := &w.dyn
	ds.mu.Lock()
	var sets []*peerSet
	for _, s := range ds.owner {
		if s != nil && (len(sets) == 0 || sets[len(sets)-1] != s) {
			sets = append(sets, s)
		}
	}
	ds.devs.Store(nil)
	ds.n.Store(0)
	ds.mu.Unlock()
	for _, s := range sets {
		if err := s.dev.Close(); err != nil {
			w.logf("gmpi: closing the links to another job: %v", err)
		}
	}
}

// Roles in ConnectJobs.
const (
	RoleConnect = 0
	RoleAccept  = 1
	RoleEither  = 2 // MPI_Comm_join: the roots' random numbers decide
)

// ConnectJobs is the collective part of MPI_Comm_accept, MPI_Comm_connect
// and MPI_Comm_join over l: it returns an intercommunicator whose remote
// group is the group of the job at the other end of the roots'
// connection. conn is called at root only, after every member opened its
// endpoint; key (root only) is the secret both roots know (the port's),
// from which the link secret is derived; lerr is an argument error found
// at root, which fails the call on every member.
func (l *Comm) ConnectJobs(root int, role int, conn func() (RootConn, error), key []byte, lerr error) (*Comm, error) {
	return l.inOrder(func() (*Comm, error) { return l.connectJobs(root, role, conn, key, lerr) })
}

// jobLink is what the roots agree on, broadcast to every member.
type jobLink struct {
	first       bool     // this group is numbered first (the acceptor)
	cards       []string // remote group's cards
	hosts       []string // remote group's hosts
	secret, tag []byte
	job         string // the remote job's name
}

func (l *Comm) connectJobs(root, role int, conn func() (RootConn, error), key []byte, lerr error) (*Comm, error) {
	w := l.w
	var ep LinkEndpoint
	mine := "!"
	if w.dyn.linker == nil {
		mine += "this process cannot reach other jobs"
	} else if e, err := w.dyn.linker(); err != nil {
		mine += err.Error()
	} else {
		ep, mine = e, w.cfg.Hostname+"\n"+e.Card()
	}
	closeEP := func() {
		if ep != nil {
			ep.Close()
		}
	}
	all, err := l.sysAllgather([]byte(mine), 0)
	if err != nil {
		closeEP()
		return nil, err
	}
	var out []byte
	var rc RootConn
	if l.rank == root && lerr == nil {
		for r, b := range all {
			if len(b) > 0 && b[0] == '!' {
				lerr = Errorf(ErrOther, "", "rank %d cannot open an endpoint for the new links: %s", r, b[1:])
				break
			}
		}
		if lerr == nil {
			rc, lerr = conn()
		}
		if lerr == nil {
			out, lerr = rootHello(rc, role, key, all, w.jobName())
		}
	}
	b, err := l.leaderBcast(root, out, lerr)
	if err != nil {
		closeEP()
		return nil, err
	}
	lk, err := decodeLink(b)
	if err != nil {
		closeEP()
		return nil, err
	}
	// Number both groups alike: the first group, then the other.
	nl, nr := len(all), len(lk.cards)
	myOff, theirOff := 0, nl
	if !lk.first {
		myOff, theirOff = nr, 0
	}
	cards, hosts := make([]string, nl+nr), make([]string, nl+nr)
	for r, b := range all {
		h, c, _ := strings.Cut(string(b), "\n")
		cards[myOff+r], hosts[myOff+r] = c, h
	}
	peers := make([]int, nr)
	for r := range nr {
		cards[theirOff+r], hosts[theirOff+r] = lk.cards[r], lk.hosts[r]
		peers[r] = theirOff + r
	}
	d, err := ep.Build(myOff+l.rank, peers, cards, hosts, lk.secret, "gmpi-link-"+hex.EncodeToString(lk.tag))
	if err != nil {
		ep.Close()
		return nil, Errorf(ErrOther, "", "building the links to the other job: %v", err)
	}
	set, err := w.attachPeers(d, theirOff, nr, lk.job, lk.hosts)
	if err != nil {
		d.Close()
		return nil, err
	}
	defer w.unref(set)
	if wd, ok := d.(Watcher); ok {
		wd.Watch(theirOff + l.rank%nr)
	}
	var xchg func([]byte) ([]byte, error)
	if rc != nil {
		xchg = func(b []byte) ([]byte, error) {
			if err := rc.Send(b); err != nil {
				return nil, Errorf(ErrPort, "", "lost the other job's root: %v", err)
			}
			in, err := rc.Recv()
			if err != nil {
				return nil, Errorf(ErrPort, "", "lost the other job's root: %v", err)
			}
			return in, nil
		}
	}
	seed := binary.LittleEndian.Uint64(lk.tag)
	pairs, err := agreePairs(l, root, 2, seed, xchg)
	if err != nil {
		return nil, err
	}
	remote := make([]int, nr)
	for r := range remote {
		remote[r] = set.base + r
	}
	nc, err := l.deriveInter(append([]int(nil), l.group...), remote, pairs)
	if err != nil {
		return nil, err
	}
	nc.dynSeed = seed | 1
	nc.dynFirst = lk.first
	return nc, nil
}

// rootHello swaps the groups' cards with the other root and derives the
// link secret; it returns the broadcast for the local group.
func rootHello(rc RootConn, role int, key []byte, cards [][]byte, job string) ([]byte, error) {
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, Errorf(ErrOther, "", "random nonce: %v", err)
	}
	hello := append([]byte{byte(role)}, nonce[:]...)
	hello = appendBlobs(hello, cards)
	hello = appendBlobs(hello, [][]byte{[]byte(job)})
	if err := rc.Send(hello); err != nil {
		return nil, Errorf(ErrPort, "", "sending to the other job's root: %v", err)
	}
	in, err := rc.Recv()
	if err != nil {
		return nil, Errorf(ErrPort, "", "receiving from the other job's root: %v", err)
	}
	if len(in) < 33 {
		return nil, Errorf(ErrPort, "", "malformed hello from the other job's root (%d bytes)", len(in))
	}
	theirRole, theirNonce := int(in[0]), in[1:33]
	theirCards, rest, ok := takeBlobs(in[33:])
	var theirJob [][]byte
	if ok {
		theirJob, ok = splitBlobs(rest)
	}
	if !ok || len(theirCards) == 0 || len(theirJob) != 1 {
		return nil, Errorf(ErrPort, "", "malformed hello from the other job's root")
	}
	var first bool
	switch {
	case role == RoleAccept && theirRole == RoleConnect:
		first = true
	case role == RoleConnect && theirRole == RoleAccept:
	case role == RoleEither && theirRole == RoleEither:
		c := strings.Compare(string(nonce[:]), string(theirNonce))
		if c == 0 {
			return nil, Errorf(ErrOther, "", "both roots drew the same random number")
		}
		first = c < 0
	default:
		return nil, Errorf(ErrPort, "", "the other end is not a matching MPI_Comm_accept/connect/join (role %d against %d)", theirRole, role)
	}
	a, c := nonce[:], theirNonce
	if !first {
		a, c = c, a
	}
	if key == nil {
		key = []byte("gmpi-join")
	}
	mac := func(label string) []byte {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(label))
		m.Write(a)
		m.Write(c)
		return m.Sum(nil)
	}
	var hosts, crds [][]byte
	for _, b := range theirCards {
		h, cd, found := strings.Cut(string(b), "\n")
		if !found {
			return nil, Errorf(ErrPort, "", "malformed card from the other job")
		}
		hosts, crds = append(hosts, []byte(h)), append(crds, []byte(cd))
	}
	out := []byte{0}
	if first {
		out[0] = 1
	}
	out = appendBlobs(out, [][]byte{mac("gmpi-link-secret"), mac("gmpi-link-id")[:8]})
	out = appendBlobs(out, crds)
	out = appendBlobs(out, hosts)
	return appendBlobs(out, theirJob), nil
}

func decodeLink(b []byte) (*jobLink, error) {
	bad := Errorf(ErrIntern, "", "malformed link description from the local root")
	if len(b) < 1 {
		return nil, bad
	}
	lk := &jobLink{first: b[0] == 1}
	rest := b[1:]
	var parts [4][][]byte
	for i := range parts {
		var ok bool
		if parts[i], rest, ok = takeBlobs(rest); !ok {
			return nil, bad
		}
	}
	if len(parts[0]) != 2 || len(parts[0][1]) != 8 || len(parts[1]) != len(parts[2]) || len(parts[1]) == 0 || len(parts[3]) != 1 {
		return nil, bad
	}
	lk.secret, lk.tag, lk.job = parts[0][0], parts[0][1], string(parts[3][0])
	for i := range parts[1] {
		lk.cards = append(lk.cards, string(parts[1][i]))
		lk.hosts = append(lk.hosts, string(parts[2][i]))
	}
	return lk, nil
}

// appendBlobs appends a count and length-prefixed blobs.
func appendBlobs(b []byte, blobs [][]byte) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(len(blobs)))
	for _, x := range blobs {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(x)))
		b = append(b, x...)
	}
	return b
}

// takeBlobs reads what appendBlobs wrote and returns the rest.
func takeBlobs(b []byte) ([][]byte, []byte, bool) {
	if len(b) < 4 {
		return nil, nil, false
	}
	n := binary.LittleEndian.Uint32(b)
	b = b[4:]
	if uint64(n) > uint64(len(b))/4 {
		return nil, nil, false
	}
	out := make([][]byte, n)
	for i := range out {
		if len(b) < 4 {
			return nil, nil, false
		}
		l := binary.LittleEndian.Uint32(b)
		b = b[4:]
		if uint64(l) > uint64(len(b)) {
			return nil, nil, false
		}
		out[i], b = b[:l:l], b[l:]
	}
	return out, b, true
}

func splitBlobs(b []byte) ([][]byte, bool) {
	out, rest, ok := takeBlobs(b)
	return out, ok && len(rest) == 0
}

// ForeignRank reports whether world rank r is a process of another job.
func (w *World) ForeignRank(r int) bool { return r >= w.cfg.Size }
