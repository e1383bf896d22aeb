package mpirt

// Requests that capi's express lane (capi/express.c) completed in C: when
// one of their handles reaches a Go request function, capi turns it into
// a Request through these, so every request function treats it as the
// Go path's own (one request table, two doors).

// ExpressSent returns the completed send of a message the express lane
// put on the wire with header hdr to rank dest of c, named by handle h
// (not in the request table): MPI_Cancel can still withdraw it (its
// SendID names it at the receiver). c may be nil (freed since).
func (w *World) ExpressSent(c *Comm, dest int, hdr Header, h Handle) *Request {
	r := w.newRequest()
	r.w, r.Kind, r.comm, r.ctx, r.hdr = w, ReqSend, c, hdr.Context, hdr
	if c != nil {
		r.peer = c.peerOf(dest)
	} else {
		r.hdr.SendID = 0 // cannot be named any more: not cancellable
	}
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	r.Handle = h
	r.done.Store(true)
	return r
}

// ExpressReceived returns the completed receive the express lane
// finished with status st (err: a receive it could not hand to the
// matching engine), named by handle h.
func (w *World) ExpressReceived(c *Comm, st Status, err error, h Handle) *Request {
	r := w.newRequest()
	r.w, r.Kind, r.comm = w, ReqRecv, c
	r.Status, r.Err = st, err
	r.Handle = h
	r.done.Store(true)
	return r
}

// ExpressColl returns the completed nonblocking collective the express
// lane ran on c (capi/cshm.c), named by handle h; err: how it failed.
func (w *World) ExpressColl(c *Comm, err error, h Handle) *Request {
	r := w.newRequest()
	r.w, r.Kind, r.comm = w, ReqColl, c
	r.Status = Status{Source: AnySource, Tag: AnyTag}
	if err != nil {
		r.Err = err
		r.Status.Error = ErrorClassOf(err)
	}
	r.Handle = h
	r.done.Store(true)
	return r
}
