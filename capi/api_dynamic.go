package main

import (
	"errors"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/devices/tcp"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
)

// Client/server: ports, MPI_Comm_accept/connect and MPI_Comm_join. The
// ports and the connection between the two roots are tcp's (port.go);
// the meeting of the two groups is the runtime's (runtime/dynamic.go);
// the links between the jobs' processes are a tcp device per meeting
// (dynLinker).

const maxPortName = 256 // MPI_MAX_PORT_NAME

var openPorts struct {
	mu   sync.Mutex
	open map[string]*tcp.Port
}

// tcpEndpoint is a listening socket waiting to become a link device.
type tcpEndpoint struct {
	l    net.Listener
	card string
}

// dynLinker opens the endpoint of a new link set (runtime.Linker).
func dynLinker() (mpirt.LinkEndpoint, error) {
	l, card, err := tcp.Listen(param.TCPIf.Get(world.Params()))
	if err != nil {
		return nil, err
	}
	return &tcpEndpoint{l: l, card: card}, nil
}

func (e *tcpEndpoint) Card() string { return e.card }
func (e *tcpEndpoint) Close()       { e.l.Close() }

func (e *tcpEndpoint) Build(me int, peers []int, cards, hosts []string, secret []byte, id string) (mpirt.Device, error) {
	cfg := world.Config()
	d, err := tcp.New(tcp.Config{Rank: me, Size: len(cards), JobID: id, Secret: secret, Listener: e.l,
		Peers: peers, Hosts: hosts, Waker: world.Waker(), Log: cfg.Log, Params: cfg.Params,
		Card: func(r int) (string, error) { return cards[r], nil }})
	if err != nil {
		e.l.Close()
	}
	return d, err
}

// connectTimeout is the bound of a connect (info key "timeout", seconds)
// and of each step between the roots.
func connectTimeout(in *mpirt.Info) time.Duration {
	t := param.ConnectTimeout.Get(world.Params())
	if in != nil {
		if v, ok := in.Get("timeout"); ok {
			if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
				t = time.Duration(s * float64(time.Second))
			}
		}
	}
	if t <= 0 {
		t = 60 * time.Second
	}
	return t
}

func MPI_Open_port(infoH int32, portName *byte) int32 {
	const fn = "MPI_Open_port"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if _, rc := infoArg(fn, nil, infoH, "info", true); rc != 0 {
		return rc
	}
	if portName == nil {
		return badPointer(fn, "port_name")
	}
	cfg := world.Config()
	p, err := tcp.OpenPort(param.TCPIf.Get(cfg.Params), cfg.Log)
	if err != nil {
		return failf(fn, nil, mpirt.ErrOther, "cannot open a port: %v", err)
	}
	openPorts.mu.Lock()
	if openPorts.open == nil {
		openPorts.open = map[string]*tcp.Port{}
	}
	openPorts.open[p.Name] = p
	openPorts.mu.Unlock()
	cString(portName, maxPortName, p.Name)
	return 0
}

func MPI_Close_port(portName *byte) int32 {
	const fn = "MPI_Close_port"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if portName == nil {
		return badPointer(fn, "port_name")
	}
	name := goString(portName, maxPortName)
	openPorts.mu.Lock()
	p := openPorts.open[name]
	delete(openPorts.open, name)
	openPorts.mu.Unlock()
	if p == nil {
		return failf(fn, nil, mpirt.ErrPort, "invalid port argument port_name: %.60q is not a port this process opened", name)
	}
	p.Close()
	return 0
}

// closePorts closes every port still open (MPI_Finalize).
func closePorts() {
	openPorts.mu.Lock()
	defer openPorts.mu.Unlock()
	for n, p := range openPorts.open {
		p.Close()
		delete(openPorts.open, n)
	}
}

// meetArgs checks the arguments common to accept and connect and returns
// the communicator and, at root, the info object.
func meetArgs(fn string, portName *byte, infoH, root, commH int32, newcomm *int32) (*mpirt.Comm, *mpirt.Info, int32) {
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return nil, nil, rc
	}
	if rc := checkRoot(fn, c, root); rc != 0 {
		return nil, nil, rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return nil, nil, rc
	}
	var in *mpirt.Info
	if c.Rank() == int(root) {
		if portName == nil {
			return nil, nil, failf(fn, c, mpirt.ErrArg, "invalid argument port_name: NULL pointer")
		}
		if in, rc = infoArg(fn, c, infoH, "info", true); rc != 0 {
			return nil, nil, rc
		}
	}
	return c, in, 0
}

// meet runs the collective part and stores the result.
func meet(fn string, c *mpirt.Comm, root int32, role int, conn func() (mpirt.RootConn, error), key []byte, lerr error, newcomm *int32) int32 {
	nc, err := c.ConnectJobs(int(root), role, conn, key, lerr)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_accept(portName *byte, infoH, root, commH int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_accept"
	c, in, rc := meetArgs(fn, portName, infoH, root, commH, newcomm)
	if rc != 0 {
		return rc
	}
	var p *tcp.Port
	var key []byte
	var lerr error
	var mc *tcp.MsgConn
	if c.Rank() == int(root) {
		name := goString(portName, maxPortName)
		openPorts.mu.Lock()
		p = openPorts.open[name]
		openPorts.mu.Unlock()
		if p == nil {
			lerr = mpirt.Errorf(mpirt.ErrPort, "", "invalid port argument port_name: %.60q is not a port this process opened (MPI_Open_port)", name)
		} else {
			key = p.Secret()
		}
	}
	timeout := connectTimeout(in)
	conn := func() (mpirt.RootConn, error) {
		// A client that gave up meanwhile, or a peer that knows the
		// secret but is no client, is dropped with a message (GMPI_DEBUG)
		// and the next connection taken.
		m, err := p.AcceptClient(timeout)
		if err != nil {
			return nil, mpirt.Errorf(mpirt.ErrPort, "", "accepting at port %.60q: %v", p.Name, err)
		}
		mc = m
		return m, nil
	}
	rc = meet(fn, c, root, mpirt.RoleAccept, conn, key, lerr, newcomm)
	if mc != nil {
		mc.Close()
	}
	return rc
}

func MPI_Comm_connect(portName *byte, infoH, root, commH int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_connect"
	c, in, rc := meetArgs(fn, portName, infoH, root, commH, newcomm)
	if rc != 0 {
		return rc
	}
	var key []byte
	var lerr error
	var name string
	if c.Rank() == int(root) {
		name = goString(portName, maxPortName)
		if _, secret, err := tcp.ParsePortName(name); err != nil {
			lerr = mpirt.Errorf(mpirt.ErrPort, "", "invalid port argument port_name: %v", err)
		} else {
			key = secret
		}
	}
	timeout := connectTimeout(in)
	var mc *tcp.MsgConn
	conn := func() (mpirt.RootConn, error) {
		deadline := time.Now().Add(timeout)
		m, err := tcp.DialPort(name, deadline)
		if err != nil {
			return nil, mpirt.Errorf(mpirt.ErrPort, "", "connecting to port %.60q: %v", name, err)
		}
		m.SetDeadline(deadline)
		b, err := m.Recv()
		if err == nil && string(b) != "accept" {
			err = errors.New("unexpected answer")
		}
		if err == nil {
			err = m.Send([]byte("connect"))
		}
		if err != nil {
			m.Close()
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				return nil, mpirt.Errorf(mpirt.ErrPort, "", "nobody accepted at port %.60q within %v", name, timeout)
			}
			return nil, mpirt.Errorf(mpirt.ErrPort, "", "at port %.60q: %v", name, err)
		}
		m.SetDeadline(time.Now().Add(timeout))
		mc = m
		return m, nil
	}
	rc = meet(fn, c, root, mpirt.RoleConnect, conn, key, lerr, newcomm)
	if mc != nil {
		mc.Close()
	}
	return rc
}

func MPI_Comm_join(fd int32, intercomm *int32) int32 {
	const fn = "MPI_Comm_join"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if intercomm == nil {
		return badPointer(fn, "intercomm")
	}
	self := world.CommSelf()
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFL, 0)
	if err != nil {
		return failf(fn, self, mpirt.ErrArg, "invalid argument fd: %d is not an open descriptor (%v)", fd, err)
	}
	dup, err := unix.Dup(int(fd))
	if err != nil {
		return failf(fn, self, mpirt.ErrOther, "duplicating fd %d: %v", fd, err)
	}
	f := os.NewFile(uintptr(dup), "join")
	nc, err := net.FileConn(f) // a duplicate of its own: the caller's fd stays open
	f.Close()
	if err != nil {
		return failf(fn, self, mpirt.ErrArg, "invalid argument fd: %d is not a connected socket (%v)", fd, err)
	}
	// net.FileConn made the shared file description nonblocking.
	defer unix.FcntlInt(uintptr(fd), unix.F_SETFL, flags)
	m := tcp.NewMsgConn(nc)
	defer m.Close()
	m.SetDeadline(time.Now().Add(connectTimeout(nil)))
	conn := func() (mpirt.RootConn, error) { return m, nil }
	return meet(fn, self, 0, mpirt.RoleEither, conn, nil, nil, intercomm)
}
