package tcp

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"testing"

	"gmpi/internal/fuzzseed"
	mpirt "gmpi/runtime"
)

// FuzzFrameHeader: parseHeader never panics, accepts only headers the
// runtime could have sent (a known kind, a payload no longer than the
// bound, eager length equal to the payload, no payload on control
// frames), and what it accepts re-encodes to the same bytes.
func FuzzFrameHeader(f *testing.F) {
	const max = 1 << 16
	kinds := []mpirt.FrameKind{mpirt.FrameEager, mpirt.FrameRTS, mpirt.FrameCTS, mpirt.FrameData,
		mpirt.FrameSyncAck, mpirt.FrameRMADone, mpirt.FrameCancelReq, mpirt.FrameCancelAck,
		mpirt.FrameRMAPush, mpirt.FramePushDone, kindBye, 0, 200}
	for _, k := range kinds {
		h := mpirt.Header{Kind: k, Context: 4, Source: 1, Tag: 7, SendID: 9, RecvID: 11}
		n := 0
		switch k {
		case mpirt.FrameEager:
			n, h.Len = 100, 100
		case mpirt.FrameData:
			n, h.Offset = 64, 1<<20
		case mpirt.FrameRTS:
			h.Len = 1 << 30
		}
		b := make([]byte, headerSize)
		putHeader(b, &h, n)
		fuzzseed.Add(f, []any{b})
	}
	bad := make([]byte, headerSize)
	h := mpirt.Header{Kind: mpirt.FrameEager, Len: 10}
	putHeader(bad, &h, 20) // eager length differs from the payload
	fuzzseed.Add(f, []any{bad}, []any{make([]byte, headerSize)})
	h = mpirt.Header{Kind: mpirt.FrameEager, Len: maxPayload + 1}
	putHeader(bad, &h, maxPayload+1)
	fuzzseed.Add(f, []any{bytes.Clone(bad)})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < headerSize {
			b = append(b, make([]byte, headerSize-len(b))...)
		}
		var h mpirt.Header
		n, err := parseHeader(b[:headerSize], &h, max)
		if err != nil {
			return
		}
		if n < 0 || n > max {
			t.Fatalf("accepted a payload of %d bytes (bound %d)", n, max)
		}
		if h.Kind == mpirt.FrameEager && h.Len != uint64(n) {
			t.Fatalf("eager frame with Len %d and payload %d", h.Len, n)
		}
		out := make([]byte, headerSize)
		putHeader(out, &h, n)
		if string(out) != string(b[:headerSize]) {
			t.Fatalf("accepted header does not re-encode to itself")
		}
	})
}

// FuzzHello: parseHello accepts only ranks inside the job and the job's
// own hash.
func FuzzHello(f *testing.F) {
	job := jobHash("job-1")
	b := make([]byte, 16)
	putHello(b, 3, job)
	other := make([]byte, 16)
	putHello(other, 3, jobHash("job-2"))
	fuzzseed.Add(f, []any{b}, []any{other}, []any{[]byte("GTCP\xff\xff\xff\xff0123456789abcdef")}, []any{make([]byte, 16)})
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) < 16 {
			b = append(b, make([]byte, 16-len(b))...)
		}
		r, err := parseHello(b[:16], 8, job)
		if err == nil && (r < 0 || r >= 8) {
			t.Fatalf("accepted rank %d of 8", r)
		}
	})
}

// FuzzPortName: ParsePortName (MPI_Comm_connect's and
// MPI_Lookup_name's port strings) accepts only gmpi port names with a
// secret of the right length and dialable addresses, and never panics.
func FuzzPortName(f *testing.F) {
	sec := "00112233445566778899aabbccddeeff"
	fuzzseed.Add(f,
		[]any{"gmpi1;127.0.0.1;5000;" + sec},
		[]any{"gmpi1;127.0.0.1,::1,10.0.0.2;65535;" + sec},
		[]any{"gmpi1;;5000;" + sec},
		[]any{"gmpi1;127.0.0.1;0;" + sec},
		[]any{"gmpi1;127.0.0.1;99999;" + sec},
		[]any{"gmpi1;notanip;1;" + sec},
		[]any{"gmpi1;127.0.0.1;1;0011"},
		[]any{"gmpi1;127.0.0.1;1;" + sec + ";extra"},
		[]any{"tag#0$description#x$port#1$"},
		[]any{""},
	)
	f.Fuzz(func(t *testing.T, name string) {
		addrs, secret, err := ParsePortName(name)
		if err != nil {
			if !errors.Is(err, ErrBadPort) {
				t.Fatalf("%q: error %v does not wrap ErrBadPort", name, err)
			}
			return
		}
		if len(secret) != portSecret || len(addrs) == 0 {
			t.Fatalf("%q: %d addresses, secret of %d bytes", name, len(addrs), len(secret))
		}
		for _, a := range addrs {
			if _, _, err := net.SplitHostPort(a); err != nil {
				t.Fatalf("%q: address %q: %v", name, a, err)
			}
		}
	})
}

// FuzzMsgRecv: the length-prefixed messages two jobs' roots exchange
// over a port connection. Recv returns messages of exactly the announced
// length or an error, refuses lengths over maxMsg before reading, and
// holds no more memory than arrived plus one chunk.
func FuzzMsgRecv(f *testing.F) {
	msg := func(n uint32, body string) []byte {
		return append(binary.LittleEndian.AppendUint32(nil, n), body...)
	}
	fuzzseed.Add(f,
		[]any{msg(5, "hello")},
		[]any{append(msg(2, "ab"), msg(0, "")...)},
		[]any{msg(10, "short")},
		[]any{msg(maxMsg, "x")},
		[]any{msg(maxMsg+1, "")},
		[]any{msg(0xffffffff, "")},
		[]any{[]byte{1, 2}},
	)
	f.Fuzz(func(t *testing.T, in []byte) {
		m := NewMsgConn(&readConn{r: bytes.NewReader(in)})
		total := 0
		for i := 0; ; i++ {
			if i > len(in) {
				t.Fatal("Recv made no progress")
			}
			b, err := m.Recv()
			if err != nil {
				break
			}
			total += 4 + len(b)
			if total > len(in) {
				t.Fatalf("messages of %d bytes from %d", total, len(in))
			}
			if cap(b) > len(b)+msgChunk {
				t.Fatalf("message of %d bytes holds %d", len(b), cap(b))
			}
		}
	})
}

// readConn is a connection whose peer sent what r holds.
type readConn struct {
	net.Conn
	r *bytes.Reader
}

func (c *readConn) Read(b []byte) (int, error) { return c.r.Read(b) }
