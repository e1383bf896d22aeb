package fileio

import (
	"errors"
	"sort"
	"unsafe"

	"golang.org/x/sys/unix"

	mpirt "gmpi/runtime"
)

// Collective access: two-phase collective buffering (del Rosario,
// Bordawekar and Choudhary's two-phase I/O, as ROMIO does it). The range
// of the file all processes access is cut into one file domain per
// aggregator (aligned to striping_unit when set); in rounds of at most
// cb_buffer_size bytes per aggregator, every process sends the pieces of
// its request that fall in an aggregator's window to it (offsets and
// lengths, then data, with alltoallv over the file's communicator), and
// the aggregator turns them into one large read or write. Aggregators are
// one process per host by default (cb_nodes changes how many). With
// romio_cb_read/write automatic (the default), accesses of different
// processes that do not interleave, or interleave in pieces of 64 KiB and
// more on average, skip the exchange.

func errClass(err error) int {
	var e *mpirt.Error
	if errors.As(err, &e) {
		return e.Class
	}
	return mpirt.ErrOther
}

func (f *File) collective(fn string, a Access, s state, fileBytes int64, lerr error) (mpirt.Status, error) {
	st := mpirt.Status{Source: mpirt.AnySource, Tag: mpirt.AnyTag}
	var pos int64
	var data []byte
	direct := true
	if lerr == nil {
		pos, lerr = f.startPos(a, s, fileBytes)
	}
	if lerr == nil {
		data, direct, lerr = f.stage(a, s.v, fileBytes)
	}
	cls := 0
	if lerr != nil {
		cls = errClass(lerr)
	}
	all, err := agree(f.comm, cls)
	if err != nil {
		return st, err
	}
	if lerr != nil {
		return st, lerr
	}
	if all != 0 {
		return st, mpirt.Errorf(all, fn, "the collective access failed on another process")
	}
	n, err := f.twoPhase(fn, a.Write, s, pos*s.v.esize, data)
	return f.finish(fn, a, s, pos, data, direct, n, err)
}

// allgatherN gathers len(v) values from every process.
func allgatherN(c *mpirt.Comm, v []int64) ([]int64, error) {
	out := make([]int64, c.Size()*len(v))
	dt := predef(mpirt.TypeInt64)
	err := c.CollRun(mpirt.CollAllgather, &mpirt.CollArgs{Sbuf: unsafe.Pointer(&v[0]), Scount: len(v), Sdt: dt,
		Rbuf: unsafe.Pointer(&out[0]), Rcount: len(v), Rdt: dt})
	return out, err
}

// aggregators picks the aggregator ranks among the processes that see
// the file: the first process of each host in rank order, then more per
// host round-robin, up to n.
func (f *File) aggregators(n int) []int {
	c := f.comm
	byHost := map[int][]int{}
	var hosts []int
	seen := 0
	for r := 0; r < c.Size(); r++ {
		if !f.sees(r) {
			continue
		}
		seen++
		h := c.World().HostIndex(c.WorldRank(r))
		if _, ok := byHost[h]; !ok {
			hosts = append(hosts, h)
		}
		byHost[h] = append(byHost[h], r)
	}
	n = max(1, min(n, seen))
	var out []int
	for k := 0; len(out) < n; k++ {
		for _, h := range hosts {
			if k < len(byHost[h]) && len(out) < n {
				out = append(out, byHost[h][k])
			}
		}
	}
	sort.Ints(out)
	return out
}

// autoPiece is the average contiguous piece (bytes) from which automatic
// collective buffering leaves an interleaved access to the processes.
const autoPiece = 64 << 10

// piece is part of a process's request inside one aggregator's window:
// n file bytes at off, which are bytes at at of its data stream.
type piece struct{ off, n, at int64 }

func (f *File) twoPhase(fn string, write bool, s state, pos int64, data []byte) (int64, error) {
	sp := segBufs.Get().(*[]seg)
	segs := (*sp)[:0]
	s.v.each(pos, int64(len(data)), func(off, n int64) error {
		segs = append(segs, seg{off, n})
		return nil
	})
	defer func() { *sp = segs[:0]; segBufs.Put(sp) }()
	lo, hi := int64(1<<62), int64(-1)
	if len(segs) > 0 {
		lo, hi = segs[0].off, segs[len(segs)-1].off+segs[len(segs)-1].n
	}
	ranges, err := allgatherN(f.comm, []int64{lo, hi, int64(len(segs)), int64(len(data))})
	if err != nil {
		return 0, err
	}
	mode := s.h.cbRead
	if write {
		mode = s.h.cbWrite
	}
	gmin, gmax := int64(1<<62), int64(-1)
	interleaved := false
	type rg struct{ lo, hi int64 }
	var rs []rg
	var nsegs, bytes int64
	for p := 0; p < f.comm.Size(); p++ {
		l, h := ranges[4*p], ranges[4*p+1]
		nsegs += ranges[4*p+2]
		bytes += ranges[4*p+3]
		if h < 0 {
			continue
		}
		gmin, gmax = min(gmin, l), max(gmax, h)
		rs = append(rs, rg{l, h})
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].lo < rs[j].lo })
	for i := 1; i < len(rs); i++ {
		if rs[i].lo < rs[i-1].hi {
			interleaved = true
		}
	}
	if gmax < 0 {
		return 0, nil // nobody accesses anything
	}
	// automatic: the exchange pays when the processes' ranges interleave
	// in small pieces; pieces of autoPiece bytes and more go straight to
	// pread/pwrite (on a local file system three times faster than
	// through one aggregator, bench/io.c's 3-D array at 4 ranks).
	if f.seers == nil && (mode == "disable" || mode == "automatic" && (!interleaved || bytes >= autoPiece*max(nsegs, 1))) {
		return f.xfer(fn, write, s, pos, data)
	}
	aggs := f.aggregators(s.h.cbNodes)
	// File domains: bounds[k] .. bounds[k+1] belongs to aggregator k.
	span := gmax - gmin
	dsize := (span + int64(len(aggs)) - 1) / int64(len(aggs))
	bounds := make([]int64, len(aggs)+1)
	for k := range bounds {
		b := gmin + int64(k)*dsize
		if su := s.h.stripingUnit; su > 0 && k > 0 {
			b = (b + su/2) / su * su
		}
		bounds[k] = min(max(b, gmin), gmax)
	}
	bounds[len(aggs)] = gmax
	var widest int64
	for k := range aggs {
		widest = max(widest, bounds[k+1]-bounds[k])
	}
	cb := s.h.cbBufferSize
	rounds := (widest + cb - 1) / cb
	var eof int64 = 1 << 62
	if !write {
		if eof, err = f.collSize(fn); err != nil {
			return 0, err
		}
	}
	// Stream offsets of the segments.
	at := make([]int64, len(segs))
	var acc int64
	for i, sg := range segs {
		at[i] = acc
		acc += sg.n
	}
	me := f.comm.Rank()
	myAgg := -1
	for k, r := range aggs {
		if r == me {
			myAgg = k
		}
	}
	x := &exchange{f: f, fn: fn, write: write, s: s, aggs: aggs, myAgg: myAgg}
	for r := int64(0); r < rounds; r++ {
		// My pieces per aggregator in this round.
		out := make([][]piece, f.comm.Size())
		for k, ar := range aggs {
			wlo := bounds[k] + r*cb
			whi := min(wlo+cb, bounds[k+1])
			if wlo >= whi {
				continue
			}
			i := sort.Search(len(segs), func(i int) bool { return segs[i].off+segs[i].n > wlo })
			for ; i < len(segs) && segs[i].off < whi; i++ {
				// A read stops at the end of the file: the bytes past it
				// are neither exchanged nor stored into the user's buffer.
				plo, phi := max(segs[i].off, wlo), min(segs[i].off+segs[i].n, whi, eof)
				if plo >= phi {
					continue
				}
				out[ar] = append(out[ar], piece{plo, phi - plo, at[i] + plo - segs[i].off})
			}
		}
		if err := x.round(out, data); err != nil {
			return 0, err
		}
	}
	if write {
		return int64(len(data)), nil
	}
	// What a read got: the stream up to the end of the file.
	var done int64
	for _, sg := range segs {
		if sg.off+sg.n <= eof {
			done += sg.n
			continue
		}
		if eof > sg.off {
			done += eof - sg.off
		}
		break
	}
	return done, nil
}

// exchange is the state of one two-phase access.
type exchange struct {
	f     *File
	fn    string
	write bool
	s     state
	aggs  []int
	myAgg int
	buf   []byte // the aggregator's window
	// Send and receive buffers of the data exchange, reused from round
	// to round (each round's alltoallv has finished with them).
	sbuf, rbuf []byte
}

// grow returns b resized to n bytes, reallocated only when too small
// (the contents are not kept).
func grow(b *[]byte, n int) []byte {
	if cap(*b) < n {
		*b = make([]byte, n)
	}
	return (*b)[:n]
}

func (x *exchange) alltoallv(sbuf unsafe.Pointer, scounts []int, rbuf unsafe.Pointer, rcounts []int, dt *mpirt.Datatype) error {
	n := len(scounts)
	sd, rd := make([]int, n), make([]int, n)
	for i := 1; i < n; i++ {
		sd[i] = sd[i-1] + scounts[i-1]
		rd[i] = rd[i-1] + rcounts[i-1]
	}
	return x.f.comm.CollRun(mpirt.CollAlltoallv, &mpirt.CollArgs{Sbuf: sbuf, Scounts: scounts, Sdispls: sd, Sdt: dt,
		Rbuf: rbuf, Rcounts: rcounts, Rdispls: rd, Rdt: dt})
}

func ptrOf[T any](s []T) unsafe.Pointer {
	if len(s) == 0 {
		var z T
		return unsafe.Pointer(&z)
	}
	return unsafe.Pointer(&s[0])
}

// round moves one round's pieces: out[p] are mine for process p (an
// aggregator).
func (x *exchange) round(out [][]piece, data []byte) error {
	c := x.f.comm
	n := c.Size()
	i64 := predef(mpirt.TypeInt64)
	b := predef(mpirt.TypeByte)
	// 1. How many pieces go where.
	cnt := make([]int64, n)
	for p := range out {
		cnt[p] = int64(len(out[p]))
	}
	rcnt := make([]int64, n)
	if err := c.CollRun(mpirt.CollAlltoall, &mpirt.CollArgs{Sbuf: ptrOf(cnt), Scount: 1, Sdt: i64,
		Rbuf: ptrOf(rcnt), Rcount: 1, Rdt: i64}); err != nil {
		return err
	}
	// 2. Offsets and lengths.
	var meta []int64
	scounts, rcounts := make([]int, n), make([]int, n)
	dcounts, rdcounts := make([]int, n), make([]int, n)
	for p := range out {
		for _, pc := range out[p] {
			meta = append(meta, pc.off, pc.n)
			dcounts[p] += int(pc.n)
		}
		scounts[p] = 2 * len(out[p])
		rcounts[p] = 2 * int(rcnt[p])
	}
	var total int
	for _, v := range rcounts {
		total += v
	}
	rmeta := make([]int64, total)
	if err := x.alltoallv(ptrOf(meta), scounts, ptrOf(rmeta), rcounts, i64); err != nil {
		return err
	}
	// The aggregator's window: what the received pieces span.
	var ps []piece // received, in (source, order) order; at = offset in the received data
	var got int64
	wlo, whi := int64(1<<62), int64(-1)
	k := 0
	for p := 0; p < n; p++ {
		for j := 0; j < int(rcnt[p]); j++ {
			pc := piece{rmeta[k], rmeta[k+1], got}
			k += 2
			ps = append(ps, pc)
			got += pc.n
			rdcounts[p] += int(pc.n)
			wlo, whi = min(wlo, pc.off), max(whi, pc.off+pc.n)
		}
	}
	if x.write {
		// 3w. Data to the aggregators, which write their windows.
		var sz int
		for _, v := range dcounts {
			sz += v
		}
		sdata := grow(&x.sbuf, sz)[:0]
		for p := range out {
			for _, pc := range out[p] {
				sdata = append(sdata, data[pc.at:pc.at+pc.n]...)
			}
		}
		rdata := grow(&x.rbuf, int(got))
		if err := x.alltoallv(ptrOf(sdata), dcounts, ptrOf(rdata), rdcounts, b); err != nil {
			return err
		}
		if len(ps) == 0 {
			return nil
		}
		return x.writeWindow(wlo, whi, ps, rdata)
	}
	// 3r. The aggregators read their windows and send the pieces back.
	var sdata []byte
	if len(ps) > 0 {
		w, err := x.readWindow(wlo, whi)
		if err != nil {
			return err
		}
		sdata = grow(&x.sbuf, int(got))[:0]
		for _, pc := range ps {
			sdata = append(sdata, w[pc.off-wlo:pc.off-wlo+pc.n]...)
		}
	}
	var want int
	for _, v := range dcounts {
		want += v
	}
	rdata := grow(&x.rbuf, want)
	if err := x.alltoallv(ptrOf(sdata), rdcounts, ptrOf(rdata), dcounts, b); err != nil {
		return err
	}
	var r int64
	for p := range out {
		for _, pc := range out[p] {
			copy(data[pc.at:pc.at+pc.n], rdata[r:r+pc.n])
			r += pc.n
		}
	}
	return nil
}

// window returns a scratch buffer of n bytes.
func (x *exchange) scratch(n int64) []byte {
	if int64(cap(x.buf)) < n {
		x.buf = make([]byte, n)
	}
	return x.buf[:n]
}

func (x *exchange) readWindow(lo, hi int64) ([]byte, error) {
	w := x.scratch(hi - lo)
	n, err := x.f.pread(w, lo)
	if err != nil {
		return nil, ioError(x.fn, x.f.path, err)
	}
	clear(w[n:])
	return w, nil
}

func (x *exchange) writeWindow(lo, hi int64, ps []piece, rdata []byte) error {
	f := x.f
	sorted := append([]piece(nil), ps...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].off < sorted[j].off })
	full := true
	end := lo
	for _, pc := range sorted {
		if pc.off > end {
			full = false
		}
		end = max(end, pc.off+pc.n)
	}
	locking := !x.s.atomic && f.comm.Size() > 1 && x.s.h.dsWrite != "disable"
	if x.s.atomic || locking || !full {
		if err := f.lock(unix.F_WRLCK, lo, hi-lo); err != nil {
			return ioError(x.fn, f.path, err)
		}
		defer f.lock(unix.F_UNLCK, lo, hi-lo)
	}
	w := x.scratch(hi - lo)
	if !full {
		n, err := f.pread(w, lo)
		if err != nil && err != unix.EBADF {
			return ioError(x.fn, f.path, err)
		}
		if err == unix.EBADF {
			// Write-only: write the pieces one by one.
			for _, pc := range ps {
				if err := f.pwrite(rdata[pc.at:pc.at+pc.n], pc.off); err != nil {
					return ioError(x.fn, f.path, err)
				}
			}
			return nil
		}
		clear(w[n:])
	}
	for _, pc := range ps {
		copy(w[pc.off-lo:pc.off-lo+pc.n], rdata[pc.at:pc.at+pc.n])
	}
	if err := f.pwrite(w, lo); err != nil {
		return ioError(x.fn, f.path, err)
	}
	return nil
}
