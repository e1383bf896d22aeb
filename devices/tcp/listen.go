package tcp

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/runtime/ports"
)

// ListenConfig says where the device listens and what it publishes.
type ListenConfig struct {
	// If is GMPI_TCP_IF: an IP address (bind it), a CIDR (bind this
	// host's address inside it), an interface name (bind its first
	// address, IPv4 first), or a comma-separated list of these (the first
	// that matches this host). Empty: bind every address, and publish the
	// address of the interface that carries the default route (else the
	// first non-loopback address, else 127.0.0.1). Linux routes traffic
	// to a local address through the loopback device, so a one-host job
	// stays on loopback.
	If string
	// Ports is the range the port comes from (GMPI_TCP_PORT_RANGE).
	Ports ports.Range
	// Advertise (GMPI_TCP_ADVERTISE), when set, is what the card says
	// instead of the bound address: a host or IP (with the bound port)
	// or host:port (a port forwarded by a NAT).
	Advertise string
}

// Listen opens the device's listening socket before the business cards
// are exchanged and returns it with the card ("ip:port") peers dial.
func (lc ListenConfig) Listen() (net.Listener, string, error) {
	bind, card, err := chooseAddr(lc.If)
	if err != nil {
		return nil, "", err
	}
	l, err := ports.Listen(bind, lc.Ports, "tcp", "GMPI_TCP_PORT_RANGE")
	if err != nil {
		return nil, "", err
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	if a := strings.TrimSpace(lc.Advertise); a != "" {
		if _, _, err := net.SplitHostPort(a); err == nil {
			return l, a, nil
		}
		return l, net.JoinHostPort(strings.Trim(a, "[]"), port), nil
	}
	return l, net.JoinHostPort(card, port), nil
}

// Listen is ListenConfig{If: spec}.Listen(): any port, the bound address
// published.
func Listen(spec string) (net.Listener, string, error) {
	return ListenConfig{If: spec}.Listen()
}

// chooseAddr returns the address to bind and the one to publish; spec
// may list several choices, the first that fits this host wins.
func chooseAddr(spec string) (bind, card string, err error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return "", defaultAddr(), nil
	}
	if strings.Contains(spec, ",") {
		var errs []string
		for _, one := range strings.Split(spec, ",") {
			if one = strings.TrimSpace(one); one == "" {
				continue
			}
			b, c, err := chooseOne(one)
			if err == nil {
				return b, c, nil
			}
			errs = append(errs, err.Error())
		}
		return "", "", fmt.Errorf("tcp: GMPI_TCP_IF=%s: nothing in the list fits this host (%s)", spec, strings.Join(errs, "; "))
	}
	return chooseOne(spec)
}

// chooseOne is chooseAddr for one address, network or interface.
func chooseOne(spec string) (bind, card string, err error) {
	if ip := net.ParseIP(spec); ip != nil {
		return ip.String(), ip.String(), nil
	}
	addrs, err := localAddrs()
	if err != nil {
		return "", "", err
	}
	if _, nw, err := net.ParseCIDR(spec); err == nil {
		for _, a := range addrs {
			if nw.Contains(a.ip) {
				return a.ip.String(), a.ip.String(), nil
			}
		}
		return "", "", fmt.Errorf("tcp: GMPI_TCP_IF=%s: no address of this host is in that network", spec)
	}
	var v6 net.IP
	found := false
	for _, a := range addrs {
		if a.ifname != spec {
			continue
		}
		found = true
		if a.ip.To4() != nil {
			return a.ip.String(), a.ip.String(), nil
		}
		if v6 == nil && !a.ip.IsLinkLocalUnicast() {
			v6 = a.ip
		}
	}
	if v6 != nil {
		return v6.String(), v6.String(), nil
	}
	if found {
		return "", "", fmt.Errorf("tcp: GMPI_TCP_IF=%s: the interface has no usable address", spec)
	}
	return "", "", fmt.Errorf("tcp: GMPI_TCP_IF=%s is neither an address, a network nor an interface of this host", spec)
}

type ifAddr struct {
	ifname string
	ip     net.IP
}

func localAddrs() ([]ifAddr, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, fmt.Errorf("tcp: listing interfaces: %w", err)
	}
	var out []ifAddr
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 {
			continue
		}
		as, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range as {
			if n, ok := a.(*net.IPNet); ok {
				out = append(out, ifAddr{ifc.Name, n.IP})
			}
		}
	}
	return out, nil
}

// defaultAddr is the address other hosts most likely reach us on.
func defaultAddr() string {
	// A UDP "connection" sends nothing; it only asks the kernel which
	// source address the default route would use.
	if c, err := net.Dial("udp4", "192.0.2.1:9"); err == nil {
		ip := c.LocalAddr().(*net.UDPAddr).IP
		c.Close()
		if !ip.IsLoopback() && !ip.IsUnspecified() {
			return ip.String()
		}
	}
	if addrs, err := localAddrs(); err == nil {
		for _, a := range addrs {
			if a.ip.To4() != nil && !a.ip.IsLoopback() && !a.ip.IsLinkLocalUnicast() {
				return a.ip.String()
			}
		}
	}
	return "127.0.0.1"
}

// tune sets the options of every connection: no Nagle, big buffers, a
// short queue of unsent bytes (notsentLowat), and keepalive plus
// TCP_USER_TIMEOUT so that a peer that becomes unreachable is noticed
// within about timeout, whether or not we are sending.
func tune(c *net.TCPConn, timeout time.Duration) {
	c.SetNoDelay(true)
	c.SetReadBuffer(sockBuf)
	c.SetWriteBuffer(sockBuf)
	idle := max(timeout/3, time.Second)
	c.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: idle, Interval: max(idle/4, time.Second), Count: 4})
	if rc, err := c.SyscallConn(); err == nil {
		rc.Control(func(fd uintptr) {
			unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(timeout/time.Millisecond))
			unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_NOTSENT_LOWAT, notsentLowat)
		})
	}
}

// notsentLowat bounds the bytes a connection's socket holds that the
// kernel has not sent yet (TCP_NOTSENT_LOWAT): a write stops queueing
// beyond it and the socket polls writable again below it. The bytes in
// flight (the congestion window) are not limited by it, only the backlog
// behind them.
//
// Why: with the whole send buffer (8 MiB) queued unsent, every ACK sends
// the next segments from the CPU that processes it. Between two network
// namespaces (veth) a segment is received on the CPU that sent it, so
// segments sent from the sender's CPU (in sendmsg) and from the
// receiver's (ACKs it sent from its reads and replies) reach the
// receiving socket through two per-CPU queues, out of order. The sender
// takes the reordering for loss: spurious fast retransmits (thousands
// per second, all confirmed spurious by DSACK), each cutting the
// congestion window, which stayed at 50-200 segments; with the RTT the
// queues inflate (50-100 us) that capped a 1 MiB stream at 1-2 GB/s in
// most launches and let some reach 6-8 GB/s (bench/README.md, "TCP
// between two namespaces"). With at most 128 KiB unsent the sending
// thread sends almost everything itself: no retransmits, windows of
// thousands of segments. On a real network it costs one wake-up of a
// blocked sender per 64-128 KiB sent, nothing else.
const notsentLowat = 128 << 10

// sockBuf is the requested socket buffer size (the kernel doubles it
// and caps it at net.core.[rw]mem_max).
const sockBuf = 4 << 20

// lossCC are the algorithms "auto" tries in order: cubic needs
// CAP_NET_ADMIN unless net.ipv4.tcp_allowed_congestion_control lists it;
// reno is always allowed.
var lossCC = []string{"cubic", "reno"}

// congestion sets the congestion control of the installed connection fd
// to p as Config.Congestion says.
//
// Why "auto" leaves BBR (a common system default) on every path:
//   - on a fast path BBR paces every connection with a timer of the
//     kernel, which on the veth pair between two network namespaces of a
//     2-vCPU VM capped one stream at 2.2-2.4 GB/s in every repetition,
//     where cubic and reno reached 5-10 GB/s (bench/tcp.sh, README);
//   - on a wide-area path a collective's transfers are bursts of a few
//     connections that share a link for a while and then leave it to
//     one: BBR paces each at the share it measured (its bandwidth filter
//     remembers ten round trips, it probes 25% higher one round trip in
//     eight), so the link idles after the others end. On the emulated
//     grid (10 ms, 1 MB/s; two connections sending 32 KiB at once, then
//     one 64 KiB alone) BBR took 92.8 and 93.9 ms, cubic 89.2 and 90.8
//     against 88.2 at line rate; bench/wan.sh's 64 KiB broadcast, 5-15%.
//     A window-based algorithm sends what the window allows at once and
//     the bottleneck's queue smooths it.
//
// A refused choice (not available, not allowed) leaves the default: it
// changes speed, never correctness.
func (d *Device) congestion(p *peer, fd int) {
	var try []string
	switch cc := d.cfg.Congestion; cc {
	case "system":
		return
	case "auto", "":
		try = lossCC
	default:
		try = []string{cc}
	}
	for _, cc := range try {
		err := unix.SetsockoptString(fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION, cc)
		if err == nil {
			return
		}
		if d.cfg.Congestion != "auto" {
			d.logf("tcp: congestion control %q for the connection to rank %d: %v (keeping the system's)", cc, p.rank, err)
		}
	}
}
