package main

import (
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"gmpi/internal/hostile"
	"gmpi/runtime/auth"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi"
	"gmpi/runtime/pmi/server"
)

// TestVendorSocketsHostile: the Unix sockets of a vMPI job (the vendor
// ranks' PMI socket and their output socket) under garbage, a half-open
// connection, one byte every 250 ms and 1000 silent connections each:
// every hostile connection is dropped within GMPI_AUTH_TIMEOUT (1 s) plus
// slack (each socket has its auth gate), and meanwhile a vendor
// rank connects to both and is served (PMI put/get and barrier, its
// stdout and stderr handed over).
func TestVendorSocketsHostile(t *testing.T) {
	t.Parallel()
	params, err := param.Map(map[string]string{"GMPI_AUTH_TIMEOUT": "1"})
	if err != nil {
		t.Fatal(err)
	}
	j := &job{params: params, jobID: "hostile", secret: "0123456789abcdef", size: 1}
	if j.srv, err = server.New(server.Config{Size: 1, KVSName: "kvs_hostile"}); err != nil {
		t.Fatal(err)
	}
	if err := j.listenPMIUnix(); err != nil {
		t.Fatal(err)
	}
	defer j.pmiUnixClose()
	ioSock := filepath.Join(filepath.Dir(j.pmiUnix), "io")
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer outR.Close()
	defer outW.Close()
	j.vio.files = map[int][2]*os.File{0: {outW, outW}}

	var attacks []*hostile.Attack
	for _, addr := range []string{j.pmiUnix, ioSock} {
		a, err := hostile.Start(addr, 1000, 250*time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		attacks = append(attacks, a)
	}

	// The vendor rank, during the attack: PMI first.
	c, err := pmi.DialSecret(j.pmiUnix, 0, []byte(j.secret))
	if err != nil {
		t.Fatalf("PMI during the attack: %v", err)
	}
	if err := c.Put("card", "value"); err != nil {
		t.Fatal(err)
	}
	if err := c.Barrier(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get("card"); err != nil || v != "value" {
		t.Fatalf("get: %q %v", v, err)
	}
	c.Close()
	// Then its output.
	nc, err := net.Dial("unix", ioSock)
	if err != nil {
		t.Fatal(err)
	}
	uc := nc.(*net.UnixConn)
	defer uc.Close()
	if err := auth.Handshake(uc, []byte(j.secret), true, "vmpi-io", 5*time.Second); err != nil {
		t.Fatalf("output socket during the attack: %v", err)
	}
	uc.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := uc.Write([]byte("0\n")); err != nil {
		t.Fatal(err)
	}
	b, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(2*4))
	n, oobn, _, _, err := uc.ReadMsgUnix(b, oob)
	if err != nil || n != 1 {
		t.Fatalf("output handed over: %d bytes, %v", n, err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		t.Fatalf("control messages: %v %v", msgs, err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 2 {
		t.Fatalf("descriptors: %v %v", fds, err)
	}
	for _, fd := range fds {
		unix.Close(fd)
	}

	for i, a := range attacks {
		if err := a.Check(15 * time.Second); err != nil {
			t.Errorf("socket %d: %v", i, err)
		}
		t.Logf("%s: %d hostile connections dropped", a.Addr, a.Conns())
	}
}
