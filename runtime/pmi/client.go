// Package pmi is gmpi's PMI client: the bootstrap protocol served by
// gmpi's mpirun, MPICH's hydra (mpiexec) and Slurm's pmi2 plugin (srun
// --mpi=pmi2). It speaks both wire protocols of the MPICH family: PMI-1
// "simple" (line based) and PMI-2 (length-framed, ';'-separated); FromEnv
// picks one from what the launcher put in the environment.
//
// A launched process finds its server through the environment (see
// FromEnv), learns its rank, the job size and the name of the job's
// key-value space (KVS), publishes business cards with Put, makes them
// visible with Barrier and reads the other processes' cards with Get.
//
// Values: PMI values cannot carry spaces, newlines, '=' or (PMI-2) ';'.
// Put encodes its value with EncodeValue (printable ASCII other than
// space, '%', '=' and ';' kept as is, every other byte as %XX) and Get
// decodes it, so callers can store arbitrary bytes. A value whose encoding
// is longer than the server's vallen_max is split transparently over
// several keys (see Put).
//
// A Client is safe for concurrent use: one mutex serializes each request
// with its reply.
package pmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/ports"
)

// ErrNotFound is wrapped by the error Get returns when the server has no
// value for the key (PMI-1 reports that as a get_result with rc != 0).
var ErrNotFound = errors.New("key not found")

// ErrClosed is returned by requests made after Finalize, Abort or Close.
var ErrClosed = errors.New("pmi: client closed")

// chunkMarker starts the value stored under a key whose value was split
// over several keys; it is followed by the number of chunks. EncodeValue
// never produces "%%" so the marker cannot be mistaken for a value.
const chunkMarker = "%%gmpi-chunks:"

// chunkSep separates a key from the chunk index in the keys holding the
// pieces of a split value ("key#0", "key#1", ...). Put rejects keys that
// contain it.
const chunkSep = "#"

// Client is a connection to a PMI server. Create it with FromEnv,
// NewClient, NewClient2 or Dial.
type Client struct {
	mu sync.Mutex
	l  *link
	p  proto

	version      int // 1 or 2
	rank, size   int
	appNum       int
	universeSize int
	kvsName      string

	keyLenMax, valLenMax int
}

// proto is one wire protocol's side of the requests a Client makes. The
// caller holds Client.mu. Values and keys are already encoded and fit the
// server's maxima.
type proto interface {
	put(kvs, key, value string) error
	// get fails with an error wrapping ErrNotFound for a missing key.
	get(kvs, key string) (string, error)
	// barrier returns once every process has entered it.
	barrier(kvs string) error
	// jobAttr returns a job attribute the server provides (such as
	// PMI_process_mapping) and whether it has it.
	jobAttr(kvs, key string) (string, bool, error)
	// abort sends the abort request; no reply comes.
	abort(code int, msg string) error
	finalize() error
}

// link is the connection to the server. Its error is sticky: once set
// (I/O or protocol error, or ErrClosed) every later request returns it.
type link struct {
	conn io.ReadWriteCloser
	r    *bufio.Reader
	err  error
}

func newLink(conn io.ReadWriteCloser) *link {
	return &link{conn: conn, r: bufio.NewReaderSize(conn, 4096)}
}

// write sends s, recording a failure as the sticky error.
func (l *link) write(what, s string) error {
	if l.err != nil {
		return l.err
	}
	if _, err := io.WriteString(l.conn, s); err != nil {
		l.err = fmt.Errorf("pmi: write %s: %w", what, err)
	}
	return l.err
}

// fail records err as the sticky error (unless one is set) and returns
// the sticky error.
func (l *link) fail(err error) error {
	if l.err == nil {
		l.err = err
	}
	return l.err
}

// Wire protocol choices for GMPI_PMI and Options.
const (
	Auto = 0 // from the environment (see FromEnv)
	V1   = 1 // PMI-1 "simple"
	V2   = 2 // PMI-2
)

// FromEnv connects to the PMI server named by the environment:
//   - PMI_FD set: the inherited, already connected socket with that file
//     descriptor number is used. The inherited descriptor is closed (the
//     client keeps a close-on-exec duplicate) and PMI_FD is removed from
//     the environment so that processes the caller starts do not try to
//     use it.
//   - else PMI_PORT set (host:port): a TCP connection is made. With
//     GMPI_PMI_AUTH=1 (gmpi's mpirun sets it; hydra's PMI_PORT does not
//     authenticate) the connection first proves the job secret
//     GMPI_JOB_SECRET (runtime/auth, context "pmi") before any PMI byte.
//   - else FromEnv returns (nil, nil): no launcher, the caller is a
//     singleton.
//
// The wire protocol is GMPI_PMI: "1" (PMI-1), "2" (PMI-2), or unset/"auto":
// PMI-2 when the environment has PMI_JOBID or PMI2_SUN_PATH (Slurm's pmi2
// plugin sets them; it serves both protocols but PMI-2 is its own),
// otherwise PMI-1 (gmpi's mpirun serves only PMI-1; hydra serves both and
// tells them apart by the client's first line).
//
// PMI-1 over PMI_FD takes rank and size from PMI_RANK (default 0) and
// PMI_SIZE (default: the server's universe size); over PMI_PORT the
// "cmd=initack pmiid=<PMI_ID>" handshake (PMI_ID defaults to PMI_RANK)
// makes the server say them. PMI-2 identifies itself with pmirank=<PMI_ID,
// else PMI_RANK> and pmijobid=<PMI_JOBID> (when set) in fullinit and the
// server says rank and size.
func FromEnv() (*Client, error) { return Connect(nil) }

// Connect is FromEnv with gmpi's tunables (GMPI_PMI, GMPI_PMI_AUTH,
// GMPI_JOB_SECRET) taken from p; nil p reads them from the environment.
func Connect(p *param.Values) (*Client, error) {
	p, err := param.OrEnv(p)
	if err != nil {
		return nil, err
	}
	version, err := envVersion(p)
	if err != nil {
		return nil, err
	}
	conn, port, err := connFromEnv(p)
	if conn == nil || err != nil {
		return nil, err
	}
	if version == Auto {
		version = V1
		if os.Getenv("PMI_JOBID") != "" || os.Getenv("PMI2_SUN_PATH") != "" {
			version = V2
		}
	}
	id, err := envInt("PMI_ID", -1)
	if err == nil && id < 0 {
		id, err = envInt("PMI_RANK", 0)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	if version == V2 {
		return NewClient2(conn, id, os.Getenv("PMI_JOBID"))
	}
	if port {
		return connectPort1(conn, id)
	}
	size, err := envInt("PMI_SIZE", -1)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return NewClient(conn, id, size)
}

// envVersion reads GMPI_PMI.
func envVersion(p *param.Values) (int, error) {
	switch v := param.PMI.Get(p); v {
	case "auto":
		return Auto, nil
	case "1":
		return V1, nil
	case "2":
		return V2, nil
	default: // param.PMI accepts nothing else
		return 0, fmt.Errorf("pmi: GMPI_PMI=%q: want 1, 2 or auto", v)
	}
}

// connFromEnv opens the connection PMI_FD or PMI_PORT names; port says
// which. It returns a nil connection when neither is set.
func connFromEnv(p *param.Values) (conn io.ReadWriteCloser, port bool, err error) {
	if s, ok := os.LookupEnv("PMI_FD"); ok && s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil || fd < 0 {
			return nil, false, fmt.Errorf("pmi: bad PMI_FD %q", s)
		}
		f := os.NewFile(uintptr(fd), "pmi-fd")
		if f == nil {
			return nil, false, fmt.Errorf("pmi: PMI_FD %d is not a valid file descriptor", fd)
		}
		os.Unsetenv("PMI_FD")
		if c, err := net.FileConn(f); err == nil {
			f.Close()
			return c, false, nil
		}
		// Not a socket (a pipe pair is not allowed by the protocol, but
		// be forgiving): use the descriptor as it is.
		return f, false, nil
	}
	if addr, ok := os.LookupEnv("PMI_PORT"); ok && addr != "" {
		var secret []byte
		if param.PMIAuth.Get(p) {
			if secret = []byte(param.JobSecret.Get(p)); len(secret) == 0 {
				return nil, true, errors.New("pmi: GMPI_PMI_AUTH=1 but GMPI_JOB_SECRET is not set")
			}
		}
		c, err := dialPort(addr, secret)
		return c, true, err
	}
	return nil, false, nil
}

func envInt(name string, def int) (int, error) {
	s, ok := os.LookupEnv(name)
	if !ok || s == "" {
		return def, nil
	}
	v, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("pmi: bad %s %q", name, s)
	}
	return v, nil
}

// Dial connects to a PMI-1 server listening at addr (host:port, the form
// of PMI_PORT), identifies itself with "cmd=initack pmiid=<pmiid>", reads
// the size and rank the server assigns, and then does the init exchange
// of NewClient.
func Dial(addr string, pmiid int) (*Client, error) { return DialSecret(addr, pmiid, nil) }

// authTimeout bounds the authentication of a PMI connection.
const authTimeout = 30 * time.Second

// DialSecret is Dial with authentication: when secret is not empty the
// connection proves it (auth.Handshake, context "pmi") before the first
// PMI byte, and a server that does not know it is refused.
func DialSecret(addr string, pmiid int, secret []byte) (*Client, error) {
	conn, err := dialPort(addr, secret)
	if err != nil {
		return nil, err
	}
	return connectPort1(conn, pmiid)
}

// dialPort connects to addr and, with a secret, authenticates.
func dialPort(addr string, secret []byte) (net.Conn, error) {
	network := "tcp"
	if strings.HasPrefix(addr, "/") { // a Unix socket (mpirun's for vendor-launched ranks)
		network = "unix"
	}
	var conn net.Conn
	var err error
	if network == "tcp" {
		conn, err = ports.DialConfigured(nil, addr, authTimeout, "the PMI client")
	} else {
		conn, err = net.Dial(network, addr)
	}
	if err != nil {
		return nil, fmt.Errorf("pmi: connect to PMI_PORT %s: %w", addr, err)
	}
	if len(secret) > 0 {
		if err := auth.Handshake(conn, secret, true, "pmi", authTimeout); err != nil {
			conn.Close()
			return nil, fmt.Errorf("pmi: authenticating to PMI_PORT %s: %w", addr, err)
		}
	}
	return conn, nil
}

// checkJob validates what the server said about the job.
func (c *Client) checkJob() error {
	if c.size < 1 {
		return errors.New("pmi: job size unknown (PMI_SIZE unset and no universe size)")
	}
	if c.universeSize < c.size {
		c.universeSize = c.size
	}
	if c.rank < 0 || c.rank >= c.size {
		return fmt.Errorf("pmi: rank %d out of range for size %d", c.rank, c.size)
	}
	if c.kvsName == "" {
		return errors.New("pmi: server sent an empty kvsname")
	}
	return nil
}

// rcError is a server reply with a non-zero rc.
type rcError struct{ cmd, rc, msg string }

func (e *rcError) Error() string {
	if e.msg != "" {
		return fmt.Sprintf("pmi: %s failed: rc=%s: %s", e.cmd, e.rc, e.msg)
	}
	return fmt.Sprintf("pmi: %s failed: rc=%s", e.cmd, e.rc)
}

// Version is the wire protocol in use: 1 (PMI-1) or 2 (PMI-2).
func (c *Client) Version() int { return c.version }

// Rank is this process's rank in the job, in [0, Size()).
func (c *Client) Rank() int { return c.rank }

// Size is the number of processes in the job (MPI_COMM_WORLD's size).
func (c *Client) Size() int { return c.size }

// AppNum is the index of the executable this process runs in an MPMD
// launch ("mpirun -n 2 a : -n 3 b" gives 0 to a's ranks and 1 to b's).
func (c *Client) AppNum() int { return c.appNum }

// KVSName is the name of the job's key-value space.
func (c *Client) KVSName() string { return c.kvsName }

// UniverseSize is the universe size the server announced, or Size() if it
// announced none or a smaller one.
func (c *Client) UniverseSize() int { return c.universeSize }

// MaxKeyLen is the longest key the server accepts (its keylen_max).
func (c *Client) MaxKeyLen() int { return c.keyLenMax }

// checkKey validates a caller's key.
func (c *Client) checkKey(key string) error {
	if key == "" {
		return errors.New("pmi: empty key")
	}
	for i := 0; i < len(key); i++ {
		if !safeByte(key[i]) {
			return fmt.Errorf("pmi: key %q contains a byte PMI cannot carry (space, '=', '%%', control or non-ASCII)", key)
		}
	}
	if strings.Contains(key, chunkSep) {
		return fmt.Errorf("pmi: key %q contains the reserved %q", key, chunkSep)
	}
	if len(key) > c.keyLenMax {
		return fmt.Errorf("pmi: key %q longer than the server's keylen_max %d", key, c.keyLenMax)
	}
	return nil
}

// chunkLen is the largest piece of encoded value stored under one key. One
// byte below vallen_max leaves room for servers that count a terminator.
func (c *Client) chunkLen() int { return c.valLenMax - 1 }

// Put stores value under key in the job's KVS. The value may be any byte
// string: it is encoded with EncodeValue. If the encoding does not fit in
// the server's vallen_max it is split into pieces stored under
// "key#0", "key#1", ... and key itself holds a marker with the number of
// pieces; Get reassembles them. Keys must be non-empty printable ASCII
// without space, '=', '%' or '#', and the pieces' keys must fit in the
// server's keylen_max. Puts become visible to other processes after the
// next Barrier (some servers show them earlier). Putting the same key twice
// is server-dependent; don't.
func (c *Client) Put(key, value string) error {
	if err := c.checkKey(key); err != nil {
		return err
	}
	enc := EncodeValue(value)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(enc) <= c.chunkLen() {
		return c.putRaw(key, enc)
	}
	n := (len(enc) + c.chunkLen() - 1) / c.chunkLen()
	if last := key + chunkSep + strconv.Itoa(n-1); len(last) > c.keyLenMax {
		return fmt.Errorf("pmi: key %q too long to split a %d-byte value (%d pieces) within keylen_max %d", key, len(value), n, c.keyLenMax)
	}
	for i := 0; i < n; i++ {
		piece := enc[i*c.chunkLen() : min(len(enc), (i+1)*c.chunkLen())]
		if err := c.putRaw(key+chunkSep+strconv.Itoa(i), piece); err != nil {
			return err
		}
	}
	return c.putRaw(key, chunkMarker+strconv.Itoa(n))
}

func (c *Client) putRaw(key, value string) error {
	if c.l.err != nil {
		return c.l.err
	}
	if err := c.p.put(c.kvsName, key, value); err != nil {
		return fmt.Errorf("pmi: put %q: %w", key, err)
	}
	return nil
}

// Barrier commits this process's puts and returns once every process of
// the job has entered the barrier (barrier_in / barrier_out). All processes
// must call it the same number of times.
func (c *Client) Barrier() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l.err != nil {
		return fmt.Errorf("pmi: barrier: %w", c.l.err)
	}
	if err := c.p.barrier(c.kvsName); err != nil {
		return fmt.Errorf("pmi: barrier: %w", err)
	}
	return nil
}

// Get returns the value stored under key by any process of the job (or
// provided by the server, e.g. "PMI_process_mapping"), decoded with
// DecodeValue and reassembled if Put split it. A missing key gives an
// error that names the key and wraps ErrNotFound.
func (c *Client) Get(key string) (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, err := c.getRaw(key)
	if err != nil {
		return "", err
	}
	if !strings.HasPrefix(v, chunkMarker) {
		return DecodeValue(v), nil
	}
	n, err := strconv.Atoi(v[len(chunkMarker):])
	if err != nil || n < 1 {
		return "", fmt.Errorf("pmi: get %q: corrupt split-value marker %q", key, v)
	}
	var b strings.Builder
	for i := 0; i < n; i++ {
		piece, err := c.getRaw(key + chunkSep + strconv.Itoa(i))
		if err != nil {
			return "", err
		}
		b.WriteString(piece)
	}
	return DecodeValue(b.String()), nil
}

func (c *Client) getRaw(key string) (string, error) {
	if c.l.err != nil {
		return "", c.l.err
	}
	v, err := c.p.get(c.kvsName, key)
	if err != nil {
		return "", fmt.Errorf("pmi: get %q: %w", key, err)
	}
	return v, nil
}

// JobAttr returns a job attribute the launcher provides, such as
// "PMI_process_mapping", and whether it has it: PMI-2's info-getjobattr,
// or a KVS get under PMI-1 (where such attributes live in the KVS).
func (c *Client) JobAttr(key string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l.err != nil {
		return "", false, c.l.err
	}
	v, ok, err := c.p.jobAttr(c.kvsName, key)
	if err != nil {
		return "", false, fmt.Errorf("pmi: job attribute %q: %w", key, err)
	}
	return v, ok, nil
}

// Abort asks the server to terminate the whole job with exit code code and
// passes msg along (PMI-1: "cmd=abort exitcode=<code> message=<encoded
// msg>", the form MPICH 4 clients send plus a field gmpi's mpirun prints;
// PMI-2: "cmd=abort;isworld=TRUE;exitcode=<code>;message=<msg>;"). The
// client does not print msg itself. The server does not reply; after
// Abort the client is closed and the caller should exit (with code)
// without waiting to be killed.
func (c *Client) Abort(code int, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(msg) > 512 {
		msg = msg[:512]
	}
	err := c.p.abort(code, msg)
	c.l.fail(ErrClosed)
	return err
}

// Finalize tells the server this process is done with PMI (PMI-1
// finalize/finalize_ack, PMI-2 finalize/finalize-response) and closes the
// connection. A process that did the init exchange and exits without
// Finalize is treated by gmpi's mpirun as having failed.
func (c *Client) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l.err == ErrClosed {
		return ErrClosed
	}
	err := c.p.finalize()
	if cerr := c.l.conn.Close(); err == nil && cerr != nil {
		err = cerr
	}
	c.l.err = ErrClosed
	if err != nil {
		return fmt.Errorf("pmi: finalize: %w", err)
	}
	return nil
}

// Close closes the connection without finalizing. Later requests fail with
// ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.l.err == ErrClosed {
		return nil
	}
	c.l.err = ErrClosed
	return c.l.conn.Close()
}
