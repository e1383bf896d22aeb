package tcp

// Waiting is the number of incoming connections of d in their handshake.
func Waiting(d *Device) int { return d.gate.Waiting() }

// MaxPayloadForTest is the bound a frame's payload is checked against.
const MaxPayloadForTest = maxPayload
