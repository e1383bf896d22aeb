package emu

// The router: one event loop on the TUN device and an absolute
// CLOCK_MONOTONIC timerfd.
//
// Model, per directed site pair (a link): a FIFO serializer. A packet of
// wire size w that arrives at t leaves the serializer at
//
//	start = max(t, free);  free = start + w/rate
//
// and the router writes it back into the TUN device at free + delay. The
// departure times of a link are monotonic, so order is kept per link (and
// per flow); the only drop is queue overflow: the bytes still waiting for
// the serializer ((free - t) * rate) may not exceed 2 × the bandwidth-delay
// product, and at least 128 KiB. A link without rate has no serializer.
//
// With IFF_VNET_HDR and TSO offered, TCP arrives as GSO super-packets of
// up to 64 KiB; each is charged its segmented wire size (IP bytes of all
// its segments, headers repeated per segment) and written back whole, the
// kernel segmenting it where needed.
//
// Timing: waking up is late on these VMs: tens of microseconds on an idle
// machine, 50-400 us on a busy one (the kernel is not preemptible, so even
// a SCHED_FIFO task waits for the running task to leave the kernel). So
// the timer is armed spinWindow before the earliest head packet's due time
// and the loop then polls without blocking (still taking arrivals, so
// they are stamped on time) until the packet is due; everything due within
// sendSlack of now is sent. This costs at most spinWindow of CPU per
// departure that is not already overdue. Arrivals that find the loop
// asleep are stamped a wake-up late; nothing can be done about that short
// of spinning all the time. Every thread
// of the process runs SCHED_FIFO pinned to one CPU, so busy ranks cannot
// delay the loop; the process has GOMAXPROCS=1 and makes (almost) no
// garbage, so the Go runtime's own threads rarely need to run.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/runtime/param"
)

const (
	vnetHdrLen = 10 // struct virtio_net_hdr
	maxPacket  = vnetHdrLen + 65535
	smallBuf   = 2048
	spinWindow = 150 * time.Microsecond
	sendSlack  = 2 * time.Microsecond
	minQueue   = 128 << 10
	readBurst  = 64
	rtPriority = 50

	// from <linux/if_tun.h>
	tunFCsum   = 0x01
	tunFTSO4   = 0x02
	tunFTSO6   = 0x04
	tunFTSOECN = 0x08

	// from <linux/virtio_net.h>
	gsoNone = 0
	gsoECN  = 0x80
)

type packet struct {
	buf []byte // virtio_net_hdr + IPv4 packet
	due int64  // monotonic ns at which it is written back
}

// link is the serializer and delay line of one directed site pair.
type link struct {
	delay int64   // ns
	rate  float64 // bytes/s; 0: no serializer
	limit float64 // bytes that may wait for the serializer
	free  int64   // monotonic ns at which the serializer is free
	q     []packet
	head  int
	drops uint64
}

// admit returns when a packet of wire bytes arriving at now leaves the
// router, or false if the queue is full.
func (l *link) admit(now int64, wire int) (int64, bool) {
	if l.rate == 0 {
		return now + l.delay, true
	}
	start := max(now, l.free)
	if float64(start-now)*l.rate/1e9+float64(wire) > l.limit {
		l.drops++
		return 0, false
	}
	l.free = start + int64(float64(wire)*1e9/l.rate+0.5)
	return l.free + l.delay, true
}

func newLink(delay int64, rate float64) *link {
	limit := max(2*rate*float64(delay)/1e9, minQueue)
	return &link{delay: delay, rate: rate, limit: limit}
}

type router struct {
	tun, timer int
	nsites     int
	links      []*link       // [from*nsites+to]; nil: forwarded at once
	down       []bool        // per site: drop everything from and to it
	firewall   [][]PortRange // per site: the ports it admits (nil: open)
	egress     [][]PortRange // per site: the source ports its connections may leave from (nil: any)
	gateway    []int         // per site: last octet of its gateway if private, else -1
	filtered   uint64        // packets the firewalls and private networks dropped
	ctl        []byte        // partial control line from stdin
	active     []*link       // the non-nil links
	armed      int64         // absolute expiry the timer is set to; 0: disarmed

	t0      time.Time
	monoOff int64 // CLOCK_MONOTONIC at t0

	big, small [][]byte // free buffers

	writeErrs uint64
	stats     *lateness // with GMPI_EMU_DEBUG set
}

// lateness summarizes when delayed packets left relative to their due
// time; the router prints it at exit when GMPI_EMU_DEBUG is set.
type lateness struct {
	n, over100us, over1ms uint64
	sum, max, min         int64
}

func (s *lateness) add(late int64) {
	if s.n == 0 || late > s.max {
		s.max = late
	}
	if s.n == 0 || late < s.min {
		s.min = late
	}
	s.n++
	s.sum += late
	if late > int64(100*time.Microsecond) {
		s.over100us++
	}
	if late > int64(time.Millisecond) {
		s.over1ms++
	}
}

func (r *router) report() {
	fmt.Fprintf(os.Stderr, "emu: router: write errors %d, %d packets dropped at site borders (firewalls, private networks)\n", r.writeErrs, r.filtered)
	for i, l := range r.links {
		if l != nil {
			fmt.Fprintf(os.Stderr, "emu: router: link %d->%d: %d drops\n", i/r.nsites, i%r.nsites, l.drops)
		}
	}
	if s := r.stats; s.n > 0 {
		fmt.Fprintf(os.Stderr, "emu: router: %d delayed packets left %v..%v after their due time (mean %v), %d over 100us, %d over 1ms\n",
			s.n, time.Duration(s.min), time.Duration(s.max), time.Duration(s.sum/int64(s.n)), s.over100us, s.over1ms)
	}
}

// now is CLOCK_MONOTONIC in ns (read through the vDSO).
func (r *router) now() int64 { return r.monoOff + int64(time.Since(r.t0)) }

type linkFlags []string

func (f *linkFlags) String() string     { return strings.Join(*f, " ") }
func (f *linkFlags) Set(s string) error { *f = append(*f, s); return nil }

func routerMain(args []string) error {
	fs := flag.NewFlagSet("router", flag.ContinueOnError)
	nsites := fs.Int("sites", 0, "number of sites")
	var specs, fws, egs, privs linkFlags
	fs.Var(&specs, "link", "from,to,delay-ns,rate-bytes-per-s (repeatable)")
	fs.Var(&fws, "firewall", "site,lo,hi: the site admits inbound connections on lo..hi (repeatable)")
	fs.Var(&egs, "egress", "site,lo,hi: the site's new outbound connections may leave from source ports lo..hi (repeatable)")
	fs.Var(&privs, "private", "site,octet: the site is private behind the host with that last octet (repeatable)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	n := *nsites
	if n < 1 || n > maxSites {
		return fmt.Errorf("bad -sites %d", n)
	}
	r := &router{nsites: n, links: make([]*link, n*n), down: make([]bool, n), firewall: make([][]PortRange, n), egress: make([][]PortRange, n), gateway: make([]int, n)}
	for i := range r.gateway {
		r.gateway[i] = -1
	}
	for _, set := range []struct {
		flag  string
		specs linkFlags
		to    [][]PortRange
	}{{"firewall", fws, r.firewall}, {"egress", egs, r.egress}} {
		for _, f := range set.specs {
			var site, lo, hi int
			if _, err := fmt.Sscanf(f, "%d,%d,%d", &site, &lo, &hi); err != nil || site < 0 || site >= n || lo < 1 || hi > 65535 || lo > hi {
				return fmt.Errorf("bad -%s %q", set.flag, f)
			}
			set.to[site] = append(set.to[site], PortRange{lo, hi})
		}
	}
	for _, f := range privs {
		var site, octet int
		if _, err := fmt.Sscanf(f, "%d,%d", &site, &octet); err != nil || site < 0 || site >= n || octet < 1 || octet > 254 {
			return fmt.Errorf("bad -private %q", f)
		}
		r.gateway[site] = octet
	}
	for _, s := range specs {
		f := strings.Split(s, ",")
		if len(f) != 4 {
			return fmt.Errorf("bad -link %q", s)
		}
		from, err1 := strconv.Atoi(f[0])
		to, err2 := strconv.Atoi(f[1])
		delay, err3 := strconv.ParseInt(f[2], 10, 64)
		rate, err4 := strconv.ParseFloat(f[3], 64)
		if err := errors.Join(err1, err2, err3, err4); err != nil || from < 0 || to < 0 || from >= n || to >= n || delay < 0 || rate < 0 {
			return fmt.Errorf("bad -link %q", s)
		}
		l := newLink(delay, rate)
		r.links[from*n+to] = l
		r.active = append(r.active, l)
	}

	runtime.LockOSThread()
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(1 << 30)
	if err := setRealtime(rtPriority); err != nil {
		fmt.Fprintf(os.Stderr, "emu: router: no real-time scheduling (%v); delays will be less exact under load\n", err)
	}

	for _, s := range [][2]string{
		{"net/ipv6/conf/default/disable_ipv6", "1"},
		{"net/ipv4/ip_forward", "1"},
		{"net/ipv4/conf/all/rp_filter", "0"},
		{"net/ipv4/conf/default/rp_filter", "0"},
		{"net/ipv4/conf/all/send_redirects", "0"},
		{"net/ipv4/conf/default/send_redirects", "0"},
	} {
		if err := writeSysctl(s[0], s[1]); err != nil {
			return err
		}
	}
	var err error
	if r.tun, err = openTun(tunName); err != nil {
		return err
	}
	if r.timer, err = unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC); err != nil {
		return fmt.Errorf("timerfd: %w", err)
	}
	var ts unix.Timespec
	r.t0 = time.Now()
	unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	r.monoOff = ts.Nano() - int64(time.Since(r.t0))
	debug, err := param.EmuDebug.Env()
	if err != nil {
		return err
	}
	if debug {
		r.stats = &lateness{}
		defer r.report()
	}
	return serveUntilEOF(r.run)
}

// openTun creates the TUN device name (IPv4 packets with a virtio_net_hdr,
// GSO offered) and returns its non-blocking fd.
func openTun(name string) (int, error) {
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return -1, fmt.Errorf("opening /dev/net/tun: %w", err)
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return -1, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI | unix.IFF_VNET_HDR)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("TUNSETIFF %s: %w", name, err)
	}
	if err := unix.IoctlSetInt(fd, unix.TUNSETOFFLOAD, tunFCsum|tunFTSO4|tunFTSO6|tunFTSOECN); err != nil {
		unix.Close(fd)
		return -1, fmt.Errorf("TUNSETOFFLOAD: %w", err)
	}
	return fd, nil
}

// setRealtime makes every thread of this process SCHED_FIFO at prio,
// pinned to the last CPU it may use. Threads created later inherit both.
func setRealtime(prio int) error {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return err
	}
	last := -1
	for c := 0; c < len(set)*64; c++ {
		if set.IsSet(c) {
			last = c
		}
	}
	var pin unix.CPUSet
	pin.Set(last)
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return err
	}
	var errs []error
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		if err := unix.SchedSetaffinity(tid, &pin); err != nil {
			errs = append(errs, fmt.Errorf("pinning thread %d: %w", tid, err))
		}
		if err := unix.SchedSetAttr(tid, &unix.SchedAttr{Policy: unix.SCHED_FIFO, Priority: uint32(prio)}, 0); err != nil {
			errs = append(errs, fmt.Errorf("SCHED_FIFO for thread %d: %w", tid, err))
		}
	}
	return errors.Join(errs...)
}

// run is the event loop; it returns when stdin ends.
func (r *router) run() error {
	fds := []unix.PollFd{
		{Fd: int32(r.tun), Events: unix.POLLIN},
		{Fd: int32(r.timer), Events: unix.POLLIN},
		{Fd: 0, Events: unix.POLLIN},
	}
	var scratch [64]byte
	for {
		now := r.now()
		r.flush(now)
		next, err := r.arm(now)
		if err != nil {
			return err
		}
		timeout := -1
		if next != 0 && next-now <= int64(spinWindow) {
			timeout = 0
		}
		if _, err := unix.Poll(fds, timeout); err != nil {
			if err == unix.EINTR {
				continue
			}
			return fmt.Errorf("poll: %w", err)
		}
		if fds[2].Revents != 0 {
			n, err := unix.Read(0, scratch[:])
			if n <= 0 && err != unix.EINTR && err != unix.EAGAIN {
				return nil // the grid closed or its owner died
			}
			if n > 0 {
				r.control(scratch[:n])
			}
		}
		if fds[1].Revents != 0 {
			unix.Read(r.timer, scratch[:8])
			r.armed = 0
		}
		if fds[0].Revents&(unix.POLLERR|unix.POLLNVAL) != 0 {
			return errors.New("TUN device failed")
		}
		if fds[0].Revents&unix.POLLIN != 0 {
			if err := r.readPackets(); err != nil {
				return err
			}
		}
	}
}

// control obeys the lines "down SITE" and "up SITE" on stdin, answering
// "ok" or an error on stdout.
func (r *router) control(b []byte) {
	r.ctl = append(r.ctl, b...)
	for {
		i := bytes.IndexByte(r.ctl, '\n')
		if i < 0 {
			return
		}
		line := string(r.ctl[:i])
		r.ctl = r.ctl[i+1:]
		reply := "ok"
		var verb string
		var site int
		if _, err := fmt.Sscanf(line, "%s %d", &verb, &site); err != nil || site < 0 || site >= r.nsites || (verb != "down" && verb != "up") {
			reply = fmt.Sprintf("bad control line %q", line)
		} else {
			r.down[site] = verb == "down"
		}
		os.Stdout.WriteString(reply + "\n")
	}
}

// readPackets takes up to readBurst packets from the TUN device.
func (r *router) readPackets() error {
	for i := 0; i < readBurst; i++ {
		buf := r.getBig()
		n, err := unix.Read(r.tun, buf)
		if err != nil {
			r.big = append(r.big, buf)
			if err == unix.EAGAIN || err == unix.EINTR {
				return nil
			}
			return fmt.Errorf("reading the TUN device: %w", err)
		}
		r.route(buf[:n], r.now())
	}
	return nil
}

// route delays, forwards or drops one packet read at now.
func (r *router) route(pkt []byte, now int64) {
	ip := pkt[vnetHdrLen:]
	if len(ip) < 20 || ip[0]>>4 != 4 {
		r.recycle(pkt) // only IPv4 is emulated
		return
	}
	from, to := r.site(ip[12:16]), r.site(ip[16:20])
	if from < 0 || to < 0 || r.down[from] || r.down[to] {
		r.recycle(pkt) // nowhere in the grid, or cut off
		return
	}
	if from != to && !r.admitted(ip, from, to) {
		r.filtered++
		r.recycle(pkt) // dropped silently at a site's border
		return
	}
	l := r.links[from*r.nsites+to]
	if l == nil {
		r.write(pkt)
		return
	}
	due, ok := l.admit(now, wireSize(pkt))
	if !ok {
		r.recycle(pkt)
		return
	}
	if len(pkt) <= smallBuf {
		s := r.getSmall()[:len(pkt)]
		copy(s, pkt)
		r.recycle(pkt)
		pkt = s
	}
	l.q = append(l.q, packet{buf: pkt, due: due})
}

// admitted applies the borders of the sites an IPv4 packet leaves (from)
// and enters (to): a private site lets only its gateway talk to other
// sites; a site with an egress rule lets new TCP connections out only
// from its source ports; a firewalled site admits new inbound TCP
// connections and UDP only on its ports, and no echo request.
func (r *router) admitted(ip []byte, from, to int) bool {
	if gw := r.gateway[from]; gw >= 0 && int(ip[15]) != gw {
		return false
	}
	if gw := r.gateway[to]; gw >= 0 && int(ip[19]) != gw {
		return false
	}
	fw, eg := r.firewall[to], r.egress[from]
	if fw == nil && eg == nil {
		return true
	}
	hl := int(ip[0]&0x0f) * 4
	if hl < 20 || len(ip) < hl+4 {
		return false
	}
	l4 := ip[hl:]
	if eg != nil && ip[9] == unix.IPPROTO_TCP {
		const syn, ack = 0x02, 0x10
		if len(l4) < 14 {
			return false
		}
		if l4[13]&(syn|ack) == syn && !inRanges(eg, int(binary.BigEndian.Uint16(l4[0:2]))) {
			return false
		}
	}
	if fw == nil {
		return true
	}
	port := int(binary.BigEndian.Uint16(l4[2:4]))
	switch ip[9] {
	case unix.IPPROTO_TCP:
		if len(l4) < 14 {
			return false
		}
		const syn, ack = 0x02, 0x10
		if l4[13]&(syn|ack) != syn {
			return true // part of a connection that was admitted (or opened from inside)
		}
	case unix.IPPROTO_UDP:
	case unix.IPPROTO_ICMP:
		return l4[0] != 8 // no echo requests
	default:
		return false
	}
	return inRanges(fw, port)
}

// inRanges reports whether port is in one of rs.
func inRanges(rs []PortRange, port int) bool {
	for _, pr := range rs {
		if port >= pr.Lo && port <= pr.Hi {
			return true
		}
	}
	return false
}

// site is the site index of an address of the plan, or -1.
func (r *router) site(a []byte) int {
	if a[0] != plan0 || a[1] != plan1 || a[2] < 1 || int(a[2]) > r.nsites {
		return -1
	}
	return int(a[2]) - 1
}

// wireSize is the IP bytes a packet puts on the wire: a GSO super-packet
// counts once per segment it stands for, with its headers repeated.
func wireSize(pkt []byte) int {
	ip := pkt[vnetHdrLen:]
	gsoType := pkt[1] &^ gsoECN
	gsoSize := int(binary.LittleEndian.Uint16(pkt[4:6]))
	if gsoType == gsoNone || gsoSize == 0 {
		return len(ip)
	}
	hdr := int(ip[0]&0x0f) * 4
	switch ip[9] {
	case unix.IPPROTO_TCP:
		if len(ip) >= hdr+13 {
			hdr += int(ip[hdr+12]>>4) * 4
		}
	case unix.IPPROTO_UDP:
		hdr += 8
	}
	payload := len(ip) - hdr
	if payload <= gsoSize {
		return len(ip)
	}
	segs := (payload + gsoSize - 1) / gsoSize
	return len(ip) + (segs-1)*hdr
}

// flush writes back every packet due by now + sendSlack.
func (r *router) flush(now int64) {
	limit := now + int64(sendSlack)
	for _, l := range r.active {
		for l.head < len(l.q) && l.q[l.head].due <= limit {
			if r.stats != nil {
				r.stats.add(r.now() - l.q[l.head].due)
			}
			if pkt := l.q[l.head].buf; r.down[r.site(pkt[vnetHdrLen+12:])] || r.down[r.site(pkt[vnetHdrLen+16:])] {
				r.recycle(pkt) // lost with the router that was to forward it
			} else {
				r.write(pkt)
			}
			l.q[l.head] = packet{}
			l.head++
		}
		if l.head == len(l.q) {
			l.q, l.head = l.q[:0], 0
		} else if l.head > 1024 && l.head > len(l.q)/2 {
			k := copy(l.q, l.q[l.head:])
			clear(l.q[k:])
			l.q, l.head = l.q[:k], 0
		}
	}
}

// arm sets the timer spinWindow before the earliest due packet, unless
// that moment has come (the loop spins then), and returns the packet's
// due time (0: none). A timer left armed for nothing costs one wake-up.
func (r *router) arm(now int64) (int64, error) {
	var next int64
	for _, l := range r.active {
		if l.head < len(l.q) && (next == 0 || l.q[l.head].due < next) {
			next = l.q[l.head].due
		}
	}
	at := next - int64(spinWindow)
	if next == 0 || at <= now || at == r.armed {
		return next, nil
	}
	spec := unix.ItimerSpec{Value: unix.NsecToTimespec(at)}
	if err := unix.TimerfdSettime(r.timer, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
		return next, fmt.Errorf("timerfd_settime: %w", err)
	}
	r.armed = at
	return next, nil
}

func (r *router) write(pkt []byte) {
	if _, err := unix.Write(r.tun, pkt); err != nil {
		r.writeErrs++
	}
	r.recycle(pkt)
}

func (r *router) getBig() []byte {
	if k := len(r.big); k > 0 {
		b := r.big[k-1]
		r.big = r.big[:k-1]
		return b[:maxPacket]
	}
	return make([]byte, maxPacket)
}

func (r *router) getSmall() []byte {
	if k := len(r.small); k > 0 {
		b := r.small[k-1]
		r.small = r.small[:k-1]
		return b[:smallBuf]
	}
	return make([]byte, smallBuf)
}

func (r *router) recycle(b []byte) {
	if cap(b) >= maxPacket {
		r.big = append(r.big, b)
	} else {
		r.small = append(r.small, b)
	}
}
