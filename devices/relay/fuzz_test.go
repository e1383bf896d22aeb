package relay

import (
	"bytes"
	"testing"
)

// FuzzReadRequest: the relay's request decoder never panics, reads no
// more than the header announces, and what it accepts re-encodes to the
// bytes it read. Seeds: testdata/fuzz/FuzzReadRequest and below.
func FuzzReadRequest(f *testing.F) {
	for _, r := range []Request{
		{Job: 1, From: 0, To: 5, Addrs: []string{"10.77.3.11:40001"}},
		{Job: 1, From: 6, To: 2, Addrs: []string{"10.77.3.10:41000", "s1h0:40003"}},
		{Job: 0xffffffffffffffff, From: 1, To: 1, Addrs: []string{"[::1]:1", "a:2", "b:3", "c:65535"}},
	} {
		b, err := r.marshal()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("GRLY\x01\x01\x00\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := bytes.NewReader(b)
		req, err := ReadRequest(rd)
		if err != nil {
			return
		}
		used := len(b) - rd.Len()
		again, err := req.marshal()
		if err != nil {
			t.Fatalf("accepted %+v but cannot encode it: %v", req, err)
		}
		// The header's reserved and job bytes are kept; ranks re-encode
		// as read (both non-negative).
		if !bytes.Equal(again, b[:used]) {
			t.Fatalf("re-encoding %q gives %q", b[:used], again)
		}
	})
}

// FuzzReadReply: the relay's answer decoder never panics and bounds the
// refusal's length.
func FuzzReadReply(f *testing.F) {
	var no bytes.Buffer
	writeReply(&no, errString("relay on host s2h0, for rank 1 to rank 5: dialling 10.77.3.11:40001: connection refused"))
	f.Add([]byte{replyYes})
	f.Add(no.Bytes())
	f.Add([]byte{replyNo, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		rd := bytes.NewReader(b)
		err := ReadReply(rd)
		if len(b)-rd.Len() > 3+maxMessage {
			t.Fatalf("read %d bytes of a reply", len(b)-rd.Len())
		}
		if err == nil && (len(b) == 0 || b[0] != replyYes) {
			t.Fatalf("accepted %q", b)
		}
	})
}

type errString string

func (e errString) Error() string { return string(e) }
