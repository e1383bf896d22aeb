package auth

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"

	"gmpi/internal/fuzzseed"
)

// fakeConn is a connection whose peer sent in and then closed; what the
// handshake writes is kept.
type fakeConn struct {
	in  *bytes.Reader
	out bytes.Buffer
}

func (c *fakeConn) Read(b []byte) (int, error)       { return c.in.Read(b) }
func (c *fakeConn) Write(b []byte) (int, error)      { return c.out.Write(b) }
func (c *fakeConn) Close() error                     { return nil }
func (c *fakeConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c *fakeConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c *fakeConn) SetDeadline(time.Time) error      { return nil }
func (c *fakeConn) SetReadDeadline(time.Time) error  { return nil }
func (c *fakeConn) SetWriteDeadline(time.Time) error { return nil }

func hello(role byte, nonce byte) []byte {
	b := append([]byte(magic), version, role)
	return append(b, bytes.Repeat([]byte{nonce}, nonceSize)...)
}

// FuzzHandshake: whatever a peer that does not know the secret sends (as
// initiator or acceptor), the handshake fails with ErrDenied after
// reading at most a hello and a proof, and never panics.
func FuzzHandshake(f *testing.F) {
	fuzzseed.Add(f,
		[]any{false, hello(roleInitiator, 1)},
		[]any{false, append(hello(roleInitiator, 2), make([]byte, macSize)...)},
		[]any{true, append(hello(roleAcceptor, 3), bytes.Repeat([]byte{0xff}, macSize)...)},
		[]any{true, hello(roleInitiator, 4)}, // reflected role
		[]any{false, append([]byte("GMPI\x02I"), make([]byte, nonceSize+macSize)...)},
		[]any{false, []byte("GET / HTTP/1.0\r\n\r\n")},
		[]any{true, []byte{}},
		[]any{false, []byte("GMPI")},
		[]any{false, append(hello(roleInitiator, 5), make([]byte, macSize-1)...)},
	)
	f.Fuzz(func(t *testing.T, initiator bool, in []byte) {
		c := &fakeConn{in: bytes.NewReader(in)}
		err := Handshake(c, []byte("secret"), initiator, "fuzz", time.Second)
		if !errors.Is(err, ErrDenied) {
			t.Fatalf("handshake against %q: %v", in, err)
		}
		if read := len(in) - c.in.Len(); read > helloSize+macSize {
			t.Fatalf("read %d bytes", read)
		}
	})
}
