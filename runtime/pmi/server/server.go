// Package server is a PMI-1 "simple" protocol server: the process-manager
// side that gmpi's mpirun runs for its ranks, and that tests run in
// process. It serves gmpi's own client (gmpi/runtime/pmi) and MPICH-family
// clients (MPICH 3/4's simple PMI).
//
// Served commands (one reply line each unless said otherwise):
//
//	initack pmiid=N          -> initack, set size=, set rank=, set debug=0 (PMI_PORT mode)
//	init                     -> response_to_init pmi_version=1 pmi_subversion=1 rc=0
//	get_maxes                -> maxes kvsname_max= keylen_max= vallen_max= rc=0
//	get_my_kvsname           -> my_kvsname kvsname= rc=0
//	get_appnum               -> appnum appnum= rc=0
//	get_universe_size        -> universe_size size= rc=0
//	put kvsname= key= value= -> put_result rc=0 (stored at once; overwrites) | rc=-1 msg=...
//	                            beyond the rank's bound (Config.MaxKeys, MaxBytes)
//	get kvsname= key=        -> get_result rc=0 value=  |  get_result rc=-1 msg=...
//	barrier_in               -> barrier_out, sent to every rank once all Size ranks entered
//	finalize                 -> finalize_ack
//	abort [exitcode=N] [message=ENC] -> no reply; reported through Config.OnEvent
//
// Anything else gets "cmd=<name>_result rc=-1 msg=..." (a multi-line
// mcmd=spawn is read to its endcmd and refused the same way). A PMI-2
// client (whose first bytes are a 6-character length field followed by
// cmd=fullinit) gets a PMI-2 formatted fullinit-response with rc=-1 saying
// only PMI-1 is supported, an EventPMI2 event, and the connection is closed.
package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"

	"gmpi/runtime/pmi"
)

// Config describes the job a Server serves.
type Config struct {
	// Size is the number of ranks; the barrier releases when Size ranks
	// have entered it. Required (> 0).
	Size int
	// KVSName is the name of the job's key-value space. Required; it must
	// not contain spaces or '='.
	KVSName string
	// UniverseSize is what get_universe_size answers; 0 means Size.
	UniverseSize int
	// AppNum gives each rank's application number (MPMD index); nil means 0.
	AppNum func(rank int) int
	// Preput are key/value pairs present in the KVS from the start, e.g.
	// "PMI_process_mapping" which MPICH reads to learn node locality.
	// Values are stored as given (no encoding).
	Preput map[string]string
	// KeyLenMax and ValLenMax are the maxima announced by get_maxes;
	// 0 means 64 and 1024 (hydra's values). Longer keys/values are refused.
	KeyLenMax, ValLenMax int
	// OnEvent, if set, is called for every Event, from the goroutine that
	// serves the connection. It must not block for long.
	OnEvent func(Event)
	// Spawn, if set, starts the processes of a spawn request (rank is the
	// requesting rank; one block per command); its error is the
	// request's answer. Without it spawn requests are refused.
	// The counts it returns (one per block) are how many processes of
	// each command it started (fewer than asked when the info key soft
	// allows); the answer carries them (SpawnCountsKey).
	Spawn func(rank int, blocks []*pmi.SpawnBlock) ([]int, error)
	// Logf, if set, receives a trace of every line read and written.
	Logf func(format string, args ...any)
	// MaxKeys and MaxBytes bound what one rank may hold in the
	// key-value space: the number of keys it put (overwriting one of
	// its own keys does not count again) and the bytes of those keys
	// and values. A put beyond either is refused with a message naming
	// the bound, and the rank's connection stays usable. 0 means
	// DefaultMaxKeys and DefaultMaxBytes. The job's whole space is thus
	// at most Size times MaxBytes, plus Preput.
	MaxKeys, MaxBytes int
}

// DefaultMaxKeys and DefaultMaxBytes are the bounds of one rank's part
// of the key-value space (Config.MaxKeys, Config.MaxBytes). gmpi puts a
// handful of keys per rank (a long value is split into pieces of
// ValLenMax bytes, one key each); MPICH's PMI-1 client a few more.
const (
	DefaultMaxKeys  = 4096
	DefaultMaxBytes = 4 << 20
)

// kvEntry is a value of the key-value space and the rank that put it
// (-1: preput).
type kvEntry struct {
	val   string
	owner int
}

// EventKind says what an Event reports.
type EventKind int

const (
	// EventInit: the rank did the PMI init exchange.
	EventInit EventKind = iota + 1
	// EventFinalize: the rank sent finalize.
	EventFinalize
	// EventAbort: the rank sent abort; Code and Message are set.
	EventAbort
	// EventPMI2: the rank spoke PMI-2, which is refused.
	EventPMI2
	// EventProtocolError: the rank sent something unparseable or an
	// unknown command; Message describes it. Unknown commands are answered
	// with an error and the connection stays open; unparseable input
	// closes it.
	EventProtocolError
	// EventDisconnect: the rank's connection was closed (Serve returns).
	EventDisconnect
)

func (k EventKind) String() string {
	switch k {
	case EventInit:
		return "init"
	case EventFinalize:
		return "finalize"
	case EventAbort:
		return "abort"
	case EventPMI2:
		return "pmi2"
	case EventProtocolError:
		return "protocol-error"
	case EventDisconnect:
		return "disconnect"
	}
	return "event(" + strconv.Itoa(int(k)) + ")"
}

// Event is something a rank did that the process manager may care about.
type Event struct {
	Kind    EventKind
	Rank    int    // -1 if the rank is not known yet (PMI_PORT before initack)
	Code    int    // EventAbort: the exit code requested
	Message string // EventAbort: the decoded message, if any; EventProtocolError: description
}

// RankState is what the server knows about one rank.
type RankState struct {
	Initialized bool // did the init exchange
	Finalized   bool // sent finalize
	Aborted     bool // sent abort
	AbortCode   int
	AbortMsg    string
}

// Server serves the PMI-1 protocol to the ranks of one job. Create it with
// New; serve each rank's connection with Serve (or accept connections with
// ServeListener). Its methods are safe for concurrent use.
type Server struct {
	cfg Config

	mu      sync.Mutex
	kvs     map[string]kvEntry
	held    []kvUse // per rank: what it holds in kvs
	state   []RankState
	waiting []*conn // connections inside the current barrier
}

// kvUse is what one rank holds in the key-value space.
type kvUse struct{ keys, bytes int }

// New returns a Server for the job cfg describes.
func New(cfg Config) (*Server, error) {
	if cfg.Size < 1 {
		return nil, fmt.Errorf("pmi server: size %d < 1", cfg.Size)
	}
	if cfg.KVSName == "" || strings.ContainsAny(cfg.KVSName, " =\n") {
		return nil, fmt.Errorf("pmi server: bad kvs name %q", cfg.KVSName)
	}
	if cfg.UniverseSize == 0 {
		cfg.UniverseSize = cfg.Size
	}
	if cfg.KeyLenMax == 0 {
		cfg.KeyLenMax = 64
	}
	if cfg.ValLenMax == 0 {
		cfg.ValLenMax = 1024
	}
	if cfg.MaxKeys <= 0 {
		cfg.MaxKeys = DefaultMaxKeys
	}
	if cfg.MaxBytes <= 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	s := &Server{cfg: cfg, kvs: make(map[string]kvEntry), held: make([]kvUse, cfg.Size), state: make([]RankState, cfg.Size)}
	for k, v := range cfg.Preput {
		s.kvs[k] = kvEntry{val: v, owner: -1}
	}
	return s, nil
}

// State returns what the server knows about rank. Out-of-range ranks give
// the zero RankState.
func (s *Server) State(rank int) RankState {
	s.mu.Lock()
	defer s.mu.Unlock()
	if rank < 0 || rank >= len(s.state) {
		return RankState{}
	}
	return s.state[rank]
}

// conn is one served connection.
type conn struct {
	s    *Server
	rank int
	rw   io.ReadWriteCloser
	r    *bufio.Reader
	wmu  sync.Mutex
	// spawn holds the blocks of a spawn request received so far.
	spawn      []*pmi.SpawnBlock
	spawnBytes int // the lines of spawn's blocks
}

// maxBlock bounds the bytes of one spawn request (all its blocks).
const maxBlock = 4 << 20

func (c *conn) write(line string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.s.cfg.Logf != nil {
		c.s.cfg.Logf("pmi[%d] <- %s", c.rank, strings.TrimRight(line, "\n"))
	}
	// A write error means the rank is gone; the read side will notice.
	io.WriteString(c.rw, line)
}

func (s *Server) event(ev Event) {
	if s.cfg.OnEvent != nil {
		s.cfg.OnEvent(ev)
	}
}

// ServeListener accepts connections from l until it fails (e.g. is
// closed) and serves each in its own goroutine with rank -1: the client
// must start with "cmd=initack pmiid=<rank>". It returns the Accept error.
func (s *Server) ServeListener(l net.Listener) error {
	for {
		c, err := l.Accept()
		if err != nil {
			return err
		}
		go s.Serve(-1, c)
	}
}

// Serve serves one rank's connection until the peer closes it or sends
// something unusable, then closes rw and reports EventDisconnect. rank is
// the rank the connection belongs to (fd mode), or -1 if the client will
// identify itself with initack (PMI_PORT mode).
func (s *Server) Serve(rank int, rw io.ReadWriteCloser) {
	c := &conn{s: s, rank: rank, rw: rw, r: bufio.NewReaderSize(rw, 4096)}
	defer func() {
		rw.Close()
		s.event(Event{Kind: EventDisconnect, Rank: c.rank})
	}()
	if rank >= s.cfg.Size {
		s.event(Event{Kind: EventProtocolError, Rank: rank, Message: "rank out of range"})
		return
	}
	if head, err := c.r.Peek(10); err == nil && isPMI2(head) {
		c.refusePMI2()
		return
	}
	for {
		line, err := pmi.ReadLine(c.r)
		if err != nil {
			// EOF or a reset connection is how a rank leaves; only
			// garbage is worth reporting.
			if errors.Is(err, pmi.ErrLineTooLong) {
				s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: err.Error()})
			}
			return
		}
		if s.cfg.Logf != nil {
			s.cfg.Logf("pmi[%d] -> %s", c.rank, line)
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		f, err := pmi.ParseLine(line)
		if err != nil {
			s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: err.Error()})
			return
		}
		if !c.handle(f) {
			return
		}
	}
}

// isPMI2 recognizes the start of a PMI-2 command: a 6-byte decimal length
// (space padded) immediately followed by "cmd=".
func isPMI2(head []byte) bool {
	if len(head) < 10 || string(head[6:10]) != "cmd=" {
		return false
	}
	for _, b := range head[:6] {
		if b != ' ' && (b < '0' || b > '9') {
			return false
		}
	}
	return true
}

func (c *conn) refusePMI2() {
	const msg = "gmpi mpirun supports only PMI-1 (the simple protocol); use a PMI-1 client"
	body := "cmd=fullinit-response;rc=-1;errmsg=" + msg + ";"
	c.write(fmt.Sprintf("%-6d%s", len(body), body))
	c.s.event(Event{Kind: EventPMI2, Rank: c.rank, Message: msg})
}

// handle serves one command; it returns false if the connection must be
// closed.
func (c *conn) handle(f map[string]string) bool {
	s := c.s
	cmd := f["cmd"]
	if cmd == "" {
		return c.multiline(f["mcmd"])
	}
	if c.rank < 0 && cmd != "initack" {
		s.event(Event{Kind: EventProtocolError, Rank: -1, Message: "command " + cmd + " before initack"})
		c.write(pmi.FormatLine(cmd+"_result", "rc", "-1", "msg", "initack_required"))
		return false
	}
	switch cmd {
	case "initack":
		id, err := strconv.Atoi(f["pmiid"])
		if err != nil || id < 0 || id >= s.cfg.Size || c.rank >= 0 {
			s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: "bad initack pmiid=" + f["pmiid"]})
			return false
		}
		c.rank = id
		c.write(pmi.FormatLine("initack") +
			pmi.FormatLine("set", "size", strconv.Itoa(s.cfg.Size)) +
			pmi.FormatLine("set", "rank", strconv.Itoa(id)) +
			pmi.FormatLine("set", "debug", "0"))
	case "init":
		s.mu.Lock()
		s.state[c.rank].Initialized = true
		s.mu.Unlock()
		rc := "0"
		if v := f["pmi_version"]; v != "" && v != "1" {
			rc = "-1"
		}
		c.write(pmi.FormatLine("response_to_init", "pmi_version", "1", "pmi_subversion", "1", "rc", rc))
		s.event(Event{Kind: EventInit, Rank: c.rank})
	case "get_maxes":
		c.write(pmi.FormatLine("maxes", "rc", "0",
			"kvsname_max", "256",
			"keylen_max", strconv.Itoa(s.cfg.KeyLenMax),
			"vallen_max", strconv.Itoa(s.cfg.ValLenMax)))
	case "get_my_kvsname":
		c.write(pmi.FormatLine("my_kvsname", "rc", "0", "kvsname", s.cfg.KVSName))
	case "get_appnum":
		app := 0
		if s.cfg.AppNum != nil {
			app = s.cfg.AppNum(c.rank)
		}
		c.write(pmi.FormatLine("appnum", "rc", "0", "appnum", strconv.Itoa(app)))
	case "get_universe_size":
		c.write(pmi.FormatLine("universe_size", "rc", "0", "size", strconv.Itoa(s.cfg.UniverseSize)))
	case "put":
		key, val := f["key"], f["value"]
		switch {
		case f["kvsname"] != s.cfg.KVSName:
			c.write(pmi.FormatLine("put_result", "rc", "-1", "msg", "unknown_kvsname_"+f["kvsname"]))
		case key == "" || len(key) > s.cfg.KeyLenMax:
			c.write(pmi.FormatLine("put_result", "rc", "-1", "msg", "bad_key_length"))
		case len(val) > s.cfg.ValLenMax:
			c.write(pmi.FormatLine("put_result", "rc", "-1", "msg", "value_longer_than_vallen_max"))
		default:
			if msg := s.store(c.rank, key, val); msg != "" {
				s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: msg})
				c.write(pmi.FormatLine("put_result", "rc", "-1", "msg", strings.ReplaceAll(msg, " ", "_")))
				break
			}
			c.write(pmi.FormatLine("put_result", "rc", "0", "msg", "success"))
		}
	case "get":
		key := f["key"]
		s.mu.Lock()
		e, ok := s.kvs[key]
		s.mu.Unlock()
		val := e.val
		switch {
		case f["kvsname"] != s.cfg.KVSName:
			c.write(pmi.FormatLine("get_result", "rc", "-1", "msg", "unknown_kvsname_"+f["kvsname"]))
		case !ok:
			c.write(pmi.FormatLine("get_result", "rc", "-1", "msg", "key_"+key+"_not_found"))
		default:
			c.write(pmi.FormatLine("get_result", "rc", "0", "msg", "success", "value", val))
		}
	case "barrier_in":
		s.mu.Lock()
		s.waiting = append(s.waiting, c)
		var release []*conn
		if len(s.waiting) >= s.cfg.Size {
			release, s.waiting = s.waiting, nil
		}
		s.mu.Unlock()
		for _, w := range release {
			w.write(pmi.FormatLine("barrier_out", "rc", "0"))
		}
	case "finalize":
		s.mu.Lock()
		s.state[c.rank].Finalized = true
		s.mu.Unlock()
		s.event(Event{Kind: EventFinalize, Rank: c.rank})
		c.write(pmi.FormatLine("finalize_ack", "rc", "0"))
	case "abort":
		code := 1
		if v, ok := f["exitcode"]; ok {
			if n, err := strconv.Atoi(v); err == nil {
				code = n
			}
		}
		msg := pmi.DecodeValue(f["message"])
		s.mu.Lock()
		st := &s.state[c.rank]
		st.Aborted, st.AbortCode, st.AbortMsg = true, code, msg
		s.mu.Unlock()
		s.event(Event{Kind: EventAbort, Rank: c.rank, Code: code, Message: msg})
	default:
		s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: "unsupported PMI-1 command " + cmd})
		c.write(pmi.FormatLine(cmd+"_result", "rc", "-1", "msg", "unsupported_command_"+cmd))
	}
	return true
}

// store puts key=val for rank, within the rank's bounds; it returns why
// it refused, "" when stored. A key another rank (or the preput) holds
// is taken over by rank.
func (s *Server) store(rank int, key, val string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	old, had := s.kvs[key]
	u := s.held[rank]
	size := len(key) + len(val)
	if had && old.owner == rank {
		u.bytes -= len(key) + len(old.val)
	} else {
		u.keys++
	}
	u.bytes += size
	if u.keys > s.cfg.MaxKeys {
		return fmt.Sprintf("kvs bound: rank %d already put %d keys (at most %d per rank)", rank, u.keys-1, s.cfg.MaxKeys)
	}
	if u.bytes > s.cfg.MaxBytes {
		return fmt.Sprintf("kvs bound: rank %d would hold %d bytes of keys and values (at most %d per rank)", rank, u.bytes, s.cfg.MaxBytes)
	}
	if had && old.owner >= 0 && old.owner != rank {
		o := &s.held[old.owner]
		o.keys--
		o.bytes -= len(key) + len(old.val)
	}
	s.held[rank] = u
	s.kvs[key] = kvEntry{val: val, owner: rank}
	return ""
}

// multiline consumes a multi-line command (mcmd=spawn ... endcmd). A
// spawn request (one block per command) goes to Config.Spawn once its
// last block is in; without Config.Spawn, or for another command, it is
// refused.
func (c *conn) multiline(mcmd string) bool {
	var lines []string
	size, long := 0, false
	for {
		line, err := pmi.ReadLine(c.r)
		if err != nil {
			return false
		}
		if strings.TrimSpace(line) == "endcmd" {
			break
		}
		// What a block holds is bounded: beyond maxBlock bytes the rest
		// is read to endcmd and dropped, and the request refused.
		if size += len(line); size+c.spawnBytes > maxBlock {
			long = true
			continue
		}
		lines = append(lines, line)
	}
	refuse := func(msg string) bool {
		c.spawn, c.spawnBytes = nil, 0
		c.s.event(Event{Kind: EventProtocolError, Rank: c.rank, Message: mcmd + ": " + msg})
		c.write(pmi.FormatLine(mcmd+"_result", "rc", "-1", "errmsg", pmi.EncodeValue(msg)))
		return true
	}
	if mcmd != "spawn" || c.s.cfg.Spawn == nil {
		return refuse("unsupported PMI-1 command " + mcmd)
	}
	if long {
		return refuse(fmt.Sprintf("spawn request longer than %d bytes", maxBlock))
	}
	b, err := pmi.ParseSpawnBlock(lines)
	if err != nil {
		return refuse(err.Error())
	}
	if b.Idx != len(c.spawn)+1 || len(c.spawn) > 0 && b.Total != c.spawn[0].Total {
		return refuse("spawn blocks out of order")
	}
	c.spawn = append(c.spawn, b)
	c.spawnBytes += size
	if b.Idx < b.Total {
		return true
	}
	blocks := c.spawn
	c.spawn, c.spawnBytes = nil, 0
	counts, err := c.s.cfg.Spawn(c.rank, blocks)
	if err != nil {
		return refuse(err.Error())
	}
	cs := make([]string, len(counts))
	for i, n := range counts {
		cs[i] = strconv.Itoa(n)
	}
	c.write(pmi.FormatLine("spawn_result", "rc", "0", pmi.SpawnCountsKey, strings.Join(cs, ",")))
	return true
}
