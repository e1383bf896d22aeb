package main

// extern void gmpi_register_atexit(void);
import "C"

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	mpirt "gmpi/runtime"
	"gmpi/runtime/param"

	"golang.org/x/sys/unix"
)

// Version of the MPI standard we implement (MPI_VERSION.MPI_SUBVERSION).
const (
	mpiVersion    = 4
	mpiSubversion = 0
	// Version is gmpi's own version.
	Version = "0.1.0"
)

func MPI_Init(argc *int32, argv unsafe.Pointer) int32 {
	return initialize("MPI_Init", threadSingle, nil)
}

func MPI_Init_thread(argc *int32, argv unsafe.Pointer, required int32, provided *int32) int32 {
	if required < threadSingle || required > threadMultiple {
		// The standard lets an implementation provide any level; a value
		// outside the four is still an argument error worth reporting.
		fmt.Fprintf(os.Stderr, "gmpi: MPI_Init_thread: invalid required level %d, providing MPI_THREAD_MULTIPLE\n", required)
		required = threadMultiple
	}
	return initialize("MPI_Init_thread", required, provided)
}

func initialize(fn string, level int32, provided *int32) int32 {
	initMu.Lock()
	defer initMu.Unlock()
	if initialized.Load() || finalized.Load() {
		msg := fmt.Sprintf("gmpi: %s called twice (MPI may be initialized only once per process)", fn)
		if world != nil {
			return failf(fn, nil, mpirt.ErrOther, "%s", msg)
		}
		fmt.Fprintln(os.Stderr, msg)
		os.Exit(1)
	}
	if err := acquireWorldLocked(fn, level); err != nil {
		return fail(fn, nil, err)
	}
	mainThread = int64(unix.Gettid())
	initialized.Store(true)
	if provided != nil {
		*provided = threadLevel
	}
	return 0
}

// acquireWorldLocked takes a reference to the world for MPI_Init or a new
// session, bringing it up first when nobody has yet (with thread level
// level). The world is brought up once per process; after MPI_Finalize
// released the last reference it is gone for good, but when the last
// session ends first it stays idle for a later session or MPI_Init, and
// the process shuts it down as it exits (gmpi_atexit). Must hold initMu.
func acquireWorldLocked(fn string, level int32) error {
	if worldDown {
		return mpirt.Errorf(mpirt.ErrUnsupportedOperation, fn,
			"MPI was finalized already in this process (MPI_Finalize ended the last use of MPI); gmpi does not initialize it again")
	}
	if world == nil {
		if err := initWorld(); err != nil {
			var rank string
			if pmiClient != nil {
				rank = fmt.Sprintf("rank %d: ", pmiClient.Rank())
			}
			abortJob(1, fmt.Sprintf("gmpi: %sfatal error in %s: %v", rank, fn, err))
		}
		// Every rank learns every rank's host (MPI_Comm_split_type and the
		// MPICHX topology attributes need them locally); collective over
		// the world, like MPI_Init itself.
		if err := world.ExchangeHosts(); err != nil {
			abortJob(1, fmt.Sprintf("gmpi: rank %d: fatal error in %s: exchanging host names: %v", world.Rank(), fn, err))
		}
		// The level asked for is provided, as MPICH does: every level is
		// supported, and below MPI_THREAD_MULTIPLE the engine's data path
		// skips its locks (only one thread may be inside MPI at a time).
		threadLevel = level
		world.SetThreadLevel(int(level))
		startExpress(level)
		startCshm()
		world.SetProgressHold(expressHold)
		C.gmpi_register_atexit()
		// Spawned processes meet their parents (MPI_Comm_get_parent).
		if err := connectParent(); err != nil {
			abortJob(1, fmt.Sprintf("gmpi: rank %d: fatal error in %s: connecting to the parents: %v", world.Rank(), fn, err))
		}
	}
	worldRefs++
	worldUp.Store(true)
	return nil
}

// releaseWorldLocked drops a reference taken by acquireWorldLocked. The
// last one leaves the world idle after a session, and shuts it down after
// MPI_Finalize (shutdown), collectively over the world. Must hold initMu.
func releaseWorldLocked(shutdown bool) error {
	if worldRefs--; worldRefs > 0 {
		return nil
	}
	worldUp.Store(false)
	if !shutdown {
		return nil
	}
	return shutdownWorldLocked()
}

func shutdownWorldLocked() error {
	worldDown = true
	stopExpress()
	stopCshm()
	return finalizeWorld()
}

// gmpi_atexit shuts down a world that the sessions left idle, as the
// process exits (every process of the job does the same).
//
//export gmpi_atexit
func gmpi_atexit() {
	defer func() { recover() }()
	initMu.Lock()
	defer initMu.Unlock()
	if world == nil || worldDown || worldRefs > 0 {
		return
	}
	if err := shutdownWorldLocked(); err != nil {
		fmt.Fprintf(os.Stderr, "gmpi: rank %d: shutting MPI down at exit: %v\n", world.Rank(), err)
	}
}

func MPI_Finalize() int32 {
	if !initialized.Load() || finalized.Load() {
		notInitialized("MPI_Finalize")
		return int32(mpirt.ErrOther)
	}
	// MPI_Finalize first frees MPI_COMM_SELF's attributes, newest first,
	// running their delete callbacks while MPI is still usable (MPI-4.0
	// 11.2.7, "Allowing User Functions at Process Termination").
	self := world.CommSelf()
	if err := self.Attrs.DeleteAll(self.Handle()); err != nil {
		return fail("MPI_Finalize", self, err)
	}
	initMu.Lock()
	defer initMu.Unlock()
	// Sessions still open keep the world up until the last one ends.
	err := releaseWorldLocked(true)
	finalized.Store(true)
	if err != nil {
		return fail("MPI_Finalize", nil, err)
	}
	return 0
}

func MPI_Initialized(flag *int32) int32 {
	if flag == nil {
		return badPointer("MPI_Initialized", "flag")
	}
	*flag = b2i(initialized.Load())
	return 0
}

func MPI_Finalized(flag *int32) int32 {
	if flag == nil {
		return badPointer("MPI_Finalized", "flag")
	}
	*flag = b2i(finalized.Load())
	return 0
}

func MPI_Query_thread(provided *int32) int32 {
	if !active("MPI_Query_thread") {
		return int32(mpirt.ErrOther)
	}
	if provided == nil {
		return badPointer("MPI_Query_thread", "provided")
	}
	*provided = threadLevel
	return 0
}

func MPI_Is_thread_main(flag *int32) int32 {
	if !active("MPI_Is_thread_main") {
		return int32(mpirt.ErrOther)
	}
	if flag == nil {
		return badPointer("MPI_Is_thread_main", "flag")
	}
	*flag = b2i(int64(unix.Gettid()) == mainThread)
	return 0
}

func MPI_Abort(comm int32, errorcode int32) int32 {
	if !active("MPI_Abort") {
		return int32(mpirt.ErrOther)
	}
	c := commOrWorld(comm)
	name := "MPI_COMM_WORLD"
	if c != nil {
		name = c.Name()
	}
	world.Abort(int(errorcode), fmt.Sprintf("gmpi: rank %d called MPI_Abort(%s, %d)", world.Rank(), name, errorcode))
	return 0
}

func MPI_Wtime() float64 {
	return time.Since(startTime).Seconds()
}

func MPI_Wtick() float64 {
	var ts unix.Timespec
	if unix.ClockGetres(unix.CLOCK_MONOTONIC, &ts) == nil && ts.Nano() > 0 {
		return float64(ts.Nano()) * 1e-9
	}
	return 1e-9
}

func MPI_Get_processor_name(name *byte, resultlen *int32) int32 {
	if name == nil || resultlen == nil {
		return badPointer("MPI_Get_processor_name", "name")
	}
	env, _ := param.Env() // before MPI_Init: no world's tunables yet
	host := param.Hostname.Get(env)
	if world != nil {
		host = world.Config().Hostname
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	*resultlen = cString(name, maxProcessorName, host)
	return 0
}

func MPI_Get_version(version, subversion *int32) int32 {
	if version == nil || subversion == nil {
		return badPointer("MPI_Get_version", "version")
	}
	*version, *subversion = mpiVersion, mpiSubversion
	return 0
}

func MPI_Get_library_version(version *byte, resultlen *int32) int32 {
	if version == nil || resultlen == nil {
		return badPointer("MPI_Get_library_version", "version")
	}
	*resultlen = cString(version, maxLibraryVersionString, "gmpi "+Version+" ("+frontABI+" ABI, MPI 4.0)")
	return 0
}

func MPI_Comm_rank(commH int32, rank *int32) int32 {
	c, rc := comm("MPI_Comm_rank", commH)
	if rc != 0 {
		return rc
	}
	if rank == nil {
		return failf("MPI_Comm_rank", c, mpirt.ErrArg, "invalid argument rank: NULL pointer")
	}
	*rank = int32(c.Rank())
	return 0
}

func MPI_Comm_size(commH int32, size *int32) int32 {
	c, rc := comm("MPI_Comm_size", commH)
	if rc != 0 {
		return rc
	}
	if size == nil {
		return failf("MPI_Comm_size", c, mpirt.ErrArg, "invalid argument size: NULL pointer")
	}
	*size = int32(c.Size())
	return 0
}

func MPI_Error_string(errorcode int32, str *byte, resultlen *int32) int32 {
	if str == nil {
		return badPointer("MPI_Error_string", "string")
	}
	if resultlen == nil {
		return badPointer("MPI_Error_string", "resultlen")
	}
	if _, ok := mpirt.ErrorClass(int(errorcode)); !ok {
		return failf("MPI_Error_string", nil, mpirt.ErrArg, "invalid argument errorcode: %d is not an error code", errorcode)
	}
	*resultlen = cString(str, maxErrorString, mpirt.ErrorString(int(errorcode)))
	return 0
}

func MPI_Error_class(errorcode int32, errorclass *int32) int32 {
	if errorclass == nil {
		return badPointer("MPI_Error_class", "errorclass")
	}
	cl, ok := mpirt.ErrorClass(int(errorcode))
	if !ok {
		return failf("MPI_Error_class", nil, mpirt.ErrArg, "invalid argument errorcode: %d is not an error code", errorcode)
	}
	*errorclass = int32(cl)
	return 0
}

// Sizes of the C string buffers (MPI_MAX_*).
const (
	maxProcessorName        = 128
	maxLibraryVersionString = 8192
	maxErrorString          = 512
	maxObjectName           = 128
)

func badPointer(fn, arg string) int32 {
	return failf(fn, nil, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
}

func b2i(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// goString reads a NUL-terminated C string of at most max bytes.
func goString(p *byte, max int) string {
	n := 0
	for n < max && *(*byte)(unsafe.Add(unsafe.Pointer(p), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(p, n))
}
