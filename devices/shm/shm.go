// Package shm is gmpi's intra-host transport: ranks of one job placed on the
// same host exchange frames through single-producer/single-consumer rings in
// POSIX shared memory, and copy large messages once with process_vm_readv.
//
// Each rank creates one segment holding its doorbell and one ring per local
// peer (frames from that peer to it); see layout.go for the byte layout.
// Senders write into the ring reserved for them in the receiver's segment,
// then ring the receiver's doorbell, an mpirt.FutexWaker in that segment, so
// a receiver that sleeps is woken within a futex wake.
//
// Lifecycle:
//
//	New: create own segment, KVS.Put card, KVS.Barrier, map the peers'
//	     segments, KVS.Barrier, unlink own segment   (nothing in /dev/shm)
//	Start(h) → Send / Poll / ReadRemote ... → Close (unmap)
package shm

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"gmpi/devices/shm/internal/line"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Config describes this rank's place among the ranks of its host.
type Config struct {
	// JobID names the job; segments are /dev/shm/gmpi-<JobID>-<rank>. It
	// must be unique among jobs running on the host and must not contain
	// '/'.
	JobID string
	// Rank is this process's rank in MPI_COMM_WORLD.
	Rank int
	// Peers are the world ranks of the other ranks on this host, sorted
	// ascending, without Rank. Empty for a rank alone on its host.
	Peers []int
	// KVS is the job's key-value space. New calls Put once (when Peers is
	// not empty) and Barrier exactly twice, whatever Peers holds, so every
	// rank of the job must call New once.
	KVS mpirt.KVS
	// RingBytes is the capacity of each ring this rank receives on,
	// rounded up to a power of two within [MinRingBytes, MaxRingBytes].
	// 0 means GMPI_SHM_RING (bytes, or with a K/M/G suffix) if set, else
	// DefaultRingBytes, reduced when many peers would make the segment
	// exceed 8 MiB.
	RingBytes int
	// SingleCopy offers ReadRemote to the runtime for rendezvous
	// (RemoteReadable) when process_vm_readv works. Off, large messages
	// stream through the ring in frames.
	SingleCopy bool
	// Params are the tunables (GMPI_SHM_RING, GMPI_SHM_FRAME,
	// GMPI_SHM_PREFETCH, GMPI_SHM_PIPE); nil: New reads the process environment.
	Params *param.Values
}

// Device is one rank's end of the shared-memory transport. It implements
// mpirt.Device and mpirt.RemoteReader.
type Device struct {
	rank  int
	pid   int
	page  int
	waker *mpirt.FutexWaker

	handler    mpirt.Handler
	maxPayload int
	frame      int    // GMPI_SHM_FRAME: the largest frame wanted
	prefetch   uint64 // GMPI_SHM_PREFETCH: how far past its tail Send asks for a line
	pipe       uint64 // GMPI_SHM_PIPE: the express lane's pipelined send's chunk
	canRemote  bool
	singleCopy bool // Config.SingleCopy
	// cost is what the copy probe measured (probe.go); costOK false:
	// no probe (single copy off or impossible) or it failed.
	cost    copyCost
	costOK  bool
	costErr error // why there is no probe result
	// single: one thread uses the device (SetSingleThreaded), so Send
	// and Poll skip their locks.
	single bool

	own     []byte // this rank's segment
	ownPath string // its name, "" once unlinked
	ownBell *uint32

	peers  []*peer // sorted by rank
	byRank []*peer // indexed by world rank; nil for a rank not on this host

	// Consumer side, guarded by pollMu (taken with TryLock by Poll).
	pollMu sync.Mutex
	rx     []rxRing
	rxHdr  mpirt.Header // the header handed to the Handler (no allocation)
	gate   bool         // check the doorbell before scanning the rings
	seen   uint32       // event count at the last full scan (gate)

	closed atomic.Bool
}

// peer is the producer side towards one local peer, plus what we know of it.
type peer struct {
	mu sync.Mutex // serializes senders: the ring has a single producer

	// Guarded by mu: tail and head (C memory, shared with the express
	// lane, express.go).
	tx *txState

	data    []byte  // our ring in the peer's segment
	mask    uint64  // len(data)-1
	headp   *uint64 // consumer's head
	wantp   *uint32 // we wait for space
	closedp *uint32 // the peer closed its device
	bell    *mpirt.FutexWaker

	rank int
	pid  int
	addr uintptr // where the peer mapped its own segment (probe)
	seg  []byte  // the whole mapping of the peer's segment

	_ [64]byte // keep neighbouring peers' locks off this line
}

// rxRing is the consumer side of one ring in our own segment. Its
// position lives in C memory (rxState, express.go), shared with the
// express lane's receive.
type rxRing struct {
	data  []byte
	mask  uint64
	st    *rxState
	headp *uint64 // published head
	wantp *uint32 // producer waits for space
	bell  *mpirt.FutexWaker
	rank  int
}

var (
	_ mpirt.Device       = (*Device)(nil)
	_ mpirt.RemoteReader = (*Device)(nil)
)

// gateMin is the number of peers from which Poll first checks the doorbell
// (one load) instead of the next ctl word of every ring.
const gateMin = 8

// ErrClosed is returned by Send after Close.
var ErrClosed = errors.New("shm: device closed")

// SegmentPath is the name of rank's segment for job jobID.
func SegmentPath(jobID string, rank int) string {
	return "/dev/shm/gmpi-" + jobID + "-" + strconv.Itoa(rank)
}

func kvsKey(rank int) string { return "shm-" + strconv.Itoa(rank) }

// New builds rank cfg.Rank's device. It is collective over the whole job
// (see Config.KVS). When New returns, with or without error, this rank's
// segment is no longer linked in /dev/shm. If any local rank fails to set
// up, every local rank that lists it returns an error naming it.
func New(cfg Config) (*Device, error) {
	if cfg.KVS == nil {
		return nil, errors.New("shm: Config.KVS is nil")
	}
	d := &Device{rank: cfg.Rank, pid: os.Getpid(), page: unix.Getpagesize(), singleCopy: cfg.SingleCopy}
	params, err := param.OrEnv(cfg.Params)
	if err != nil {
		err = fmt.Errorf("shm: %w", err)
	}
	cfg.Params = params
	d.prefetch = uint64(param.ShmPrefetch.Get(params))
	d.pipe = uint64(param.ShmPipe.Get(params))
	d.frame = param.ShmFrame.Get(params)
	var ringBytes uint64
	if err == nil {
		ringBytes, err = ringSize(cfg)
	}
	if err == nil {
		err = checkConfig(cfg)
	}
	if len(cfg.Peers) == 0 {
		d.waker = mpirt.NewLocalWaker()
	} else {
		if err == nil {
			err = d.create(cfg, ringBytes)
		}
		card := fmt.Sprintf("%d %x", d.pid, addrOf(d.own))
		if err != nil {
			card = "error " + err.Error()
		}
		if perr := cfg.KVS.Put(kvsKey(cfg.Rank), card); perr != nil {
			d.release(false)
			return nil, fmt.Errorf("shm: rank %d: publishing segment: %w", cfg.Rank, perr)
		}
	}
	if berr := cfg.KVS.Barrier(); berr != nil {
		d.release(false)
		return nil, fmt.Errorf("shm: rank %d: first barrier: %w", cfg.Rank, berr)
	}
	if err == nil && len(cfg.Peers) > 0 {
		err = d.attach(cfg)
	}
	if err == nil {
		// Every peer has its segment mapped until the second barrier, so
		// the probe reads live memory.
		d.canRemote = d.probe()
		// The lowest local rank measures copies for the host while the
		// others wait in the barrier (their cores idle: probe.go).
		if d.canRemote && d.singleCopy && len(cfg.Peers) > 0 && cfg.Rank < cfg.Peers[0] {
			d.cost, d.costErr = probeCopy(d.pid)
			if d.costErr == nil {
				d.cost.store(d.own)
			}
		}
	}
	berr := cfg.KVS.Barrier()
	if err == nil && berr == nil && d.canRemote && d.singleCopy && len(cfg.Peers) > 0 && cfg.Peers[0] < cfg.Rank {
		d.cost, d.costErr = loadCost(d.byRank[cfg.Peers[0]].seg)
	}
	d.costOK = d.costErr == nil && d.cost.sysNS > 0
	d.unlinkOwn()
	if err == nil && berr != nil {
		err = fmt.Errorf("shm: rank %d: second barrier: %w", cfg.Rank, berr)
	}
	if err != nil {
		d.release(false)
		return nil, err
	}
	return d, nil
}

func checkConfig(cfg Config) error {
	if cfg.JobID == "" || strings.ContainsAny(cfg.JobID, "/\x00") || len(cfg.JobID) > 200 {
		return fmt.Errorf("shm: rank %d: bad job id %q", cfg.Rank, cfg.JobID)
	}
	if cfg.Rank < 0 {
		return fmt.Errorf("shm: bad rank %d", cfg.Rank)
	}
	for i, p := range cfg.Peers {
		if p < 0 || p == cfg.Rank || (i > 0 && p <= cfg.Peers[i-1]) {
			return fmt.Errorf("shm: rank %d: peers %v must be sorted, unique, non-negative and exclude the rank itself", cfg.Rank, cfg.Peers)
		}
	}
	return nil
}

// ringSize picks the ring capacity (see Config.RingBytes).
func ringSize(cfg Config) (uint64, error) {
	n := cfg.RingBytes
	if n == 0 {
		p, err := param.OrEnv(cfg.Params)
		if err != nil {
			return 0, fmt.Errorf("shm: %w", err)
		}
		n = param.ShmRing.Get(p)
	}
	if n == 0 {
		r := uint64(DefaultRingBytes)
		for len(cfg.Peers) > 0 && r > minDefaultRing && r*uint64(len(cfg.Peers)) > segmentBudget {
			r /= 2
		}
		return r, nil
	}
	if n < 0 || n > MaxRingBytes {
		return 0, fmt.Errorf("shm: ring size %d out of range [%d, %d]", n, MinRingBytes, MaxRingBytes)
	}
	r := uint64(MinRingBytes)
	for r < uint64(n) {
		r *= 2
	}
	return r, nil
}

// create makes, sizes, maps and initializes this rank's segment.
func (d *Device) create(cfg Config, ringBytes uint64) error {
	// Let peers read our memory with process_vm_readv under Yama
	// (ptrace_scope 1). EINVAL without Yama: nothing to do.
	_ = unix.Prctl(unix.PR_SET_PTRACER, ^uintptr(0), 0, 0, 0)

	path := SegmentPath(cfg.JobID, cfg.Rank)
	ctrl, total := segLayout(len(cfg.Peers), ringBytes, d.page)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0o600)
	if err != nil {
		if errors.Is(err, unix.EEXIST) {
			return fmt.Errorf("shm: rank %d: segment %s already exists (another job with id %q, or a leftover of a killed one): %w", cfg.Rank, path, cfg.JobID, err)
		}
		return fmt.Errorf("shm: rank %d: creating %s: %w", cfg.Rank, path, err)
	}
	d.ownPath = path
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(total)); err != nil {
		return fmt.Errorf("shm: rank %d: sizing %s to %d bytes: %w", cfg.Rank, path, total, err)
	}
	mem, err := mapShared(fd, int(total))
	if err != nil {
		return fmt.Errorf("shm: rank %d: mapping %s (%d bytes): %w", cfg.Rank, path, total, err)
	}
	d.own = mem
	*u32(mem, offNRings) = uint32(len(cfg.Peers))
	*u64(mem, offRingBytes) = ringBytes
	*u64(mem, offOwner) = uint64(cfg.Rank)
	d.ownBell = u32(mem, offEpoch)
	d.waker = mpirt.NewFutexWaker(d.ownBell, u32(mem, offWaiters))
	d.rx = make([]rxRing, len(cfg.Peers))
	for i, p := range cfg.Peers {
		desc := uint64(offDesc + lineSize*i)
		*u64(mem, desc+descProducer) = uint64(p)
		off := ctrl + uint64(i)*ringBytes
		d.rx[i] = rxRing{
			data:  mem[off : off+ringBytes : off+ringBytes],
			mask:  ringBytes - 1,
			headp: u64(mem, desc+descHead),
			wantp: u32(mem, desc+descWant),
			rank:  p,
			st:    newRxState(),
		}
		*d.rx[i].st = rxState{data: &d.rx[i].data[0], mask: ringBytes - 1,
			headp: d.rx[i].headp, wantp: d.rx[i].wantp}
	}
	d.gate = len(cfg.Peers) >= gateMin
	d.seen = atomic.LoadUint32(d.ownBell) - 1 // first Poll scans
	atomic.StoreUint64(u64(mem, offMagic), magic)
	return nil
}

// attach maps every peer's segment and finds our ring in it.
func (d *Device) attach(cfg Config) error {
	d.byRank = make([]*peer, max(cfg.Rank, cfg.Peers[len(cfg.Peers)-1])+1)
	minRing := uint64(1) << 62
	for i, r := range cfg.Peers {
		p, err := d.attachPeer(cfg, r)
		if err != nil {
			return err
		}
		d.peers = append(d.peers, p)
		d.byRank[r] = p
		d.rx[i].bell = p.bell // wake the producer when it waits for space
		d.rx[i].st.epoch, d.rx[i].st.waiters = p.tx.epoch, p.tx.waiters
		minRing = min(minRing, p.mask+1, d.rx[i].mask+1)
	}
	// Frames of at most 64 KiB (GMPI_SHM_FRAME): a large message then
	// streams through the ring in pieces small enough that the sender's
	// copy in and the receiver's copy out overlap.
	d.maxPayload = int(min(minRing/4, uint64(d.frame)))
	for _, p := range d.peers {
		p.tx.maxPayload = uint64(d.maxPayload)
		if d.gate {
			p.tx.gate = 1
		}
	}
	return nil
}

func (d *Device) attachPeer(cfg Config, r int) (*peer, error) {
	card, err := cfg.KVS.Get(kvsKey(r))
	if err != nil {
		return nil, fmt.Errorf("shm: rank %d: reading card of local rank %d: %w", d.rank, r, err)
	}
	if msg, ok := strings.CutPrefix(card, "error "); ok {
		return nil, fmt.Errorf("shm: rank %d: local rank %d failed to set up shared memory: %s", d.rank, r, msg)
	}
	p := &peer{rank: r}
	if _, err := fmt.Sscanf(card, "%d %x", &p.pid, &p.addr); err != nil {
		return nil, fmt.Errorf("shm: rank %d: bad card %q from local rank %d", d.rank, card, r)
	}
	path := SegmentPath(cfg.JobID, r)
	fd, err := unix.Open(path, unix.O_RDWR|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
	if err != nil {
		return nil, fmt.Errorf("shm: rank %d: opening segment %s of local rank %d: %w", d.rank, path, r, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shm: rank %d: stat %s: %w", d.rank, path, err)
	}
	if st.Size < int64(d.page) {
		return nil, fmt.Errorf("shm: rank %d: segment %s of local rank %d is too small (%d bytes)", d.rank, path, r, st.Size)
	}
	mem, err := mapShared(fd, int(st.Size))
	if err != nil {
		return nil, fmt.Errorf("shm: rank %d: mapping %s: %w", d.rank, path, err)
	}
	p.seg = mem
	bad := func(what string) (*peer, error) {
		unmap(mem)
		return nil, fmt.Errorf("shm: rank %d: segment %s of local rank %d: %s", d.rank, path, r, what)
	}
	if atomic.LoadUint64(u64(mem, offMagic)) != magic {
		return bad("bad magic (not a gmpi segment, or another version)")
	}
	if owner := *u64(mem, offOwner); owner != uint64(r) {
		return bad(fmt.Sprintf("belongs to rank %d", owner))
	}
	n := uint64(*u32(mem, offNRings))
	ringBytes := *u64(mem, offRingBytes)
	if ringBytes < MinRingBytes || ringBytes > MaxRingBytes || ringBytes&(ringBytes-1) != 0 {
		return bad(fmt.Sprintf("bad ring size %d", ringBytes))
	}
	ctrl, total := segLayout(int(n), ringBytes, d.page)
	if total != uint64(st.Size) {
		return bad(fmt.Sprintf("size %d, want %d for %d rings of %d bytes", st.Size, total, n, ringBytes))
	}
	slot := -1
	for i := uint64(0); i < n; i++ {
		if *u64(mem, offDesc+lineSize*i+descProducer) == uint64(d.rank) {
			slot = int(i)
			break
		}
	}
	if slot < 0 {
		return bad(fmt.Sprintf("has no ring for rank %d (do the ranks agree on who shares the host?)", d.rank))
	}
	desc := uint64(offDesc + lineSize*slot)
	off := ctrl + uint64(slot)*ringBytes
	p.data = mem[off : off+ringBytes : off+ringBytes]
	p.mask = ringBytes - 1
	p.headp = u64(mem, desc+descHead)
	p.wantp = u32(mem, desc+descWant)
	p.closedp = u32(mem, offClosed)
	p.bell = mpirt.NewFutexWaker(u32(mem, offEpoch), u32(mem, offWaiters))
	p.tx = newTxState()
	*p.tx = txState{data: &p.data[0], mask: p.mask, headp: p.headp,
		epoch: u32(mem, offEpoch), waiters: u32(mem, offWaiters)}
	return p, nil
}

// unlinkOwn removes our segment's name; the mappings stay.
func (d *Device) unlinkOwn() {
	if d.ownPath != "" {
		unix.Unlink(d.ownPath)
		d.ownPath = ""
	}
}

// release unmaps everything and unlinks our segment. With keepBell (Close)
// the doorbell words stay valid for a Waker the runtime may still hold;
// after a failed New nobody holds it. The caller excludes every Send and
// Poll.
func (d *Device) release(keepBell bool) {
	d.unlinkOwn()
	for _, p := range d.peers {
		unmap(p.seg)
		p.seg, p.data = nil, nil
		if p.tx != nil {
			freeState(unsafe.Pointer(p.tx))
			p.tx = nil
		}
	}
	for i := range d.rx {
		if d.rx[i].st != nil {
			freeState(unsafe.Pointer(d.rx[i].st))
			d.rx[i].st = nil
		}
	}
	if d.own != nil {
		if keepBell {
			if detachKeepingFirstPage(d.own, d.page) != nil {
				return // keep the whole mapping rather than leave a dangling Waker
			}
		} else {
			unmap(d.own)
		}
		d.own = nil
	}
}

// Name returns "shm".
func (d *Device) Name() string { return "shm" }

// Start records the Handler; call it once, before any Send or Poll.
func (d *Device) Start(h mpirt.Handler) error {
	if h == nil {
		return errors.New("shm: nil handler")
	}
	d.handler = h
	return nil
}

// Waker is the process doorbell, in this rank's segment: every Send from a
// local peer rings it. Other devices of the process may ring it too. It
// stays usable after Close (as a process-private doorbell).
func (d *Device) Waker() mpirt.Waker { return d.waker }

// MaxPayload is a quarter of the smallest ring this rank sends into or
// receives from (64 KiB with the default ring).
func (d *Device) MaxPayload() int {
	if d.maxPayload == 0 {
		return DefaultRingBytes / 4
	}
	return d.maxPayload
}

// Peers returns the world ranks this device reaches.
func (d *Device) Peers() []int {
	out := make([]int, len(d.peers))
	for i, p := range d.peers {
		out[i] = p.rank
	}
	return out
}

// Send appends one frame to the ring towards peer and rings the peer's
// doorbell. When the ring is full it spins, delivering incoming frames
// through Poll meanwhile, then sleeps on this process's doorbell until the
// consumer frees space; it fails if the peer closed its device or its
// process is gone. Frames to one peer arrive in the order their Sends
// returned (concurrent Sends to one peer are serialized).
func (d *Device) Send(peer int, hdr mpirt.Header, payload []byte) error {
	if uint(peer) >= uint(len(d.byRank)) || d.byRank[peer] == nil {
		return fmt.Errorf("shm: rank %d is not a local peer of rank %d", peer, d.rank)
	}
	if len(payload) > d.maxPayload {
		return fmt.Errorf("shm: payload of %d bytes exceeds the maximum of %d", len(payload), d.maxPayload)
	}
	p := d.byRank[peer]
	d.lockPeer(p)
	if d.closed.Load() {
		d.unlockPeer(p)
		return ErrClosed
	}
	n := uint64(len(payload))
	rec := recSize(n)
	size := p.mask + 1
	tx := p.tx
	pos := tx.tail & p.mask
	need := rec
	if pos+rec > size {
		need += size - pos // skip to the start of the ring
	}
	if tx.tail+need+lineSize-tx.head > size {
		if err := d.waitSpace(p, need); err != nil {
			d.unlockPeer(p)
			return err
		}
	}
	at := pos
	if need != rec {
		at = 0
	}
	storeHeader(p.data, at+8, &hdr)
	copy(p.data[at+recHdr:at+recHdr+n], payload)
	publishCtl(u64(p.data, at), ctlValid|n)
	if at != pos {
		publishCtl(u64(p.data, pos), ctlSkip)
	}
	tx.tail += need
	// A nonblocking send (its frame names a request) usually comes in a
	// batch: ask for a line a little ahead while nobody needs it. The
	// caller soon executes a locked instruction (the return to C does
	// one), which waits until every earlier store owns its line, so a
	// batch goes faster when its lines are already here. Blocking sends
	// (SendID 0) skip it: in a ping-pong the prefetch would fight the
	// peer's own prefetcher over lines next to the one it polls.
	if hdr.SendID != 0 && hdr.Kind == mpirt.FrameEager {
		line.PrefetchW(&p.data[(tx.tail+d.prefetch)&p.mask])
	}
	// Under mu: Close unmaps p.bell only after taking mu. Without the
	// gate, receivers find frames by looking at the rings, so the shared
	// event count is advanced only when the receiver sleeps.
	if d.gate {
		p.bell.Wake()
	} else {
		p.bell.Ring()
	}
	d.unlockPeer(p)
	return nil
}

// SetSingleThreaded says whether only one thread calls Send and Poll (the
// process runs below MPI_THREAD_MULTIPLE): they then skip their locks.
// Call it while no Send or Poll runs.
func (d *Device) SetSingleThreaded(b bool) { d.single = b }

func (d *Device) lockPeer(p *peer) {
	if !d.single {
		p.mu.Lock()
	}
}

func (d *Device) unlockPeer(p *peer) {
	if !d.single {
		p.mu.Unlock()
	}
}

func (d *Device) unlockPoll() {
	if !d.single {
		d.pollMu.Unlock()
	}
}

// Spin and sleep parameters of waitSpace.
const (
	spinFor    = 50 * time.Microsecond
	sleepFor   = time.Millisecond
	aliveEvery = 100 // sleeps between checks that the peer process lives
)

// waitSpace waits until need bytes plus one line are free in p's ring.
// Caller holds p.mu.
func (d *Device) waitSpace(p *peer, need uint64) error {
	size := p.mask + 1
	fits := func() bool {
		p.tx.head = atomic.LoadUint64(p.headp)
		return p.tx.tail+need+lineSize-p.tx.head <= size
	}
	start := time.Now()
	for i := 0; ; i++ {
		if fits() {
			return nil
		}
		if d.closed.Load() {
			return ErrClosed
		}
		if atomic.LoadUint32(p.closedp) != 0 {
			return fmt.Errorf("shm: local rank %d closed its device", p.rank)
		}
		if d.Poll() > 0 {
			continue
		}
		if i&15 != 15 {
			continue
		}
		if time.Since(start) < spinFor {
			// Let the consumer run, whether it is another process on
			// this core or a goroutine on this P.
			unix.Syscall(unix.SYS_SCHED_YIELD, 0, 0, 0)
			runtime.Gosched()
			continue
		}
		// Sleep on our doorbell; the consumer rings it after moving head
		// when it sees wantSpace.
		e := d.waker.Epoch()
		atomic.StoreUint32(p.wantp, 1)
		if fits() || d.Poll() > 0 {
			atomic.StoreUint32(p.wantp, 0)
			continue
		}
		d.waker.Sleep(e, sleepFor)
		atomic.StoreUint32(p.wantp, 0)
		if (i/16)%aliveEvery == 0 && p.pid != d.pid {
			if err := unix.Kill(p.pid, 0); errors.Is(err, unix.ESRCH) {
				return fmt.Errorf("shm: local rank %d (pid %d) is gone", p.rank, p.pid)
			}
		}
	}
}

// Poll delivers the frames that arrived from every local peer, in order
// per peer, through the Handler, and frees their ring space. The payload
// handed to the Handler aliases the ring and is valid only during the
// call. If another goroutine is polling, Poll returns 0 at once. With
// nothing pending it costs one atomic load per ring, or one in all with
// many peers (it then checks the doorbell first). One call consumes at most
// one ring's worth of bytes per peer.
func (d *Device) Poll() int {
	if !d.single && !d.pollMu.TryLock() {
		return 0
	}
	if d.closed.Load() || d.handler == nil {
		d.unlockPoll()
		return 0
	}
	var e uint32
	if d.gate {
		e = atomic.LoadUint32(d.ownBell)
		if e == d.seen {
			d.unlockPoll()
			return 0
		}
	}
	n, more := 0, false
	for i := range d.rx {
		k, m := d.drain(&d.rx[i])
		n += k
		more = more || m
	}
	if d.gate {
		d.seen = e
		if more {
			d.seen = e - 1
		}
	}
	d.unlockPoll()
	return n
}

// drain delivers the published records of r. more reports that it stopped
// at its budget of one ring's worth of bytes. Caller holds pollMu.
func (d *Device) drain(r *rxRing) (n int, more bool) {
	st := r.st
	if st.broken != 0 {
		return 0, false
	}
	size := r.mask + 1
	start := st.head
	for st.head-start < size {
		pos := st.head & r.mask
		c := atomic.LoadUint64(u64(r.data, pos))
		if c == 0 {
			break
		}
		if c&ctlSkip != 0 {
			*u64(r.data, pos) = 0
			st.head += size - pos
			continue
		}
		if c&ctlPartial != 0 {
			break // still being written (layout.go): not there yet
		}
		ln := c & ctlLen
		rec := recSize(ln)
		if c&ctlValid == 0 || pos+rec > size || ln > size/4 {
			st.broken = 1 // a corrupt ring cannot be resynchronized
			break
		}
		loadHeader(&d.rxHdr, r.data, pos+8)
		d.handler(r.rank, &d.rxHdr, r.data[pos+recHdr:pos+recHdr+ln:pos+recHdr+ln])
		// Restore the invariant (layout.go) over the record's lines.
		for off := pos; off < pos+rec; off += lineSize {
			*u64(r.data, off) = 0
		}
		st.head += rec
		n++
		if ln >= publishEvery {
			// Free a big record's space at once, so that a sender
			// streaming a large message refills the ring while we copy
			// the next record out (the two copies overlap).
			d.publish(r)
		}
	}
	if st.head-st.published >= size/4 || atomic.LoadUint32(r.wantp) != 0 {
		d.publish(r)
	}
	return n, st.head-start >= size
}

// publishEvery is the record size from which drain frees ring space
// record by record instead of once per drain.
const publishEvery = 4 << 10

// publish makes the consumed bytes of r available to its producer and
// wakes the producer if it sleeps waiting for space.
func (d *Device) publish(r *rxRing) {
	st := r.st
	if st.head == st.published {
		return
	}
	st.published = st.head
	atomic.StoreUint64(r.headp, st.head)
	if atomic.LoadUint32(r.wantp) != 0 {
		r.bell.Wake()
	}
}

// Close marks the device closed in its segment (peers waiting for space in
// our rings give up), waits for running Polls and Sends, unmaps every
// segment and unlinks its own if still linked. No Handler call is made
// after Close returns. Send then fails with ErrClosed and Poll returns 0.
// The Waker stays usable. Close is idempotent.
func (d *Device) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil
	}
	if d.own != nil {
		atomic.StoreUint32(u32(d.own, offClosed), 1)
	}
	d.pollMu.Lock()
	for _, p := range d.peers {
		p.mu.Lock()
	}
	d.release(true)
	for _, p := range d.peers {
		p.mu.Unlock()
	}
	d.pollMu.Unlock()
	return nil
}

// DebugDump writes the state of every ring (hang diagnosis,
// GMPI_DEBUG_SIGNAL): consumer positions and the control word at the head
// of each ring we read, producer positions of each ring we write. It reads
// without locks: the values are a snapshot, possibly torn.
func (d *Device) DebugDump(out io.Writer) {
	for i := range d.rx {
		r := &d.rx[i]
		st := r.st
		fmt.Fprintf(out, "  shm rx from %d: head %d published %d broken %d ctl at head %#x want %d\n",
			r.rank, st.head, st.published, st.broken, atomic.LoadUint64(u64(r.data, st.head&r.mask)), atomic.LoadUint32(r.wantp))
	}
	for _, p := range d.peers {
		fmt.Fprintf(out, "  shm tx to %d: tail %d head %d (consumer %d)\n",
			p.rank, p.tx.tail, p.tx.head, atomic.LoadUint64(p.headp))
	}
}
