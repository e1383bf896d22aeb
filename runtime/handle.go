package mpirt

import (
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Handle is an MPI handle as the MPICH ABI encodes it: a 32-bit integer
//
//	bits 31-30  kind (HandleKind)
//	bits 29-26  object type (ObjectType)
//	bits 25-0   kind-specific: for builtin datatypes the size in bytes sits
//	            in bits 15-8 and an index in bits 7-0; for direct handles
//	            the index of the object in its HandleTable.
//
// Every MPI object handle type of the C API (MPI_Comm, MPI_Datatype,
// MPI_Op, MPI_Request, ...) is a Handle; the object type bits tell them
// apart, so a handle of the wrong type is always detectable.
type Handle int32

// HandleKind is the storage class of a handle (bits 31-30).
type HandleKind uint8

const (
	// KindInvalid marks null handles (MPI_COMM_NULL, MPI_REQUEST_NULL, ...)
	// and garbage.
	KindInvalid HandleKind = iota
	// KindBuiltin marks predefined objects (MPI_COMM_WORLD, MPI_INT,
	// MPI_SUM, ...), decoded from the handle value alone.
	KindBuiltin
	// KindDirect marks objects created at run time, stored in a
	// HandleTable at the index in bits 25-0.
	KindDirect
	// KindIndirect is MPICH's two-level storage; gmpi never creates such
	// handles and treats them as invalid.
	KindIndirect
)

// ObjectType is the kind of MPI object a handle names (bits 29-26), with
// MPICH's numbering.
type ObjectType uint8

const (
	ObjComm       ObjectType = 0x1
	ObjGroup      ObjectType = 0x2
	ObjDatatype   ObjectType = 0x3
	ObjFile       ObjectType = 0x4
	ObjErrhandler ObjectType = 0x5
	ObjOp         ObjectType = 0x6
	ObjInfo       ObjectType = 0x7
	ObjWin        ObjectType = 0x8
	ObjKeyval     ObjectType = 0x9
	ObjAttr       ObjectType = 0xa
	ObjRequest    ObjectType = 0xb // also MPI_Message
	ObjVconn      ObjectType = 0xc // MPICH-internal
	ObjGreqClass  ObjectType = 0xd
	ObjSession    ObjectType = 0xe
)

var objectTypeNames = [16]string{
	ObjComm:       "communicator",
	ObjGroup:      "group",
	ObjDatatype:   "datatype",
	ObjFile:       "file",
	ObjErrhandler: "errhandler",
	ObjOp:         "op",
	ObjInfo:       "info",
	ObjWin:        "window",
	ObjKeyval:     "keyval",
	ObjAttr:       "attribute",
	ObjRequest:    "request",
	ObjVconn:      "vconn",
	ObjGreqClass:  "grequest class",
	ObjSession:    "session",
}

func (t ObjectType) String() string {
	if s := objectTypeNames[t&0xf]; s != "" && t < 16 {
		return s
	}
	return fmt.Sprintf("object type %#x", uint8(t))
}

func (k HandleKind) String() string {
	switch k {
	case KindInvalid:
		return "invalid"
	case KindBuiltin:
		return "builtin"
	case KindDirect:
		return "direct"
	case KindIndirect:
		return "indirect"
	}
	return fmt.Sprintf("handle kind %d", uint8(k))
}

// Bit layout of a Handle.
const (
	handleKindShift = 30
	handleTypeShift = 26
	handleTypeMask  = 0xf
	// HandleIndexMask selects the index bits of a direct handle.
	HandleIndexMask = 1<<handleTypeShift - 1
)

// MakeHandle builds a handle from its parts; index is masked to 26 bits.
func MakeHandle(k HandleKind, t ObjectType, index int) Handle {
	return Handle(uint32(k)<<handleKindShift | uint32(t&handleTypeMask)<<handleTypeShift | uint32(index)&HandleIndexMask)
}

// Kind decodes the storage class of h.
func (h Handle) Kind() HandleKind { return HandleKind(uint32(h) >> handleKindShift) }

// Type decodes the object type of h.
func (h Handle) Type() ObjectType {
	return ObjectType(uint32(h) >> handleTypeShift & handleTypeMask)
}

// Index returns the low 26 bits of h: the table index of a direct handle.
func (h Handle) Index() int { return int(uint32(h) & HandleIndexMask) }

// IsNull reports whether h is the null handle of its object type
// (kind invalid, index 0), e.g. MPI_COMM_NULL or MPI_REQUEST_NULL.
func (h Handle) IsNull() bool { return h.Kind() == KindInvalid && h.Index() == 0 }

func (h Handle) String() string { return fmt.Sprintf("%#08x", uint32(h)) }

// Predefined handles of the MPICH ABI, other than datatypes (datatype.go)
// and ops (op.go).
const (
	HandleCommNull       Handle = 0x04000000 // MPI_COMM_NULL
	HandleCommWorld      Handle = 0x44000000 // MPI_COMM_WORLD
	HandleCommSelf       Handle = 0x44000001 // MPI_COMM_SELF
	HandleGroupNull      Handle = 0x08000000 // MPI_GROUP_NULL
	HandleGroupEmpty     Handle = 0x48000000 // MPI_GROUP_EMPTY
	HandleDatatypeNull   Handle = 0x0c000000 // MPI_DATATYPE_NULL
	HandleErrhandlerNull Handle = 0x14000000 // MPI_ERRHANDLER_NULL
	HandleErrorsAreFatal Handle = 0x54000000 // MPI_ERRORS_ARE_FATAL
	HandleErrorsReturn   Handle = 0x54000001 // MPI_ERRORS_RETURN
	HandleErrorsThrow    Handle = 0x54000002 // MPIR_ERRORS_THROW_EXCEPTIONS (C++)
	HandleErrorsAbort    Handle = 0x54000003 // MPI_ERRORS_ABORT
	HandleOpNull         Handle = 0x18000000 // MPI_OP_NULL
	HandleInfoNull       Handle = 0x1c000000 // MPI_INFO_NULL
	HandleInfoEnv        Handle = 0x5c000001 // MPI_INFO_ENV
	HandleWinNull        Handle = 0x20000000 // MPI_WIN_NULL
	HandleKeyvalInvalid  Handle = 0x24000000 // MPI_KEYVAL_INVALID
	HandleRequestNull    Handle = 0x2c000000 // MPI_REQUEST_NULL
	HandleMessageNull    Handle = 0x2c000000 // MPI_MESSAGE_NULL
	HandleMessageNoProc  Handle = 0x6c000000 // MPI_MESSAGE_NO_PROC
	HandleSessionNull    Handle = 0x38000000 // MPI_SESSION_NULL
)

// HandleTable stores the objects of one ObjectType that the program
// creates, and names each with a direct handle
// (0x80000000 | type<<26 | index). Freed indices are reused (most
// recently freed first). The zero HandleTable must be given its type with
// Init before use; NewHandleTable does both.
//
// Concurrency: all methods are safe for concurrent use. Get takes no lock:
// it loads the chunk directory and the slot atomically, so it costs a few
// dependent loads. Add and Remove serialize on a mutex.
type HandleTable[T any] struct {
	typ ObjectType
	dir atomic.Pointer[[]*handleChunk[T]]

	mu     sync.Mutex
	single bool    // SetSingleThreaded: Add and Remove skip mu
	free   []int32 // freed indices, reused LIFO
	next   int     // first never-used index
	live   int
}

const (
	handleChunkBits = 8
	handleChunkSize = 1 << handleChunkBits
	// handleTableMax is the number of indices a direct handle can carry.
	// Index 0 is never handed out, so that no direct handle equals the
	// bare kind/type prefix.
	handleTableMax = HandleIndexMask + 1
)

type handleChunk[T any] [handleChunkSize]atomic.Pointer[T]

// NewHandleTable returns an empty table for objects of type t.
func NewHandleTable[T any](t ObjectType) *HandleTable[T] {
	ht := new(HandleTable[T])
	ht.Init(t)
	return ht
}

// Init sets the object type of an empty table. It must be called before
// any other method and not concurrently with them. A datatype table
// starts above the indices of the predefined 0x8c0000II pair types.
func (t *HandleTable[T]) Init(typ ObjectType) {
	t.typ = typ
	t.next = 1
	if typ == ObjDatatype {
		t.next = len(directTypes)
	}
}

// SetSingleThreaded says whether only one thread uses the table (thread
// level below MPI_THREAD_MULTIPLE): Add and Remove then skip the mutex.
// Call it while no other method runs.
func (t *HandleTable[T]) SetSingleThreaded(b bool) { t.single = b }

// store sets a slot: atomically when Get may run concurrently, otherwise
// with a plain store (with its GC write barrier, but no fence, which
// would wait for every store before it, such as a frame just written into
// a peer's ring).
func (t *HandleTable[T]) store(s *atomic.Pointer[T], p *T) {
	if !t.single {
		s.Store(p)
		return
	}
	(*plainPointer)(unsafe.Pointer(s)).v = unsafe.Pointer(p)
}

// plainPointer has the layout of atomic.Pointer[T] (a zero-size guard, a
// no-copy marker, then the pointer), for plain stores to its word.
type plainPointer struct {
	_ [0]unsafe.Pointer
	_ struct{}
	v unsafe.Pointer
}

// The two layouts agree: both are exactly one pointer word.
var _ [unsafe.Sizeof(atomic.Pointer[int]{}) - unsafe.Sizeof(plainPointer{})]struct{}
var _ [unsafe.Sizeof(plainPointer{}) - unsafe.Sizeof(atomic.Pointer[int]{})]struct{}

func (t *HandleTable[T]) lock() {
	if !t.single {
		t.mu.Lock()
	}
}

func (t *HandleTable[T]) unlock() {
	if !t.single {
		t.mu.Unlock()
	}
}

// Type returns the object type the table's handles carry.
func (t *HandleTable[T]) Type() ObjectType { return t.typ }

// Add stores v and returns its new direct handle. It panics if the table
// was not initialized, and returns the null handle of the table's type
// (kind invalid, index 0) when all 2^26-1 indices are in use.
func (t *HandleTable[T]) Add(v T) Handle {
	p := new(T)
	*p = v
	return t.AddPtr(p)
}

// AddPtr stores the object p points to, without copying it (tables of
// structs whose pointers the program keeps, like requests, avoid a boxed
// copy per Add), and returns its new direct handle.
func (t *HandleTable[T]) AddPtr(p *T) Handle {
	if t.typ == 0 {
		panic("mpirt: HandleTable used before Init")
	}
	t.lock()
	var idx int
	if n := len(t.free); n > 0 {
		idx = int(t.free[n-1])
		t.free = t.free[:n-1]
	} else {
		if t.next >= handleTableMax {
			t.unlock()
			return MakeHandle(KindInvalid, t.typ, 0)
		}
		idx = t.next
		t.next++
		t.growLocked(idx)
	}
	t.store(t.slot(idx), p)
	t.live++
	t.unlock()
	return MakeHandle(KindDirect, t.typ, idx)
}

// growLocked makes sure the chunk holding idx exists.
func (t *HandleTable[T]) growLocked(idx int) {
	c := idx >> handleChunkBits
	var dir []*handleChunk[T]
	if d := t.dir.Load(); d != nil {
		dir = *d
	}
	if c < len(dir) {
		return
	}
	nd := make([]*handleChunk[T], c+1, max(2*len(dir), c+1))
	copy(nd, dir)
	nd[c] = new(handleChunk[T])
	t.dir.Store(&nd)
}

func (t *HandleTable[T]) slot(idx int) *atomic.Pointer[T] {
	return &(*t.dir.Load())[idx>>handleChunkBits][idx&(handleChunkSize-1)]
}

// lookup returns the slot of h, or nil when h is not a direct handle of
// this table's type or names an index never handed out.
func (t *HandleTable[T]) lookup(h Handle) *atomic.Pointer[T] {
	if uint32(h)>>handleTypeShift != uint32(KindDirect)<<(handleKindShift-handleTypeShift)|uint32(t.typ) {
		return nil
	}
	d := t.dir.Load()
	if d == nil {
		return nil
	}
	idx := int(uint32(h) & HandleIndexMask)
	c := idx >> handleChunkBits
	if c >= len(*d) {
		return nil
	}
	return &(*d)[c][idx&(handleChunkSize-1)]
}

// Get returns the object named by h. ok is false when h is not a live
// direct handle of this table's object type.
func (t *HandleTable[T]) Get(h Handle) (v T, ok bool) {
	s := t.lookup(h)
	if s == nil {
		return v, false
	}
	p := s.Load()
	if p == nil {
		return v, false
	}
	return *p, true
}

// GetPtr returns the pointer stored for h (see AddPtr), nil when h is not
// a live direct handle of this table's object type.
func (t *HandleTable[T]) GetPtr(h Handle) *T {
	if s := t.lookup(h); s != nil {
		return s.Load()
	}
	return nil
}

// Remove frees the index of h for reuse. It reports whether h named a
// live object.
func (t *HandleTable[T]) Remove(h Handle) bool {
	t.lock()
	defer t.unlock()
	s := t.lookup(h)
	if s == nil || s.Load() == nil {
		return false
	}
	t.store(s, nil)
	t.free = append(t.free, int32(h.Index()))
	t.live--
	return true
}

// Len returns the number of live objects.
func (t *HandleTable[T]) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.live
}

// Range calls f for every live object, in index order, until f returns
// false (e.g. to report handles leaked at MPI_Finalize). Objects added or
// removed during Range may or may not be visited.
func (t *HandleTable[T]) Range(f func(Handle, T) bool) {
	d := t.dir.Load()
	if d == nil {
		return
	}
	for c, ch := range *d {
		for i := range ch {
			if p := ch[i].Load(); p != nil {
				if !f(MakeHandle(KindDirect, t.typ, c<<handleChunkBits|i), *p) {
					return
				}
			}
		}
	}
}
