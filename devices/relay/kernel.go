package relay

import (
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Kernel forwarding: once the relay has authenticated a client and opened
// the onward path, it can hand the pair's byte stream to the kernel
// instead of pumping it (pump.go): both sockets go into BPF socket maps,
// and an SK_SKB stream-verdict program redirects every buffer that
// arrives on one socket to the send side of the other
// (bpf_sk_redirect_hash, egress). The relay process then sees neither
// the bytes nor a wake-up per message; it only watches the sockets for
// an end of stream or an error (an epoll of its own that asks for
// nothing else) and tears the pair down as forward does: an end of stream
// is passed on as a half-close once every byte before it went out, an
// error resets both.
//
// Two maps, both sockhashes keyed by a socket's cookie (SO_COOKIE):
//
//	fwd  cookie(x) -> the socket x's bytes go to (no program attached)
//	act  cookie(x) -> x itself, with the verdict program attached
//
// The split is what makes the switch lossless: a socket's verdict runs as
// soon as it enters a map with the program, so its partner must already
// be a redirect target by then; entering fwd makes a socket a target
// without giving it the program. Bytes that arrived before the switch
// stay queued in the socket and are passed on, in order, at the next
// data-ready; the relay triggers one itself (setting SO_RCVLOWAT calls
// the socket's data-ready), so a peer that spoke first is not left
// waiting.
//
// The program (by hand, 22 instructions):
//
//	r6 = r1                         ; the skb
//	r7 = skb->len
//	if r7 == 0 goto drop            ; a bare FIN: the relay passes ends on
//	                                ; itself (the kernel would send nothing
//	                                ; and call the target's pipe broken)
//	call get_socket_cookie          ; r0 = cookie of the receiving socket
//	*(u64 *)(r10 - 8) = r0
//	r0 = lookup(map taken, r10 - 8) ; count what the kernel took from the
//	if r0 != 0: lock *(u64 *)r0 += r7  socket (flow control, end of stream)
//	r1 = r6
//	r2 = map fwd
//	r3 = r10 ; r3 += -8             ; key: that cookie
//	r4 = 0                          ; flags: egress of the target
//	call sk_redirect_hash           ; SK_PASS when redirected, SK_DROP if
//	exit                            ; the partner is gone (a teardown)

// Kernel says which forwarding a relay uses (GMPI_RELAY_KERNEL).
type Kernel int

const (
	KernelAuto Kernel = iota // the kernel's when it works, else splice
	KernelOff                // splice (pump.go) only
	KernelOn                 // the kernel's; a relay that cannot use it fails
)

// ParseKernel reads GMPI_RELAY_KERNEL: "auto", "0", "1" ("auto" and "1"
// reach the kernel only with GMPI_RELAY_KERNEL_EXPERIMENTAL=1 for now:
// errKernelReorders); unset is 0: with flow control the kernel path adds less latency but
// keeps far less bandwidth than splice (bench/README.md, "Relays").
func ParseKernel(s string) (Kernel, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "auto":
		return KernelAuto, nil
	case "", "0", "off", "no", "false":
		return KernelOff, nil
	case "1", "on", "yes", "true":
		return KernelOn, nil
	}
	return 0, fmt.Errorf("GMPI_RELAY_KERNEL=%q: want 0, 1 or auto", s)
}

const (
	bpfFuncMapLookupElem   = 1
	bpfFuncGetSocketCookie = 46
	bpfFuncSkRedirectHash  = 72
	// maxKernelSockets bounds each map: two sockets per relayed pair.
	maxKernelSockets = 1 << 16
)

// kfwd is the process's kernel forwarder: the maps, the program and the
// epoll that watches forwarded sockets for their end. One per process,
// shared by its relays.
type kfwd struct {
	fwd, act, prog int
	taken          int // hash: cookie(x) -> bytes the verdict took from x (u64)
	ep             int
	mu             sync.Mutex
	pairs          map[int32]*kpair // by socket fd
	pauses         atomic.Int64     // directions paused by flow control so far
	copied         atomic.Int64     // bytes copyRest moved so far
}

var (
	kOnce sync.Once
	kInst *kfwd
	kErr  error
)

// kernelForwarder returns the process's kernel forwarder, set up on the
// first call; the error says why the kernel refused (errno, verifier log).
func kernelForwarder() (*kfwd, error) {
	kOnce.Do(func() {
		if os.Getenv(experimentalEnv) != "1" {
			kErr = errKernelReorders
			return
		}
		kInst, kErr = newKfwd()
	})
	return kInst, kErr
}

// experimentalEnv lets a developer use the kernel path despite
// errKernelReorders (the kernel tests run only with it set).
const experimentalEnv = "GMPI_RELAY_KERNEL_EXPERIMENTAL"

// errKernelReorders: under load, a direction that flow control paused
// and resumed once delivered a chunk with wrong bytes 12 MB into the
// stream (TestKernelFlowControl under go test -race in CI, 2026-11-28;
// not reproduced idle, cause not found). Until that is understood the
// kernel path is refused: GMPI_RELAY_KERNEL=1 fails, auto splices.
var errKernelReorders = errors.New("disabled: a paused and resumed direction can deliver wrong bytes under load " +
	"(known bug, see bench/README.md \"In-kernel forwarding\"); " + experimentalEnv + "=1 enables it for development")

// KernelError is nil when this process can forward in the kernel, else
// why not.
func KernelError() error {
	_, err := kernelForwarder()
	return err
}

func bpf(cmd int, attr unsafe.Pointer, size uintptr) (int, error) {
	r, _, e := syscall.Syscall(unix.SYS_BPF, uintptr(cmd), uintptr(attr), size)
	if e != 0 {
		return int(r), e
	}
	return int(r), nil
}

func newKfwd() (*kfwd, error) {
	k := &kfwd{fwd: -1, act: -1, prog: -1, ep: -1, taken: -1, pairs: map[int32]*kpair{}}
	fail := func(err error) (*kfwd, error) {
		for _, fd := range []int{k.fwd, k.act, k.prog, k.ep, k.taken} {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
		return nil, err
	}
	var err error
	if k.fwd, err = sockhash("gmpi_relay_fwd"); err != nil {
		return fail(fmt.Errorf("creating the BPF sockhash: %w", err))
	}
	if k.act, err = sockhash("gmpi_relay_act"); err != nil {
		return fail(fmt.Errorf("creating the BPF sockhash: %w", err))
	}
	if k.taken, err = newMap(unix.BPF_MAP_TYPE_HASH, 8, 8, "gmpi_relay_took"); err != nil {
		return fail(fmt.Errorf("creating the BPF hash: %w", err))
	}
	if k.prog, err = loadVerdict(k.fwd, k.taken); err != nil {
		return fail(err)
	}
	attach := struct {
		target, prog, typ, flags uint32
	}{uint32(k.act), uint32(k.prog), unix.BPF_SK_SKB_STREAM_VERDICT, 0}
	if _, err := bpf(unix.BPF_PROG_ATTACH, unsafe.Pointer(&attach), unsafe.Sizeof(attach)); err != nil {
		return fail(fmt.Errorf("attaching the stream verdict: %w", err))
	}
	if k.ep, err = unix.EpollCreate1(unix.EPOLL_CLOEXEC); err != nil {
		return fail(err)
	}
	go k.watch()
	return k, nil
}

func sockhash(name string) (int, error) {
	return newMap(unix.BPF_MAP_TYPE_SOCKHASH, 8, 4, name)
}

func newMap(typ, key, value uint32, name string) (int, error) {
	attr := struct {
		typ, key, value, max, flags, inner, numa uint32
		name                                     [16]byte
	}{typ: typ, key: key, value: value, max: maxKernelSockets}
	copy(attr.name[:15], name)
	return bpf(unix.BPF_MAP_CREATE, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
}

// insn encodes one BPF instruction.
func insn(code uint8, dst, src uint8, off int16, imm int32) uint64 {
	return uint64(code) | uint64(dst&0xf)<<8 | uint64(src&0xf)<<12 | uint64(uint16(off))<<16 | uint64(uint32(imm))<<32
}

func loadVerdict(fwd, taken int) (int, error) {
	const (
		movX  = 0xbf // BPF_ALU64 | BPF_MOV | BPF_X
		movK  = 0xb7 // BPF_ALU64 | BPF_MOV | BPF_K
		addK  = 0x07 // BPF_ALU64 | BPF_ADD | BPF_K
		stxDW = 0x7b // BPF_STX | BPF_MEM | BPF_DW
		ldDW  = 0x18 // BPF_LD | BPF_IMM | BPF_DW (two slots)
		call  = 0x85 // BPF_JMP | BPF_CALL
		exit  = 0x95 // BPF_JMP | BPF_EXIT
		ldxW  = 0x61 // BPF_LDX | BPF_MEM | BPF_W
		jeqK  = 0x15 // BPF_JMP | BPF_JEQ | BPF_K
		xadd  = 0xdb // BPF_STX | BPF_ATOMIC | BPF_DW, imm BPF_ADD
	)
	prog := []uint64{
		insn(movX, 6, 1, 0, 0),
		insn(ldxW, 7, 1, 0, 0), // skb->len
		insn(jeqK, 7, 0, 17, 0),
		insn(call, 0, 0, 0, bpfFuncGetSocketCookie),
		insn(stxDW, 10, 0, -8, 0),
		insn(ldDW, 1, unix.BPF_PSEUDO_MAP_FD, 0, int32(taken)), 0,
		insn(movX, 2, 10, 0, 0),
		insn(addK, 2, 0, 0, -8),
		insn(call, 0, 0, 0, bpfFuncMapLookupElem),
		insn(jeqK, 0, 0, 1, 0),
		insn(xadd, 0, 7, 0, 0),
		insn(movX, 1, 6, 0, 0),
		insn(ldDW, 2, unix.BPF_PSEUDO_MAP_FD, 0, int32(fwd)), 0,
		insn(movX, 3, 10, 0, 0),
		insn(addK, 3, 0, 0, -8),
		insn(movK, 4, 0, 0, 0),
		insn(call, 0, 0, 0, bpfFuncSkRedirectHash),
		insn(exit, 0, 0, 0, 0),
		insn(movK, 0, 0, 0, 0), // SK_DROP
		insn(exit, 0, 0, 0, 0),
	}
	license := []byte("GPL\x00")
	log := make([]byte, 1<<16)
	attr := struct {
		typ, cnt       uint32
		insns, license uint64
		logLevel       uint32
		logSize        uint32
		logBuf         uint64
		kernVersion    uint32
		flags          uint32
		name           [16]byte
	}{
		typ: unix.BPF_PROG_TYPE_SK_SKB, cnt: uint32(len(prog)),
		insns: uint64(uintptr(unsafe.Pointer(&prog[0]))), license: uint64(uintptr(unsafe.Pointer(&license[0]))),
		logLevel: 1, logSize: uint32(len(log)), logBuf: uint64(uintptr(unsafe.Pointer(&log[0]))),
	}
	copy(attr.name[:], "gmpi_relay")
	fd, err := bpf(unix.BPF_PROG_LOAD, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
	if err != nil {
		msg := strings.TrimSpace(string(log[:max(0, strings.IndexByte(string(log), 0))]))
		if msg != "" {
			return -1, fmt.Errorf("loading the stream verdict: %w; verifier: %s", err, msg)
		}
		return -1, fmt.Errorf("loading the stream verdict: %w", err)
	}
	return fd, nil
}

// mapElem runs a map command on one element (BPF_MAP_UPDATE_ELEM,
// BPF_MAP_LOOKUP_ELEM): key and value point at the key and the value
// of the map's sizes.
func mapElem(cmd, m int, key uint64, value unsafe.Pointer, flags uint64) error {
	attr := struct {
		m, _       uint32
		key, value uint64
		flags      uint64
	}{m: uint32(m), key: uint64(uintptr(unsafe.Pointer(&key))), value: uint64(uintptr(value)), flags: flags}
	_, err := bpf(cmd, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
	return err
}

func mapUpdate(m int, key uint64, fd int) error {
	v := uint32(fd)
	return mapElem(unix.BPF_MAP_UPDATE_ELEM, m, key, unsafe.Pointer(&v), unix.BPF_NOEXIST)
}

func mapDelete(m int, key uint64) {
	attr := struct {
		m, _ uint32
		key  uint64
		_    [2]uint64
	}{m: uint32(m), key: uint64(uintptr(unsafe.Pointer(&key)))}
	bpf(unix.BPF_MAP_DELETE_ELEM, unsafe.Pointer(&attr), unsafe.Sizeof(attr))
}

func mapLookupU64(m int, key uint64) (uint64, error) {
	var v uint64
	err := mapElem(unix.BPF_MAP_LOOKUP_ELEM, m, key, unsafe.Pointer(&v), 0)
	return v, err
}

func mapPutU64(m int, key, v uint64) error {
	return mapElem(unix.BPF_MAP_UPDATE_ELEM, m, key, unsafe.Pointer(&v), unix.BPF_ANY)
}

// mapLen counts a map's keys (tests).
func mapLen(m int) int {
	var key, next uint64
	n := 0
	for first := true; ; first = false {
		attr := struct {
			m, _      uint32
			key, next uint64
			_         uint64
		}{m: uint32(m), next: uint64(uintptr(unsafe.Pointer(&next)))}
		if !first {
			attr.key = uint64(uintptr(unsafe.Pointer(&key)))
		}
		if _, err := bpf(unix.BPF_MAP_GET_NEXT_KEY, unsafe.Pointer(&attr), unsafe.Sizeof(attr)); err != nil {
			return n
		}
		n++
		key = next
	}
}

// kside is one socket of a kernel-forwarded pair.
type kside struct {
	fd     int
	cookie uint64
	// inBase: the bytes of this socket's stream the relay read itself
	// (handshake, request), in tcpi_bytes_received's units; outBase:
	// what it wrote itself, as acked+unacked bytes. The kernel's share is
	// counted from there.
	inBase, outBase uint64
	copied          uint64 // bytes the relay moved itself after the end of stream (flow)
	inDone          bool   // its end of stream was passed on
	draining        bool   // end of stream seen, waiting for the bytes before it to go out
	paused          bool   // out of map act: its partner is behind (flow)
	lastRec         uint64 // tcpi_bytes_received at the last flow check
}

type kevent struct {
	fd int32
}

// kpair is a relayed pair the kernel forwards.
type kpair struct {
	k     *kfwd
	s     [2]kside
	ev    chan kevent
	stop  chan struct{}
	once  sync.Once
	log   func(format string, args ...any)
	armed bool
	buf   []byte // copyRest's
}

// prepare makes a and b redirect targets of each other (map fwd) and takes
// their descriptors; the Go connections stay usable (the relay still
// writes its reply) until start. On an error nothing changed.
func (k *kfwd) prepare(a, b *net.TCPConn) (*kpair, error) {
	p := &kpair{k: k, ev: make(chan kevent, 8), stop: make(chan struct{})}
	for i, c := range []*net.TCPConn{a, b} {
		rc, err := c.SyscallConn()
		if err != nil {
			p.release()
			return nil, err
		}
		var derr error
		p.s[i].fd = -1
		rc.Control(func(fd uintptr) {
			p.s[i].fd, derr = unix.Dup(int(fd))
			if derr == nil {
				unix.CloseOnExec(p.s[i].fd)
				p.s[i].cookie, derr = unix.GetsockoptUint64(p.s[i].fd, unix.SOL_SOCKET, unix.SO_COOKIE)
			}
		})
		if derr != nil {
			p.release()
			return nil, fmt.Errorf("socket cookie: %w", derr)
		}
	}
	// What the relay read itself, while the sockets are plain TCP ones
	// (in a sockmap SIOCINQ reports the map's queue, not TCP's). It
	// reads nothing more, so bytes arriving from now on do not change it.
	for i := range p.s {
		var err error
		if p.s[i].inBase, err = readBase(p.s[i].fd); err != nil {
			p.release()
			return nil, err
		}
		if err := mapPutU64(k.taken, p.s[i].cookie, 0); err != nil {
			p.release()
			return nil, fmt.Errorf("BPF hash update: %w", err)
		}
	}
	if err := mapUpdate(k.fwd, p.s[0].cookie, p.s[1].fd); err != nil {
		p.release()
		return nil, fmt.Errorf("sockhash update: %w", err)
	}
	if err := mapUpdate(k.fwd, p.s[1].cookie, p.s[0].fd); err != nil {
		mapDelete(k.fwd, p.s[0].cookie)
		p.release()
		return nil, fmt.Errorf("sockhash update: %w", err)
	}
	return p, nil
}

// release undoes prepare: out of the maps, descriptors closed.
func (p *kpair) release() {
	for i := range p.s {
		if p.s[i].fd >= 0 {
			mapDelete(p.k.act, p.s[i].cookie)
			mapDelete(p.k.fwd, p.s[i].cookie)
			mapDelete(p.k.taken, p.s[i].cookie)
			unix.Close(p.s[i].fd)
			p.s[i].fd = -1
		}
	}
}

// start hands the pair to the kernel, once the relay wrote its last byte
// to either socket and reads none any more: it records what the relay
// itself read and wrote, attaches the verdict to both sockets, lets go of
// the Go connections and passes on what arrived meanwhile. On an error
// the pair is back as prepare found it minus the maps (the caller pumps).
func (p *kpair) start(a, b *net.TCPConn) (pump bool, err error) {
	for i := range p.s {
		var err error
		if p.s[i].outBase, err = writeBase(p.s[i].fd); err != nil {
			return true, p.undo(err)
		}
	}
	if err := mapUpdate(p.k.act, p.s[0].cookie, p.s[0].fd); err != nil {
		return true, p.undo(fmt.Errorf("attaching the verdict: %w", err))
	}
	if err := mapUpdate(p.k.act, p.s[1].cookie, p.s[1].fd); err != nil {
		// The first socket's bytes may be on their way already: no
		// going back to the pump.
		p.abort()
		return false, fmt.Errorf("attaching the verdict: %w", err)
	}
	// From here the kernel moves the bytes; Go's poller must not hear of
	// these sockets (it would wake for every buffer).
	a.Close()
	b.Close()
	p.k.mu.Lock()
	for i := range p.s {
		p.k.pairs[int32(p.s[i].fd)] = p
	}
	p.k.mu.Unlock()
	for i := range p.s {
		ev := unix.EpollEvent{Events: unix.EPOLLRDHUP | unix.EPOLLONESHOT, Fd: int32(p.s[i].fd)}
		if err := unix.EpollCtl(p.k.ep, unix.EPOLL_CTL_ADD, p.s[i].fd, &ev); err != nil {
			p.abort()
			return false, fmt.Errorf("epoll: %w", err)
		}
	}
	p.armed = true
	for i := range p.s {
		// Bytes that came before the verdict was attached: setting the
		// low-water mark runs the socket's data-ready, now the verdict's.
		unix.SetsockoptInt(p.s[i].fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1)
	}
	return false, nil
}

func (p *kpair) undo(err error) error {
	p.release()
	return err
}

// readBase is how many bytes of fd's stream were consumed so far, in the
// units of tcpi_bytes_received (which counts a received FIN as one),
// taken while no one consumes: received minus queued, from a snapshot in
// which nothing arrived between the two reads.
func readBase(fd int) (uint64, error) {
	for try := 0; try < 1000; try++ {
		i1, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return 0, err
		}
		inq, err := unix.IoctlGetInt(fd, unix.SIOCINQ)
		if err != nil {
			return 0, err
		}
		i2, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return 0, err
		}
		if i1.Bytes_received == i2.Bytes_received {
			// tcp_inq leaves a received FIN out; bytes_received has it.
			fin := uint64(0)
			if finReceived(i2.State) {
				fin = 1
			}
			return i2.Bytes_received - uint64(inq) - fin, nil
		}
	}
	return 0, errors.New("the socket's receive count does not settle")
}

// written is how many bytes were queued for sending on fd (acked plus
// unacked): never more than the truth (acked is read first).
func written(fd int) (uint64, error) {
	i, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return 0, err
	}
	outq, err := unix.IoctlGetInt(fd, unix.SIOCOUTQ)
	if err != nil {
		return 0, err
	}
	return i.Bytes_acked + uint64(outq), nil
}

// writeBase is written(fd) exactly, while no one writes: an ACK between
// the two reads shows as a changed acked count.
func writeBase(fd int) (uint64, error) {
	for try := 0; try < 1000; try++ {
		w, err := written(fd)
		if err != nil {
			return 0, err
		}
		i, err := unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return 0, err
		}
		outq, err := unix.IoctlGetInt(fd, unix.SIOCOUTQ)
		if err != nil {
			return 0, err
		}
		if w == i.Bytes_acked+uint64(outq) {
			return w, nil
		}
	}
	return 0, errors.New("the socket's send count does not settle")
}

// watch waits for the end (FIN, reset, error) of forwarded sockets and
// tells their pairs; the epoll asks for nothing else, so buffers moving
// through the kernel do not wake it.
func (k *kfwd) watch() {
	evs := make([]unix.EpollEvent, 64)
	for {
		n, err := unix.EpollWait(k.ep, evs, -1)
		if err != nil {
			if err == unix.EINTR {
				continue
			}
			fmt.Fprintf(os.Stderr, "gmpi relay: epoll: %v\n", err)
			return
		}
		k.mu.Lock()
		for _, e := range evs[:n] {
			if p := k.pairs[e.Fd]; p != nil {
				select {
				case p.ev <- kevent{e.Fd}:
				default: // the pair has one waiting; it polls the truth anyway
				}
			}
		}
		k.mu.Unlock()
	}
}

// Close ends the pair (Server.Close): both sockets are reset.
func (p *kpair) Close() error {
	p.once.Do(func() { close(p.stop) })
	return nil
}

// Flow control. The kernel path has none of its own: the verdict takes a
// buffer out of the receiving socket at once (its window reopens) and
// queues it for the partner's send side without limit, so a stalled
// receiver would let the sender fill the relay's memory. The pair's
// goroutine therefore checks, on a timer, how much the kernel took from
// each socket that its partner has not yet queued for sending; above
// flowHigh it takes the socket out of map act (the verdict no longer
// runs: bytes stay in the socket and TCP's own window stops the sender),
// below flowLow it puts it back and passes on what waited. The timer runs
// at flowTickMin while bytes move and backs off to flowTickMax when idle,
// so what a pair holds is bounded by flowHigh plus what arrives in one
// tick (a few MB at loopback speed), and an idle pair costs a wake-up
// every few milliseconds, not one per message.
const (
	flowHigh    = 4 << 20
	flowLow     = 1 << 20
	flowTickMin = 500 * time.Microsecond
	flowTickMax = 8 * time.Millisecond
)

// finReceived says whether tcpi_state is one after the peer's FIN.
func finReceived(state uint8) bool {
	switch state {
	case 6, 8, 9, 11: // TIME_WAIT, CLOSE_WAIT, LAST_ACK, CLOSING
		return true
	}
	return false
}

// run forwards until the pair ended, both ways or by an error.
func (p *kpair) run() {
	every := flowTickMin
	tick := time.NewTimer(every)
	defer tick.Stop()
	for {
		select {
		case <-p.stop:
			p.abort()
			return
		case e := <-p.ev:
			i := 0
			if int(e.fd) == p.s[1].fd {
				i = 1
			} else if int(e.fd) != p.s[0].fd {
				continue
			}
			pf := []unix.PollFd{{Fd: int32(p.s[i].fd), Events: unix.POLLRDHUP}}
			unix.Poll(pf, 0)
			re := pf[0].Revents
			// A hang-up with the peer's FIN is both ways shut, the
			// normal end; without it (or with an error) a reset.
			if re&(unix.POLLERR|unix.POLLNVAL) != 0 || re&(unix.POLLHUP|unix.POLLRDHUP) == unix.POLLHUP {
				serr, _ := unix.GetsockoptInt(p.s[i].fd, unix.SOL_SOCKET, unix.SO_ERROR)
				p.logf("kernel forwarding: socket %d ended (revents %#x, error %v): reset both", i, re, syscall.Errno(serr))
				p.abort()
				return
			}
			if re&unix.POLLRDHUP != 0 && !p.s[i].inDone && !p.s[i].draining {
				p.s[i].draining = true
				every = flowTickMin
				tick.Reset(every)
			}
			if !p.s[i].draining && !p.s[i].inDone {
				p.rearm(i, unix.EPOLLRDHUP)
			}
		case <-tick.C:
			busy, err := p.flow()
			if err != nil {
				p.logf("kernel forwarding: %v", err)
				p.abort()
				return
			}
			if busy || p.s[0].draining || p.s[1].draining {
				every = flowTickMin
			} else {
				every = min(2*every, flowTickMax)
			}
			tick.Reset(every)
		}
		for i := range p.s {
			if !p.s[i].draining {
				continue
			}
			done, err := p.drained(i)
			if err != nil {
				p.logf("kernel forwarding: %v", err)
				p.abort()
				return
			}
			if done {
				p.s[i].draining, p.s[i].inDone = false, true
				unix.Shutdown(p.s[1-i].fd, unix.SHUT_WR)
				p.rearm(i, 0) // errors and hang-ups only
			}
		}
		if p.s[0].inDone && p.s[1].inDone {
			p.finish()
			return
		}
	}
}

// flow pauses or resumes each direction by what it holds (see flowHigh);
// busy says bytes moved since the last call or a direction is paused.
func (p *kpair) flow() (busy bool, err error) {
	for i := range p.s {
		x, y := &p.s[i], &p.s[1-i]
		if x.inDone {
			continue
		}
		info, err := unix.GetsockoptTCPInfo(x.fd, unix.IPPROTO_TCP, unix.TCP_INFO)
		if err != nil {
			return false, err
		}
		moved := info.Bytes_received != x.lastRec
		x.lastRec = info.Bytes_received
		if !moved && !x.paused {
			continue // nothing new: what it holds only shrank
		}
		busy = true
		taken, err := mapLookupU64(p.k.taken, x.cookie)
		if err != nil {
			return false, fmt.Errorf("reading the count: %w", err)
		}
		w, err := written(y.fd)
		if err != nil {
			return false, err
		}
		held := int64(taken+x.copied) - int64(w-y.outBase)
		switch {
		case !x.paused && held > flowHigh:
			mapDelete(p.k.act, x.cookie)
			x.paused = true
			p.k.pauses.Add(1)
		case x.paused && held < flowLow && !finReceived(info.State):
			err := mapUpdate(p.k.act, x.cookie, x.fd)
			if errors.Is(err, unix.EOPNOTSUPP) {
				continue // the FIN came meanwhile: next time
			}
			if err != nil {
				return false, fmt.Errorf("resuming: %w", err)
			}
			x.paused = false
			unix.SetsockoptInt(x.fd, unix.SOL_SOCKET, unix.SO_RCVLOWAT, 1)
		case x.paused && held == 0:
			// After its FIN a socket cannot enter a sockmap again: the
			// relay moves the rest (at most a receive buffer) itself,
			// now that nothing the kernel took is still on its way.
			fin := uint64(0)
			if finReceived(info.State) {
				fin = 1
			}
			rest := int64(info.Bytes_received-fin-x.inBase) - int64(taken+x.copied)
			if err := p.copyRest(x, y, rest); err != nil {
				return false, err
			}
		}
	}
	return busy, nil
}

// copyRest moves up to rest bytes from x to y without blocking (what
// does not fit now waits for the next tick).
func (p *kpair) copyRest(x, y *kside, rest int64) error {
	if p.buf == nil {
		p.buf = make([]byte, 256<<10)
	}
	for rest > 0 {
		n, err := unix.Read(x.fd, p.buf[:min(rest, int64(len(p.buf)))])
		if err == unix.EAGAIN || n == 0 {
			return nil
		}
		if err != nil {
			return err
		}
		for off := 0; off < n; {
			m, err := unix.Write(y.fd, p.buf[off:n])
			if err == unix.EAGAIN {
				pf := []unix.PollFd{{Fd: int32(y.fd), Events: unix.POLLOUT}}
				unix.Poll(pf, 100)
				select {
				case <-p.stop:
					return errors.New("relay closed")
				default:
				}
				continue
			}
			if err != nil {
				return err
			}
			off += m
		}
		x.copied += uint64(n)
		p.k.copied.Add(int64(n))
		rest -= int64(n)
	}
	return nil
}

// drained says whether every byte socket i received before its end of
// stream went into its partner's send queue.
func (p *kpair) drained(i int) (bool, error) {
	x, y := &p.s[i], &p.s[1-i]
	info, err := unix.GetsockoptTCPInfo(x.fd, unix.IPPROTO_TCP, unix.TCP_INFO)
	if err != nil {
		return false, err
	}
	want := info.Bytes_received - 1 - x.inBase // less the FIN
	taken, err := mapLookupU64(p.k.taken, x.cookie)
	if err != nil {
		return false, err
	}
	if taken+x.copied < want {
		return false, nil // still in x (or paused: flow moves it)
	}
	w, err := written(y.fd)
	if err != nil {
		return false, err
	}
	return w-y.outBase >= want, nil
}

func (p *kpair) rearm(i int, events uint32) {
	ev := unix.EpollEvent{Events: events | unix.EPOLLONESHOT, Fd: int32(p.s[i].fd)}
	unix.EpollCtl(p.k.ep, unix.EPOLL_CTL_MOD, p.s[i].fd, &ev)
}

func (p *kpair) logf(format string, args ...any) {
	if p.log != nil {
		p.log(format, args...)
	}
}

// abort resets both sockets.
func (p *kpair) abort() {
	for i := range p.s {
		if p.s[i].fd >= 0 {
			unix.SetsockoptLinger(p.s[i].fd, unix.SOL_SOCKET, unix.SO_LINGER, &unix.Linger{Onoff: 1, Linger: 0})
		}
	}
	p.finish()
}

// finish takes the pair out of the maps and the epoll and closes it.
func (p *kpair) finish() {
	p.k.mu.Lock()
	for i := range p.s {
		delete(p.k.pairs, int32(p.s[i].fd))
	}
	p.k.mu.Unlock()
	for i := range p.s {
		if p.armed {
			unix.EpollCtl(p.k.ep, unix.EPOLL_CTL_DEL, p.s[i].fd, nil)
		}
	}
	p.release()
}
