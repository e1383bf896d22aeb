package mpirt

import "unsafe"

// SendrecvTyped sends scount elements of sdt at sbuf to dest while it
// receives up to rcount elements of rdt into rbuf from src
// (MPI_Sendrecv). Both complete before it returns; a receive error is
// reported before a send error.
func (c *Comm) SendrecvTyped(sbuf unsafe.Pointer, scount int, sdt *Datatype, dest, stag int,
	rbuf unsafe.Pointer, rcount int, rdt *Datatype, src, rtag int) (Status, error) {
	return c.sendrecv(sendView(sbuf, scount, sdt), dest, stag, rbuf, rcount, rdt, src, rtag)
}

// SendrecvReplace sends count elements of dt at buf to dest and receives
// the reply into the same buffer (MPI_Sendrecv_replace). The outgoing
// data is packed first so the receive can land in buf at once.
func (c *Comm) SendrecvReplace(buf unsafe.Pointer, count int, dt *Datatype, dest, stag, src, rtag int) (Status, error) {
	packed := make([]byte, count*dt.Size())
	if len(packed) > 0 {
		dt.Pack(packed, buf, count)
	}
	return c.sendrecv(packed, dest, stag, buf, count, dt, src, rtag)
}

func (c *Comm) sendrecv(data []byte, dest, stag int, rbuf unsafe.Pointer, rcount int, rdt *Datatype, src, rtag int) (Status, error) {
	rr, err := c.IrecvTyped(rbuf, rcount, rdt, src, rtag)
	if err != nil {
		return Status{}, err
	}
	sr, err := c.w.Isend(c, c.ctx, data, dest, stag, ModeStandard)
	if err != nil {
		c.w.Wait(rr)
		return rr.Status, err
	}
	serr := c.w.Wait(sr)
	if rerr := c.w.Wait(rr); rerr != nil {
		return rr.Status, rerr
	}
	return rr.Status, serr
}
