package param

import "time"

// Scopes: where a tunable applies (the README's "read by" column).
const (
	ScopeRuntime = "runtime"
	ScopeLibrary = "library"
	ScopeShm     = "shm device"
	ScopeTCP     = "tcp device"
	ScopeColl    = "coll"
	ScopeCollShm = "coll/shm"
	ScopeTuned   = "coll/tuned"
	ScopeHier    = "coll/hier"
	ScopeLaunch  = "launch (set by mpirun)"
	ScopeMpirun  = "mpirun"
	ScopeMpicc   = "mpicc"
	ScopeEmu     = "grid emulator"
)

// The catalogue: every tunable gmpi reads, declared once. To add one,
// add a line here (or a family instance in the owning package), read it
// with Get/Lookup on the Values the code was given, and add a row to the
// README's table of variables (TestREADME checks both ways).
//
// PMI_* variables (PMI_FD, PMI_PORT, PMI_RANK, PMI_SIZE, PMI_ID) belong to
// the PMI wire protocol that every launcher speaks, not to gmpi, and are
// not registered; the launch plumbing mpirun sets for gmpi's own ranks is
// (Internal).
var (
	// runtime
	EagerLimit = Size("GMPI_EAGER_LIMIT", 65536, "", ScopeRuntime,
		"largest message sent eagerly, bytes; larger ones use rendezvous")
	RMAMin = Size("GMPI_RMA_MIN", 512<<10, "", ScopeRuntime,
		"smallest message sent single-copy (cross-memory attach); smaller messages go eagerly or stream through the device (unset: the shm device's copy probe picks it)")
	PushMin = Size("GMPI_PUSH_MIN", 256<<10, "", ScopeRuntime,
		"smallest single-copy message whose second half the sender writes; below it the receiver reads the whole message (unset: the shm device's copy probe picks it)")
	SpinNS = Duration("GMPI_SPIN_NS", 50*time.Microsecond, "ns", ScopeRuntime,
		"how long a waiter polls before it sleeps on its futex (runtime and coll/shm)")
	Oversubscribed = Auto("GMPI_OVERSUBSCRIBED", ScopeRuntime,
		"1/0 forces whether waiters yield the CPU between polls (auto: more local ranks than the CPUs they may use)")
	AsyncProgress = Bool("GMPI_ASYNC_PROGRESS", true, ScopeRuntime,
		"0 turns off background progress: a goroutine that advances outstanding nonblocking collectives while the program computes")

	ConnectTimeout = Duration("GMPI_CONNECT_TIMEOUT", 60*time.Second, "s", ScopeLibrary,
		"seconds MPI_Comm_connect waits for an MPI_Comm_accept at the port (the info key timeout overrides it), and bound on each step between the roots of two jobs that meet")

	NameServer = String("GMPI_NAMESERVER", "", ScopeLibrary,
		"HOST:PORT of a name server (mpirun --serve-names) that MPI_Publish_name and MPI_Lookup_name use besides this host's names (mpirun --nameserver sets it)")
	NameServerKey = String("GMPI_NAMESERVER_KEY", "", ScopeLibrary,
		"file holding the name server's key (hex); empty: ~/.gmpi/nameserver.key")

	IOHints = String("GMPI_IO_HINTS", "", ScopeLibrary,
		"MPI-IO hints for every file a process opens, as key=value pairs separated by commas (e.g. romio_cb_write=enable,cb_nodes=2); the info passed to MPI_File_open or MPI_File_set_info overrides them")

	// library (capi)
	Device = String("GMPI_DEVICE", "auto", ScopeLibrary,
		"tcp: every peer over the tcp device, even on the same host (testing); auto: shm for peers on this host, tcp for the others",
		"auto", "tcp")
	Express = Bool("GMPI_EXPRESS", true, ScopeLibrary,
		"0 turns off the express lanes: small blocking sends and receives to shared-memory peers, and small blocking collectives through coll/shm's segments, completed in C")
	AltStack = Bool("GMPI_ALT_STACK", true, ScopeLibrary,
		"1 (default): calls into Go and the express lanes run on a region at the bottom of the calling thread's stack, so that the stack below an MPI call keeps what the program left there (programs reading uninitialized locals, ScaLAPACK 2.2.1's testers, see what they see under MPICH or Open MPI); 0: on the stack below the caller (read by each thread at its first call)")
	Debug       = Bool("GMPI_DEBUG", false, ScopeLibrary, "protocol diagnostics on stderr")
	DebugSignal = Bool("GMPI_DEBUG_SIGNAL", false, ScopeLibrary,
		"1: on SIGUSR1 a rank writes its goroutine stacks and engine state (posted receives, unexpected messages, requests waiting for a reply) to stderr and goes on (hang diagnosis; bench/stress_threads.sh)")
	DebugRequests = Bool("GMPI_DEBUG_REQUESTS", false, ScopeLibrary,
		"1: check request lifetimes on the data path (a request delivered into, completed or recycled twice or while still posted) and end the rank with every goroutine's stack when one breaks (threading bugs)")
	CPUProfile = String("GMPI_CPUPROFILE", "", ScopeLibrary,
		"FILE: write a Go CPU profile of each rank to FILE.<rank> (developer tool)")

	// shm device
	ShmRing = Size("GMPI_SHM_RING", 0, "auto", ScopeShm,
		"bytes of each shared-memory ring, e.g. 1M (auto: 1 MiB, less with many local ranks)")
	ShmFrame = AtLeast(Size("GMPI_SHM_FRAME", 64<<10, "", ScopeShm,
		"largest frame through a ring, bytes (at most a quarter of the ring)"), 1)
	ShmPrefetch = Size("GMPI_SHM_PREFETCH", 256, "", ScopeShm,
		"how far past its tail a nonblocking eager send asks for the next ring line, bytes")
	ShmPipe = Size("GMPI_SHM_PIPE", 4096, "", ScopeShm,
		"a blocking eager send on shared memory (express lane) publishes a larger message in chunks of this many bytes as it writes it, so that the blocking receive copies each out meanwhile; 0: whole")
	ShmCMA = Bool("GMPI_SHM_CMA", true, ScopeShm,
		"0: no single-copy rendezvous through cross-memory attach (process_vm_readv/writev)")

	// tcp device
	TCPIf = String("GMPI_TCP_IF", "", ScopeTCP,
		"where the tcp device listens: an IP address, a CIDR or an interface name (empty: every address)")
	TCPEagerLimit = Size("GMPI_TCP_EAGER_LIMIT", 0, "GMPI_EAGER_LIMIT", ScopeTCP,
		"eager threshold of tcp peers, bytes")
	TCPTimeout = Duration("GMPI_TCP_TIMEOUT", 30*time.Second, "s", ScopeTCP,
		"seconds a tcp peer may stay silent before the job ends naming its host; also bounds dialling and the handshake (0: the default)")
	AuthTimeout = Duration("GMPI_AUTH_TIMEOUT", 10*time.Second, "s", ScopeTCP,
		"seconds a connection to a port of gmpi (mpirun's PMI port, a rank's, a relay's, an MPI_Open_port port, the name server) has to prove the job secret before it is dropped; at most 128 connections wait per port, the oldest is dropped first (0: the default)")
	TCPPortRange = String("GMPI_TCP_PORT_RANGE", "", ScopeTCP,
		"low:high: every port gmpi listens on (rank links, mpirun's PMI port, relays, MPI ports) comes from this range (empty: any port); a grid file's port_range sets it per site or host")
	TCPSourcePortRange = String("GMPI_TCP_SOURCE_PORT_RANGE", "", ScopeTCP,
		"low:high: every connection gmpi opens to another host (rank links, relays, MPI ports, the name server, mpirun's PMI port) leaves from a port of this range, for egress rules (empty: any port); a grid file's source_port_range sets it per site or host")
	TCPAdvertise = String("GMPI_TCP_ADVERTISE", "", ScopeTCP,
		"the address (host or IP, optionally host:port) other hosts dial to reach this rank, when it differs from the one it binds (NAT, multi-homed hosts); a grid file's advertise sets it per host")
	TCPCongestion = String("GMPI_TCP_CONGESTION", "auto", ScopeTCP,
		"congestion control of the tcp device's connections: auto (cubic, else reno), system (always the system's default), or an algorithm name the kernel offers (net.ipv4.tcp_available_congestion_control)")
	TCPExpressRecv = Bool("GMPI_TCP_EXPRESS_RECV", true, ScopeTCP,
		"1 (default): a small blocking receive from a tcp peer reads the pair's socket in C without entering Go when nothing else is queued (the express lane; off on grids of several data representations); 0: receives from tcp peers take the Go path")
	TCPPoll = Auto("GMPI_TCP_POLL", ScopeTCP,
		"1/0: the waiting thread reads tcp sockets itself and, alone, sleeps on them in poll(2) (auto: only without shared-memory peers)")

	// collectives
	Coll = String("GMPI_COLL", "", ScopeColl,
		"the collective components to use (a,b) or to exclude (^a,b); empty: all")
	CollPriority = Family("GMPI_COLL_<NAME>_PRIORITY", KindInt, "the component's", ScopeColl,
		"overrides a collective component's priority (higher wins; negative: never)")
	CollShmOps = List("GMPI_COLL_SHM_OPS", []string{"all"}, ScopeCollShm,
		"operations the shm collective component takes (all: every one)",
		"all", "barrier", "bcast", "reduce", "allreduce", "allgather", "gather", "scatter", "alltoall",
		"scan", "exscan", "reduce_scatter_block")
	CollShmSingleCopy = Auto("GMPI_COLL_SHM_SINGLE_COPY", ScopeCollShm,
		"1/0 forces whether the shm collective component copies blocks and reductions once through cross-memory attach (single_copy algorithms) instead of through its segment (auto: large ones, when every rank can read and write every other's memory and the host is not oversubscribed)")
	TunedAlgorithm = Family("GMPI_COLL_TUNED_<OP>_ALGORITHM", KindString, "", ScopeTuned,
		"forces the tuned component's algorithm for one operation (empty: the decision table)")
	TunedFile = String("GMPI_COLL_TUNED_FILE", "", ScopeTuned,
		"a JSON decision table replacing the tuned component's embedded one")
	Associative = Bool("GMPI_ASSOCIATIVE", false, ScopeHier,
		"1: the program's reduction operators are associative, so coll/hier reduces per site first even for non-commutative ones (as the info key gmpi_assert_associative does per communicator)")
	HierSplitMin = Size("GMPI_HIER_SPLIT_MIN", 16384, "", ScopeHier,
		"bytes from which coll/hier cuts a broadcast or allreduce vector into one piece per site (three sites or more)")
	HierSegment = AtLeast(Size("GMPI_HIER_SEGMENT", 4096, "", ScopeHier,
		"bytes per message of coll/hier's transfers between sites: relayed pieces are forwarded segment by segment, and large transfers to several sites are interleaved"), 256)
	HierFanout = Size("GMPI_HIER_FANOUT", 256, "", ScopeHier,
		"bytes up to which coll/hier ends a bcast, allreduce or allgather between sites with a fan-out from the coordinators to every process, and makes a barrier one all-pairs round of every process (communicators of at most 64 processes; 0: never); a fan-out sends an item over a wide-area link once per process of the receiving site, which back-to-back broadcasts (ASP's pivot rows) pay in bandwidth")
	HierVendor = Bool("GMPI_HIER_VENDOR", false, ScopeHier,
		"1 (experimental: can deadlock when the vendor ranks reach their first collective at different times, see README): coll/hier hands the part of a blocking barrier, bcast, reduce or allreduce inside a vendor MPI job (vMPI) to the vendor's own collective")
	HierDirect = Size("GMPI_HIER_DIRECT", 0, "auto", ScopeHier,
		"bytes of a split broadcast the root sends to every site directly besides the relayed pieces, about the wide-area bandwidth-delay product (auto: from the grid file's [wan] latency and bandwidth)")

	// launch plumbing: set by mpirun for its ranks
	Hostname = internal(String("GMPI_HOSTNAME", "", ScopeLaunch,
		"the host the launch placed this rank on (empty: the kernel's host name)"))
	JobID = internal(String("GMPI_JOBID", "", ScopeLaunch,
		"names the job in shared-memory segment names (empty: from the PMI key-value space name)"))
	Site     = internal(String("GMPI_SITE", "", ScopeLaunch, "the rank's site for the topology attributes"))
	Machine  = internal(String("GMPI_MACHINE", "", ScopeLaunch, "the rank's machine for the topology attributes"))
	IOUnseen = internal(String("GMPI_IO_UNSEEN", "", ScopeLaunch,
		"directories of the grid's file systems this rank's machine does not see, separated by ':' (MPI-IO routes its access to files there through processes that see them)"))
	VMPI    = internal(String("GMPI_VMPI", "", ScopeLaunch, "the rank's vendor MPI job for the topology attributes"))
	VMPILib = internal(String("GMPI_VMPI_LIB", "", ScopeLaunch,
		"the vendor MPI library a rank of a vMPI machine loads (set by mpirun __vmpi-exec)"))
	VMPIEnv = internal(String("GMPI_VMPI_ENV", "", ScopeLaunch,
		"the vendor launcher's own PMI variables (newline-separated NAME=VALUE), restored before the vendor initializes"))
	VMPIPMI = internal(String("GMPI_VMPI_PMI", "", ScopeLaunch,
		"the Unix PMI socket of a vMPI machine's ranks (for mpirun __vmpi-exec)"))
	VMPIRanks = internal(String("GMPI_VMPI_RANKS", "", ScopeLaunch,
		"the gmpi ranks of a vMPI machine in vendor rank order (for mpirun __vmpi-exec)"))
	WANBDP = internal(Size("GMPI_WAN_BDP", 0, "", ScopeLaunch,
		"the grid file's wide-area latency x bandwidth in bytes (0: unknown), coll/hier's default for GMPI_HIER_DIRECT"))
	VMPILocal = internal(String("GMPI_VMPI_LOCAL", "", ScopeLaunch,
		"the local ranks of a vMPI machine's ranks in vendor rank order (for mpirun __vmpi-exec)"))
	PMI = String("GMPI_PMI", "auto", ScopeLibrary,
		"PMI wire protocol: 1, 2, or auto (PMI-2 when Slurm's pmi2 plugin set PMI_JOBID or PMI2_SUN_PATH, else PMI-1)",
		"auto", "1", "2")
	PMIAuth = internal(Bool("GMPI_PMI_AUTH", false, ScopeLaunch,
		"1: the PMI connection over PMI_PORT proves the job secret first"))
	TCPRelays = internal(String("GMPI_TCP_RELAYS", "", ScopeLaunch,
		"the relays of the job's private sites, SITE@GATEWAY=INSIDE[,OUTSIDE] separated by spaces (set by mpirun from the grid file's private sites)"))
	ParentPort = internal(String("GMPI_PARENT_PORT", "", ScopeLaunch,
		"the port of the parents of spawned processes (MPI_Comm_get_parent); set by mpirun for the children of MPI_Comm_spawn"))
	JobSecret = secret(internal(String("GMPI_JOB_SECRET", "", ScopeLaunch,
		"hex job secret every tcp connection proves (unset: rank 0 makes one and publishes it through PMI)")))

	// mpirun
	MpiexecTimeout = Duration("MPIEXEC_TIMEOUT", 0, "s", ScopeMpirun, "like --timeout (0: none)")
	MpirunVerbose  = Bool("GMPI_MPIRUN_VERBOSE", false, ScopeMpirun, "print launch details")
	SSH            = String("GMPI_SSH", "ssh", ScopeMpirun, "the ssh client for -H/--hostfile hosts other than this one")
	PMIAddr        = String("GMPI_PMI_ADDR", "", ScopeMpirun,
		"host[:port] of the TCP PMI port for ssh-started ranks (empty: every address, a free port)")
	StartupTimeout = Duration("GMPI_STARTUP_TIMEOUT", 120*time.Second, "s", ScopeMpirun,
		"seconds every rank of a multi-host job has to check in after the first did (0: no limit)")
	Bind = String("GMPI_BIND", "core", ScopeMpirun,
		"core: rank r on the r-th CPU mpirun may use when there are as many CPUs as ranks; none: no binding; also --bind-to",
		"core", "none")

	// mpicc
	CC      = String("GMPI_CC", "", ScopeMpicc, "the C compiler (wins over MPICH_CC; default cc)")
	MPICHCC = String("MPICH_CC", "", ScopeMpicc, "the C compiler when GMPI_CC is unset")

	// grid emulator
	EmuSiteDown = String("GMPI_EMU_SITE_DOWN", "", ScopeEmu,
		"SITE@DELAY[,...]: that long after the emulated grid starts, every wide-area path of SITE is cut")
	EmuDebug = Bool("GMPI_EMU_DEBUG", false, ScopeEmu,
		"the router prints its drops and how late delayed packets left when the grid closes")
)

func internal[T any](p P[T]) P[T] { p.v.Internal = true; return p }

func secret[T any](p P[T]) P[T] { p.v.Secret = true; return p }
