// Package pmi is gmpi's client of the PMI-1 "simple" wire protocol, the
// bootstrap protocol served by gmpi's mpirun, MPICH's hydra (mpiexec) and
// Slurm's PMI-1 plugin.
//
// A launched process finds its server through the environment (see
// FromEnv), learns its rank, the job size and the name of the job's
// key-value space (KVS), publishes business cards with Put, makes them
// visible with Barrier and reads the other processes' cards with Get.
//
// Values: PMI-1 values cannot carry spaces, newlines or '='. Put encodes
// its value with EncodeValue (printable ASCII other than space, '%' and
// '=' kept as is, every other byte as %XX) and Get decodes it, so callers
// can store arbitrary bytes. A value whose encoding is longer than the
// server's vallen_max is split transparently over several keys (see Put).
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

// Defaults used when the server does not announce its maxima.
const (
	defaultKVSNameMax = 256
	defaultKeyLenMax  = 64
	defaultValLenMax  = 1024
)

// Client is a connection to a PMI-1 server. Create it with FromEnv,
// NewClient or Dial.
type Client struct {
	mu   sync.Mutex
	conn io.ReadWriteCloser
	r    *bufio.Reader
	err  error // sticky: set once the connection is unusable

	rank, size   int
	appNum       int
	universeSize int
	kvsName      string

	kvsNameMax, keyLenMax, valLenMax int
}

// FromEnv connects to the PMI server named by the environment:
//   - PMI_FD set: the inherited, already connected socket with that file
//     descriptor number is used; rank and size come from PMI_RANK (default
//     0) and PMI_SIZE (default: the server's universe size). The inherited descriptor is closed (the client keeps a
//     close-on-exec duplicate) and PMI_FD is removed from the environment
//     so that processes the caller starts do not try to use it.
//   - else PMI_PORT set (host:port): a TCP connection is made and the
//     "cmd=initack pmiid=<PMI_ID>" handshake tells the server who we are
//     (PMI_ID defaults to PMI_RANK); the server answers with size and rank.
//     With GMPI_PMI_AUTH=1 (gmpi's mpirun sets it; hydra's PMI_PORT does
//     not authenticate) the connection first proves the job secret
//     GMPI_JOB_SECRET (runtime/auth, context "pmi") before any PMI byte.
//   - else FromEnv returns (nil, nil): no launcher, the caller is a
//     singleton.
//
// In both connected cases the PMI-1 init exchange is done before return
// (see NewClient).
func FromEnv() (*Client, error) { return Connect(nil) }

// Connect is FromEnv with gmpi's tunables (GMPI_PMI_AUTH, GMPI_JOB_SECRET)
// taken from p; nil p reads them from the environment.
func Connect(p *param.Values) (*Client, error) {
	if s, ok := os.LookupEnv("PMI_FD"); ok && s != "" {
		fd, err := strconv.Atoi(s)
		if err != nil || fd < 0 {
			return nil, fmt.Errorf("pmi: bad PMI_FD %q", s)
		}
		rank, err := envInt("PMI_RANK", 0)
		if err != nil {
			return nil, err
		}
		size, err := envInt("PMI_SIZE", -1)
		if err != nil {
			return nil, err
		}
		f := os.NewFile(uintptr(fd), "pmi-fd")
		if f == nil {
			return nil, fmt.Errorf("pmi: PMI_FD %d is not a valid file descriptor", fd)
		}
		var conn io.ReadWriteCloser
		if c, err := net.FileConn(f); err == nil {
			f.Close()
			conn = c
		} else {
			// Not a socket (a pipe pair is not allowed by the protocol, but
			// be forgiving): use the descriptor as it is.
			conn = f
		}
		os.Unsetenv("PMI_FD")
		return NewClient(conn, rank, size)
	}
	if addr, ok := os.LookupEnv("PMI_PORT"); ok && addr != "" {
		id, err := envInt("PMI_ID", -1)
		if err != nil {
			return nil, err
		}
		if id < 0 {
			if id, err = envInt("PMI_RANK", 0); err != nil {
				return nil, err
			}
		}
		var secret []byte
		p, err := param.OrEnv(p)
		if err != nil {
			return nil, err
		}
		if param.PMIAuth.Get(p) {
			if secret = []byte(param.JobSecret.Get(p)); len(secret) == 0 {
				return nil, errors.New("pmi: GMPI_PMI_AUTH=1 but GMPI_JOB_SECRET is not set")
			}
		}
		return DialSecret(addr, id, secret)
	}
	return nil, nil
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
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("pmi: connect to PMI_PORT %s: %w", addr, err)
	}
	if len(secret) > 0 {
		if err := auth.Handshake(conn, secret, true, "pmi", authTimeout); err != nil {
			conn.Close()
			return nil, fmt.Errorf("pmi: authenticating to PMI_PORT %s: %w", addr, err)
		}
	}
	c := newClient(conn, -1, -1)
	if err := c.initack(pmiid); err != nil {
		conn.Close()
		return nil, err
	}
	if err := c.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

// NewClient does the PMI-1 init exchange over conn, an already connected
// stream to a server, for the process with the given rank in a job of the
// given size (PMI-1 carries neither in fd mode: they come from PMI_RANK
// and PMI_SIZE). A size < 1 is replaced by the universe size. The exchange
// is: init (pmi_version=1 pmi_subversion=1), get_maxes, get_my_kvsname,
// get_appnum and get_universe_size. On error conn is closed.
func NewClient(conn io.ReadWriteCloser, rank, size int) (*Client, error) {
	c := newClient(conn, rank, size)
	if err := c.init(); err != nil {
		conn.Close()
		return nil, err
	}
	return c, nil
}

func newClient(conn io.ReadWriteCloser, rank, size int) *Client {
	return &Client{
		conn:       conn,
		r:          bufio.NewReaderSize(conn, 4096),
		rank:       rank,
		size:       size,
		kvsNameMax: defaultKVSNameMax,
		keyLenMax:  defaultKeyLenMax,
		valLenMax:  defaultValLenMax,
	}
}

// initack is the PMI_PORT handshake: the server answers cmd=initack and
// then sends "cmd=set size=N", "cmd=set rank=N" and "cmd=set debug=N".
func (c *Client) initack(pmiid int) error {
	if _, err := c.request("initack", "initack", "pmiid", strconv.Itoa(pmiid)); err != nil {
		return err
	}
	for got := 0; got < 3; got++ {
		f, err := c.readReply("set")
		if err != nil {
			return err
		}
		for k, v := range f {
			var dst *int
			switch k {
			case "size":
				dst = &c.size
			case "rank":
				dst = &c.rank
			default:
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("pmi: bad %s=%q in initack reply", k, v)
			}
			*dst = n
		}
	}
	if c.rank < 0 || c.size < 1 {
		return fmt.Errorf("pmi: server did not assign rank and size (rank=%d size=%d)", c.rank, c.size)
	}
	return nil
}

func (c *Client) init() error {
	f, err := c.request("response_to_init", "init", "pmi_version", "1", "pmi_subversion", "1")
	if err != nil {
		return err
	}
	if v := f["pmi_version"]; v != "" && v != "1" {
		return fmt.Errorf("pmi: server speaks PMI version %s, want 1", v)
	}
	if f, err = c.request("maxes", "get_maxes"); err != nil {
		return err
	}
	for k, dst := range map[string]*int{"kvsname_max": &c.kvsNameMax, "keylen_max": &c.keyLenMax, "vallen_max": &c.valLenMax} {
		if v, ok := f[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("pmi: bad %s=%q from server", k, v)
			}
			*dst = n
		}
	}
	if c.valLenMax < 16 || c.keyLenMax < 8 {
		return fmt.Errorf("pmi: server limits too small (keylen_max=%d vallen_max=%d)", c.keyLenMax, c.valLenMax)
	}
	if f, err = c.request("my_kvsname", "get_my_kvsname"); err != nil {
		return err
	}
	if c.kvsName = f["kvsname"]; c.kvsName == "" {
		return errors.New("pmi: server sent an empty kvsname")
	}
	if f, err = c.request("appnum", "get_appnum"); err != nil {
		return err
	}
	if c.appNum, err = strconv.Atoi(f["appnum"]); err != nil {
		return fmt.Errorf("pmi: bad appnum %q from server", f["appnum"])
	}
	c.universeSize = -1
	if f, err = c.request("universe_size", "get_universe_size"); err == nil {
		if n, err := strconv.Atoi(f["size"]); err == nil {
			c.universeSize = n
		}
	} else if c.err != nil {
		return err
	}
	if c.size < 1 {
		c.size = c.universeSize
	}
	if c.size < 1 {
		return errors.New("pmi: job size unknown (PMI_SIZE unset and no universe size)")
	}
	if c.universeSize < c.size {
		c.universeSize = c.size
	}
	if c.rank < 0 || c.rank >= c.size {
		return fmt.Errorf("pmi: rank %d out of range for size %d", c.rank, c.size)
	}
	return nil
}

// send writes one request line. The caller holds c.mu (or is the
// constructor). Errors are sticky.
func (c *Client) send(cmd string, kv ...string) error {
	if c.err != nil {
		return c.err
	}
	if _, err := io.WriteString(c.conn, FormatLine(cmd, kv...)); err != nil {
		c.err = fmt.Errorf("pmi: write %s: %w", cmd, err)
		return c.err
	}
	return nil
}

// readReply reads one reply line and checks that it is cmd=want and that
// its rc, if any, is 0. A reply with rc != 0 is returned as an error that
// leaves the connection usable; I/O and protocol errors are sticky.
func (c *Client) readReply(want string) (map[string]string, error) {
	if c.err != nil {
		return nil, c.err
	}
	line, err := ReadLine(c.r)
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		c.err = fmt.Errorf("pmi: waiting for %s: %w", want, err)
		return nil, c.err
	}
	f, err := ParseLine(line)
	if err != nil {
		c.err = err
		return nil, err
	}
	if f["cmd"] != want {
		c.err = fmt.Errorf("pmi: expected cmd=%s from server, got %q", want, line)
		return nil, c.err
	}
	if rc, ok := f["rc"]; ok && rc != "0" {
		msg := f["msg"]
		if msg == "" {
			msg = f["errmsg"]
		}
		return f, &rcError{cmd: want, rc: rc, msg: msg}
	}
	return f, nil
}

// request sends one command and reads its reply.
func (c *Client) request(want, cmd string, kv ...string) (map[string]string, error) {
	if err := c.send(cmd, kv...); err != nil {
		return nil, err
	}
	return c.readReply(want)
}

// rcError is a server reply with a non-zero rc.
type rcError struct{ cmd, rc, msg string }

func (e *rcError) Error() string {
	if e.msg != "" {
		return fmt.Sprintf("pmi: %s failed: rc=%s: %s", e.cmd, e.rc, e.msg)
	}
	return fmt.Sprintf("pmi: %s failed: rc=%s", e.cmd, e.rc)
}

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
	if c.err != nil {
		return c.err
	}
	_, err := c.request("put_result", "put", "kvsname", c.kvsName, "key", key, "value", value)
	if err != nil {
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
	if _, err := c.request("barrier_out", "barrier_in"); err != nil {
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
	if c.err != nil {
		return "", c.err
	}
	f, err := c.request("get_result", "get", "kvsname", c.kvsName, "key", key)
	if err != nil {
		var rce *rcError
		if errors.As(err, &rce) {
			return "", fmt.Errorf("pmi: get %q: %w (server: rc=%s %s)", key, ErrNotFound, rce.rc, rce.msg)
		}
		return "", fmt.Errorf("pmi: get %q: %w", key, err)
	}
	v, ok := f["value"]
	if !ok {
		return "", fmt.Errorf("pmi: get %q: reply without value", key)
	}
	return v, nil
}

// Abort asks the server to terminate the whole job with exit code code
// ("cmd=abort exitcode=<code>", the form MPICH 4 clients send) and passes
// msg along as an extra, encoded "message=" field that gmpi's mpirun prints
// and other servers ignore. The client does not print msg itself. The
// server does not reply; after Abort the client is closed and the caller
// should exit (with code) without waiting to be killed.
func (c *Client) Abort(code int, msg string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(msg) > 512 {
		msg = msg[:512]
	}
	kv := []string{"exitcode", strconv.Itoa(code)}
	if msg != "" {
		kv = append(kv, "message", EncodeValue(msg))
	}
	err := c.send("abort", kv...)
	if c.err == nil {
		c.err = ErrClosed
	}
	return err
}

// Finalize tells the server this process is done with PMI ("cmd=finalize"
// answered by "cmd=finalize_ack") and closes the connection. A process
// that did the init exchange and exits without Finalize is treated by
// gmpi's mpirun as having failed.
func (c *Client) Finalize() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == ErrClosed {
		return ErrClosed
	}
	_, err := c.request("finalize_ack", "finalize")
	if cerr := c.conn.Close(); err == nil && cerr != nil {
		err = cerr
	}
	c.err = ErrClosed
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
	if c.err == ErrClosed {
		return nil
	}
	c.err = ErrClosed
	return c.conn.Close()
}
