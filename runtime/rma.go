package mpirt

// One-sided communication (MPI RMA windows), for processes of one host.
//
// Data path: every window has a shared control segment in /dev/shm that
// all its processes map (locks, accumulate locks, PSCW counters, the
// regions attached to dynamic windows). The window memory of
// MPI_Win_allocate and MPI_Win_allocate_shared lives in the same segment,
// so a put or get is a copy by the origin into its own mapping of the
// target's part; the memory of MPI_Win_create and MPI_Win_create_dynamic
// is the user's, reached with cross-memory attach (process_vm_readv and
// process_vm_writev on the target's pid). Either way an operation needs no
// action by the target and is complete (locally and at the target) when
// the call returns, so flushes only check their epoch, and passive target
// epochs progress while the target computes without calling MPI. The
// memory model is MPI_WIN_UNIFIED.
//
// Accumulate operations (accumulate, get_accumulate, fetch_and_op,
// compare_and_swap) take the target's accumulate lock in the control
// segment for the read-modify-write, which makes them atomic per element
// (in fact per call) against each other whatever the op and type, and
// ordered as issued (accumulate_ordering rar,raw,war,waw holds).
//
// Cost: a put or get of n contiguous bytes is one memmove (allocated
// windows) or one process_vm_writev/readv (created windows), O(n); a
// noncontiguous target type adds one iovec per block. A fence is a
// barrier over the window's private communicator. Lock and unlock are one
// atomic each (plus a futex wait under contention); post/start/complete/
// wait are one atomic per group member plus the waits.
//
// Windows whose processes are on several hosts have one control segment
// per host, shared by the window's processes of that host (indexed by
// their position among them, lidx): pairs of one host use it exactly as
// above, pairs of different hosts send their operations as messages
// served by the target's receive path (rma_net.go), which takes the
// same lock and accumulate words of the target's segment, so both kinds
// of origins are atomic and exclusive against each other.

import (
	"encoding/binary"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Window flavors, memory models, lock types and assertions (MPI ABI values).
const (
	FlavorCreate   = 1 // MPI_WIN_FLAVOR_CREATE
	FlavorAllocate = 2 // MPI_WIN_FLAVOR_ALLOCATE
	FlavorDynamic  = 3 // MPI_WIN_FLAVOR_DYNAMIC
	FlavorShared   = 4 // MPI_WIN_FLAVOR_SHARED

	ModelSeparate = 1 // MPI_WIN_SEPARATE
	ModelUnified  = 2 // MPI_WIN_UNIFIED

	LockExclusive = 234 // MPI_LOCK_EXCLUSIVE
	LockShared    = 235 // MPI_LOCK_SHARED

	ModeNocheck   = 1024  // MPI_MODE_NOCHECK
	ModeNostore   = 2048  // MPI_MODE_NOSTORE
	ModeNoput     = 4096  // MPI_MODE_NOPUT
	ModeNoprecede = 8192  // MPI_MODE_NOPRECEDE
	ModeNosucceed = 16384 // MPI_MODE_NOSUCCEED

	modeAll = ModeNocheck | ModeNostore | ModeNoput | ModeNoprecede | ModeNosucceed
)

// Control segment layout. All words are uint32 unless said otherwise.
const (
	ctrlMagic       = 0x574d5047 // "GPMW"
	ctrlBarCount    = 8          // fence barrier of a window on one host: arrivals,
	ctrlBarGen      = 12         // its generation,
	ctrlBarWait     = 16         // the sleepers on the generation
	ctrlRankStride  = 64         // per rank: lock and accumulate lock words, their sleeper counts
	ctrlLockOff     = 0
	ctrlAccOff      = 4
	ctrlLockWaitOff = 8
	ctrlAccWaitOff  = 12
	ctrlPscwWaitOff = 16 // sleepers of this rank on post/complete counters
	maxRegions      = 64 // regions per rank of a dynamic window
	regionSize      = 16 // base uint64, size uint64
	pageSize        = 4096
)

// winLayout locates the parts of a window's segment.
type winLayout struct {
	n        int
	ranks    int   // offset of the per-rank words
	post     int   // n*n post counters: post[t*n+o], bumped by t for origin o
	complete int   // n*n complete counters: complete[t*n+o], bumped by o
	regions  int   // n*maxRegions regions (dynamic windows)
	data     int   // start of the window memory (allocated flavors)
	parts    []int // offset of each rank's memory (allocated flavors)
	total    int
}

func roundUp(x, a int) int { return (x + a - 1) / a * a }

func newWinLayout(n, flavor int, sizes []int64, noncontig bool) winLayout {
	l := winLayout{n: n}
	l.ranks = 64
	l.post = l.ranks + n*ctrlRankStride
	l.complete = l.post + 4*n*n
	l.regions = roundUp(l.complete+4*n*n, 8)
	end := l.regions
	if flavor == FlavorDynamic {
		end += n * maxRegions * regionSize
	}
	l.data = roundUp(end, pageSize)
	l.total = l.data
	if flavor == FlavorAllocate || flavor == FlavorShared {
		l.parts = make([]int, n)
		off := l.data
		for r, s := range sizes {
			l.parts[r] = off
			if flavor == FlavorShared && !noncontig {
				off += int(s)
			} else {
				off += roundUp(int(s), pageSize)
			}
		}
		l.total = roundUp(off, pageSize)
	}
	if l.total == 0 {
		l.total = pageSize
	}
	return l
}

// winTarget is how this process reaches one rank's window memory.
type winTarget struct {
	pid      int
	base     uintptr // the rank's window base in its own address space
	size     int64
	dispUnit int64
	mapped   []byte // the rank's memory in this process (allocated flavors)
}

// Win is an RMA window. The epoch state is owned by the calls of this
// process on the window (MPI forbids concurrent synchronization calls on
// one window, but operations may come from several threads: mu guards
// the state).
type Win struct {
	w      *World
	handle Handle
	comm   *Comm // private duplicate of the creating communicator
	flavor int
	base   unsafe.Pointer
	size   int64
	unit   int64

	seg     []byte  // the control segment of this host's processes of the window
	net     *rmaNet // the window spans hosts (rma_net.go): the other hosts' ranks
	layout  winLayout
	lidx    []int // window rank -> index in the segment, -1: another host
	targets []winTarget
	freed   bool

	nameMu sync.Mutex
	name   string
	info   *Info

	// Attrs caches user attributes; Errh is the error handler (initially
	// MPI_ERRORS_ARE_FATAL); AttrVals is C memory capi keeps the values of
	// the predefined attributes in (freed by capi with the window).
	Attrs    Attrs
	Errh     ErrhandlerSlot
	AttrVals unsafe.Pointer

	mu             sync.Mutex
	fence          bool            // in a fence epoch
	startGroup     []int           // access epoch of PSCW: target comm ranks
	started        []uint32        // posts consumed, per target
	postGroup      []int           // exposure epoch of PSCW: origin comm ranks
	waited         []uint32        // completes consumed, per origin
	locks          map[int]int     // passive target epochs: rank -> lock type (| lockHeld once taken)
	lockAll        bool            // in a lock_all epoch
	lockAllChecked bool            // lock_all takes locks (no MPI_MODE_NOCHECK)
	lockAllHeld    []bool          // lock_all: the targets whose lock was taken
	regions        map[uintptr]int // dynamic: attached base -> slot
}

// Handle returns the window's MPI handle.
func (win *Win) Handle() Handle { return win.handle }

// Comm returns the window's communicator (a private duplicate).
func (win *Win) Comm() *Comm { return win.comm }

// Flavor, Base, Size and DispUnit are the predefined attributes' values.
func (win *Win) Flavor() int          { return win.flavor }
func (win *Win) Base() unsafe.Pointer { return win.base }
func (win *Win) Size() int64          { return win.size }
func (win *Win) DispUnit() int64      { return win.unit }

// Name returns the window's name (MPI_Win_get_name).
func (win *Win) Name() string {
	win.nameMu.Lock()
	defer win.nameMu.Unlock()
	return win.name
}

// SetName sets the window's name.
func (win *Win) SetName(s string) {
	win.nameMu.Lock()
	win.name = s
	win.nameMu.Unlock()
}

// winInfoKeys are the window hints gmpi knows, with their defaults.
var winInfoKeys = []struct{ key, def string }{
	{"no_locks", "false"},
	{"accumulate_ordering", "rar,raw,war,waw"},
	{"accumulate_ops", "same_op_no_op"},
	{"same_size", "false"},
	{"same_disp_unit", "false"},
	{"alloc_shared_noncontig", "false"},
}

// Info returns the hints in force (MPI_Win_get_info).
func (win *Win) Info() *Info {
	win.nameMu.Lock()
	defer win.nameMu.Unlock()
	out := NewInfo()
	for _, k := range winInfoKeys {
		v := k.def
		if win.info != nil {
			if s, ok := win.info.Get(k.key); ok {
				v = s
			}
		}
		out.Set(k.key, v)
	}
	return out
}

// SetInfo records the hints gmpi knows from in (MPI_Win_set_info).
func (win *Win) SetInfo(in *Info) {
	d := NewInfo()
	if in != nil {
		for _, k := range winInfoKeys {
			if v, ok := in.Get(k.key); ok {
				d.Set(k.key, v)
			}
		}
	}
	win.nameMu.Lock()
	win.info = d
	win.nameMu.Unlock()
}

// Group returns the group of the window's processes.
func (win *Win) Group() *Group { return win.comm.Group() }

// Windows of a World: direct handles in a table.
var winTables sync.Map // *World -> *HandleTable[*Win]

func (w *World) winTable() *HandleTable[*Win] {
	if t, ok := winTables.Load(w); ok {
		return t.(*HandleTable[*Win])
	}
	t, _ := winTables.LoadOrStore(w, NewHandleTable[*Win](ObjWin))
	return t.(*HandleTable[*Win])
}

// Win resolves a window handle, nil for MPI_WIN_NULL or garbage.
func (w *World) Win(h Handle) *Win {
	if h.Type() != ObjWin || h.Kind() != KindDirect {
		return nil
	}
	win, ok := w.winTable().Get(h)
	if !ok {
		return nil
	}
	return win
}

// WinCount is the number of live windows (leak checks).
func (w *World) WinCount() int { return w.winTable().Len() }

var winSeq atomic.Uint64

// winCard is what each process tells the others at window creation.
type winCard struct {
	pid, base, size, unit int64
}

// NewWin creates a window over c (collective): flavor FlavorCreate uses
// base/size of user memory, FlavorAllocate and FlavorShared allocate size
// bytes in the window segment, FlavorDynamic starts with no memory.
func (c *Comm) NewWin(flavor int, base unsafe.Pointer, size, unit int64, info *Info) (*Win, error) {
	if c.remote != nil {
		return nil, Errorf(ErrComm, "", "invalid communicator argument comm: an intercommunicator")
	}
	if c.MixedReps() {
		// The origin would write its own representation into the
		// target's memory: refuse, rather than store wrong bytes.
		return nil, Errorf(ErrUnsupportedOperation, "", "one-sided communication between processes of different data representations is not supported (comm spans %s and %s)",
			c.w.rep.Encode(), c.firstOtherRep().Encode())
	}
	spans, err := c.windowSpansHosts()
	if err != nil {
		return nil, err
	}
	if spans && flavor == FlavorShared {
		return nil, Errorf(ErrRMAShared, "", "the processes of comm are on more than one host, so they cannot share memory")
	}
	noncontig := false
	if info != nil {
		if v, ok := info.Get("alloc_shared_noncontig"); ok && v == "true" {
			noncontig = true
		}
	}
	wc, err := c.Dup(nil)
	if err != nil {
		return nil, err
	}
	win := &Win{w: c.w, comm: wc, flavor: flavor, size: size, unit: unit}
	win.Errh.Set(c.w, HandleErrorsAreFatal)
	win.SetInfo(info)
	var hosts []string
	if spans {
		if hosts, err = c.hostsOf(); err != nil {
			wc.Free()
			return nil, err
		}
	}
	if err := win.setup(base, noncontig, hosts); err != nil {
		wc.Free()
		return nil, err
	}
	if spans {
		if err := win.setupNet(); err != nil {
			unmapSegment(win.seg)
			win.seg = nil
			wc.Free()
			return nil, err
		}
	}
	win.handle = c.w.winTable().Add(win)
	return win, nil
}

// setup exchanges the cards, creates and maps the segment of this host's
// processes (hosts: every rank's host, nil when all are on this one).
func (win *Win) setup(base unsafe.Pointer, noncontig bool, hosts []string) error {
	c := win.comm
	n := c.Size()
	var mine [32]byte
	binary.LittleEndian.PutUint64(mine[0:], uint64(os.Getpid()))
	binary.LittleEndian.PutUint64(mine[8:], uint64(uintptr(base)))
	binary.LittleEndian.PutUint64(mine[16:], uint64(win.size))
	binary.LittleEndian.PutUint64(mine[24:], uint64(win.unit))
	all, err := c.sysAllgather(mine[:], 0)
	if err != nil {
		return err
	}
	cards := make([]winCard, n)
	for r, b := range all {
		if len(b) != 32 {
			return Errorf(ErrIntern, "", "window card of rank %d has %d bytes", r, len(b))
		}
		cards[r] = winCard{
			pid:  int64(binary.LittleEndian.Uint64(b[0:])),
			base: int64(binary.LittleEndian.Uint64(b[8:])),
			size: int64(binary.LittleEndian.Uint64(b[16:])),
			unit: int64(binary.LittleEndian.Uint64(b[24:])),
		}
	}
	// This host's ranks, in window order; the first (the leader)
	// creates the segment.
	win.lidx = make([]int, n)
	var sizes []int64
	leader := -1
	for r := range win.lidx {
		win.lidx[r] = -1
		if hosts == nil || hosts[r] == hosts[c.Rank()] {
			if leader < 0 {
				leader = r
			}
			win.lidx[r] = len(sizes)
			sizes = append(sizes, cards[r].size)
		}
	}
	win.layout = newWinLayout(len(sizes), win.flavor, sizes, noncontig)
	// The leaders create the segments and tell their names (empty: failed).
	var name string
	var cerr error
	if c.Rank() == leader {
		name = fmt.Sprintf("gmpi-%d-win%d", os.Getpid(), winSeq.Add(1))
		win.seg, cerr = createSegment(name, win.layout.total)
		if cerr != nil {
			name = ""
		}
	}
	names, err := c.sysAllgather([]byte(name), 1)
	if err != nil {
		if c.Rank() == leader && name != "" {
			unix.Unlink("/dev/shm/" + name)
			unmapSegment(win.seg)
		}
		return err
	}
	name = string(names[leader])
	ok := byte(1)
	if name == "" {
		ok = 0
	} else if c.Rank() != leader {
		if win.seg, cerr = openSegment(name, win.layout.total); cerr != nil {
			ok = 0
		}
	}
	oks, err := c.sysAllgather([]byte{ok}, 2)
	if c.Rank() == leader && name != "" {
		unix.Unlink("/dev/shm/" + name)
	}
	if err == nil {
		for r, b := range oks {
			if len(b) != 1 || b[0] != 1 {
				err = Errorf(ErrNoMem, "", "rank %d could not map the window segment", r)
				break
			}
		}
	}
	if err == nil && cerr != nil {
		err = Errorf(ErrNoMem, "", "window segment: %v", cerr)
	}
	if err != nil {
		unmapSegment(win.seg)
		win.seg = nil
		return err
	}
	win.targets = make([]winTarget, n)
	for r, cd := range cards {
		t := &win.targets[r]
		t.pid, t.base, t.size, t.dispUnit = int(cd.pid), uintptr(cd.base), cd.size, cd.unit
		if win.lidx[r] >= 0 && win.layout.parts != nil {
			off := win.layout.parts[win.lidx[r]]
			t.mapped = win.seg[off : off+int(cd.size) : off+int(cd.size)]
		}
	}
	if win.layout.parts != nil {
		me := &win.targets[c.Rank()]
		win.base = unsafe.Pointer(unsafe.SliceData(win.seg[win.layout.parts[win.lidx[c.Rank()]]:]))
		if me.size == 0 && win.flavor == FlavorAllocate {
			win.base = nil
		}
		me.base = uintptr(win.base)
	} else {
		win.base = base
	}
	if win.flavor == FlavorDynamic {
		win.regions = map[uintptr]int{}
	}
	return nil
}

// SharedQuery is MPI_Win_shared_query: rank's size, displacement unit and
// base address in this process (rank MPI_PROC_NULL: the first rank with a
// nonzero size).
func (win *Win) SharedQuery(rank int) (int64, int64, unsafe.Pointer, error) {
	if win.flavor != FlavorShared {
		return 0, 0, nil, Errorf(ErrRMAFlavor, "", "the window was not created by MPI_Win_allocate_shared")
	}
	if rank == ProcNull {
		for r := range win.targets {
			if win.targets[r].size > 0 {
				rank = r
				break
			}
		}
		if rank == ProcNull {
			return 0, 0, nil, nil
		}
	}
	if rank < 0 || rank >= len(win.targets) {
		return 0, 0, nil, Errorf(ErrRank, "", "invalid rank argument rank: %d (the window has %d processes)", rank, len(win.targets))
	}
	t := &win.targets[rank]
	return t.size, t.dispUnit, unsafe.Pointer(unsafe.SliceData(win.seg[win.layout.parts[win.lidx[rank]]:])), nil
}

// Free is MPI_Win_free (collective): it fails with MPI_ERR_RMA_SYNC while
// an epoch of this process is open, else waits for every process and
// releases the window.
func (win *Win) Free() error {
	win.mu.Lock()
	open := len(win.locks) > 0 || win.lockAll || win.startGroup != nil || win.postGroup != nil
	win.mu.Unlock()
	if open {
		return Errorf(ErrRMASync, "", "the window has an open access or exposure epoch (unlock, complete or wait first)")
	}
	if err := win.comm.Coll.Barrier(win.comm); err != nil {
		return err
	}
	if err := win.Attrs.DeleteAll(win.handle); err != nil {
		return err
	}
	win.w.winTable().Remove(win.handle)
	if win.net != nil {
		win.net.free()
	}
	unmapSegment(win.seg)
	win.seg = nil
	win.freed = true
	return win.comm.Free()
}

func createSegment(name string, size int) ([]byte, error) {
	fd, err := unix.Open("/dev/shm/"+name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_CLOEXEC, 0600)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		unix.Unlink("/dev/shm/" + name)
		return nil, err
	}
	b, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		unix.Unlink("/dev/shm/" + name)
		return nil, err
	}
	*(*uint32)(unsafe.Pointer(&b[0])) = ctrlMagic
	return b, nil
}

func openSegment(name string, size int) ([]byte, error) {
	fd, err := unix.Open("/dev/shm/"+name, unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	b, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	if atomic.LoadUint32((*uint32)(unsafe.Pointer(&b[0]))) != ctrlMagic {
		unix.Munmap(b)
		return nil, fmt.Errorf("segment %s is not a window segment", name)
	}
	return b, nil
}

func unmapSegment(b []byte) {
	if b != nil {
		unix.Munmap(b)
	}
}

// local reports whether rank t is on this host (reached through the
// segment), else it is reached by messages.
func (win *Win) local(t int) bool { return win.lidx[t] >= 0 }

// word returns the uint32 at offset off of the segment.
func (win *Win) word(off int) *uint32 {
	return (*uint32)(unsafe.Pointer(&win.seg[off]))
}
