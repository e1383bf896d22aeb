package tcp

import "golang.org/x/sys/unix"

// Waiting is the number of incoming connections of d in their handshake.
func Waiting(d *Device) int { return d.gate.Waiting() }

// MaxPayloadForTest is the bound a frame's payload is checked against.
const MaxPayloadForTest = maxPayload

// CongestionOf is the congestion control of d's connection to peer ("" if
// there is none).
func CongestionOf(d *Device, peer int) string {
	c := d.peers[peer].conn.Load()
	if c == nil {
		return ""
	}
	s, err := unix.GetsockoptString(c.fd, unix.IPPROTO_TCP, unix.TCP_CONGESTION)
	if err != nil {
		return "error: " + err.Error()
	}
	return s
}
