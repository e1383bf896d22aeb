package shm

// publishCtl stores a record's ctl word, which makes the record visible
// to the consumer. On amd64 (TSO) a plain store is a release store: the
// header and payload stores before it become visible first. Unlike an
// atomic store (XCHG, a full fence) it does not stall the sender until it
// owns the line, which is what bounds the message rate. The price is that
// the Ring that follows may read the sleeper count before this store is
// visible; waiters therefore poll once more, briefly, after arming (see
// mpirt's waitFor), which covers a store still draining.
func publishCtl(p *uint64, v uint64) { *p = v }
