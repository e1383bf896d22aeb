package tcp

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"

	mpirt "gmpi/runtime"
)

// The wire format. Every connection starts with auth.Handshake (context
// "tcp"); then the dialler sends its hello and the acceptor answers with
// one verdict byte; then both ends send frames. All integers are
// little-endian, whatever the hosts' byte order.
//
//	hello   (16 bytes)  "GTCP" | world rank u32 | job id hash u64 (FNV-1a of Config.JobID)
//	verdict (1 byte)    'Y': this connection carries the pair's frames;
//	                    'N': the pair already has one (or the acceptor's
//	                    own dial wins), close it
//	frame   header (56 bytes) | payload
//
//	header  0 kind u8 | 1 flags u8 | 2 u16 0 | 4 context u32 | 8 source i32 |
//	        12 tag i32 | 16 len u64 | 24 sendID u64 | 32 recvID u64 |
//	        40 offset u64 | 48 payload length u32 | 52 "GTCF"
//
// kindBye (a frame of the device itself, no payload) announces an orderly
// close: the sender sends nothing more and shuts its side down.
const (
	helloSize  = 16
	headerSize = 56
	helloMagic = "GTCP"
	frameMagic = "GTCF"

	verdictYes byte = 'Y'
	verdictNo  byte = 'N'

	kindBye = 0xFF
)

func jobHash(jobID string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(jobID))
	return h.Sum64()
}

func putHello(b []byte, rank int, job uint64) {
	copy(b, helloMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(rank))
	binary.LittleEndian.PutUint64(b[8:], job)
}

// parseHello checks a dialler's hello against this job of size ranks.
func parseHello(b []byte, size int, job uint64) (rank int, err error) {
	if string(b[:4]) != helloMagic {
		return 0, fmt.Errorf("not a gmpi tcp hello")
	}
	r := binary.LittleEndian.Uint32(b[4:])
	if r >= uint32(size) {
		return 0, fmt.Errorf("hello names rank %d of a job of %d", r, size)
	}
	if binary.LittleEndian.Uint64(b[8:]) != job {
		return 0, fmt.Errorf("hello from rank %d of another job", r)
	}
	return int(r), nil
}

func putHeader(b []byte, h *mpirt.Header, n int) {
	b[0], b[1], b[2], b[3] = byte(h.Kind), h.Flags, 0, 0
	le := binary.LittleEndian
	le.PutUint32(b[4:], h.Context)
	le.PutUint32(b[8:], uint32(h.Source))
	le.PutUint32(b[12:], uint32(h.Tag))
	le.PutUint64(b[16:], h.Len)
	le.PutUint64(b[24:], h.SendID)
	le.PutUint64(b[32:], h.RecvID)
	le.PutUint64(b[40:], h.Offset)
	le.PutUint32(b[48:], uint32(n))
	copy(b[52:], frameMagic)
}

// parseHeader decodes and checks a frame header; n is the payload length,
// at most maxPayload. Anything the runtime could not have sent is an
// error (the connection is then dropped).
func parseHeader(b []byte, h *mpirt.Header, maxPayload int) (n int, err error) {
	le := binary.LittleEndian
	if string(b[52:56]) != frameMagic || b[2] != 0 || b[3] != 0 {
		return 0, fmt.Errorf("bad frame header")
	}
	*h = mpirt.Header{Kind: mpirt.FrameKind(b[0]), Flags: b[1],
		Context: le.Uint32(b[4:]), Source: int32(le.Uint32(b[8:])), Tag: int32(le.Uint32(b[12:])),
		Len: le.Uint64(b[16:]), SendID: le.Uint64(b[24:]), RecvID: le.Uint64(b[32:]), Offset: le.Uint64(b[40:])}
	p := le.Uint32(b[48:])
	if uint64(p) > uint64(maxPayload) {
		return 0, fmt.Errorf("frame payload of %d bytes exceeds %d", p, maxPayload)
	}
	n = int(p)
	switch h.Kind {
	case mpirt.FrameEager:
		if h.Len != uint64(n) {
			return 0, fmt.Errorf("eager frame of %d bytes carries %d", h.Len, n)
		}
	case mpirt.FrameData:
		if n == 0 || h.Offset+uint64(n) < h.Offset {
			return 0, fmt.Errorf("bad data frame (%d bytes at %d)", n, h.Offset)
		}
	case mpirt.FrameRTS, mpirt.FrameCTS, mpirt.FrameSyncAck, mpirt.FrameRMADone, mpirt.FrameCancelReq,
		mpirt.FrameCancelAck, mpirt.FrameRMAPush, mpirt.FramePushDone, kindBye:
		if n != 0 {
			return 0, fmt.Errorf("frame of kind %d carries a payload", h.Kind)
		}
	case mpirt.FrameRMA:
		// Any payload (one-sided operations, rma_net.go).
	default:
		return 0, fmt.Errorf("frame of unknown kind %d", h.Kind)
	}
	return n, nil
}
