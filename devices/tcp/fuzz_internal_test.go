package tcp

import (
	"testing"

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
		f.Add(b)
	}
	f.Add(make([]byte, headerSize))
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
	f.Add(b)
	f.Add([]byte("GTCP\xff\xff\xff\xff0123456789abcdef"))
	f.Add(make([]byte, 16))
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
