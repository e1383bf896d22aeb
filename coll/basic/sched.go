package basic

import (
	"unsafe"

	mpirt "gmpi/runtime"
)

// The reference algorithms of every collective as schedules (rounds of
// sends, receives and local steps; runtime/sched.go). Each SchedX builds
// one call; the Append* builders add an algorithm's rounds to a schedule
// on a given communicator, so coll/inter composes its local phases from
// them. Costs are for p processes and n bytes per block.

// SchedFuncs is the basic component's schedule builder per operation.
var SchedFuncs = [mpirt.NumCollOps]mpirt.SchedFunc{
	mpirt.CollBarrier:            SchedBarrier,
	mpirt.CollBcast:              SchedBcast,
	mpirt.CollGather:             SchedGather,
	mpirt.CollGatherv:            SchedGatherv,
	mpirt.CollScatter:            SchedScatter,
	mpirt.CollScatterv:           SchedScatterv,
	mpirt.CollAllgather:          SchedAllgather,
	mpirt.CollAllgatherv:         SchedAllgatherv,
	mpirt.CollAlltoall:           SchedAlltoall,
	mpirt.CollAlltoallv:          SchedAlltoallv,
	mpirt.CollAlltoallw:          SchedAlltoallw,
	mpirt.CollReduce:             SchedReduce,
	mpirt.CollAllreduce:          SchedAllreduce,
	mpirt.CollReduceScatter:      SchedReduceScatter,
	mpirt.CollReduceScatterBlock: SchedReduceScatterBlock,
	mpirt.CollScan:               SchedScan,
	mpirt.CollExscan:             SchedExscan,
}

// BlockAt is element i of an array of dt at p.
func BlockAt(p unsafe.Pointer, i int, dt *mpirt.Datatype) unsafe.Pointer {
	if i == 0 || p == nil {
		return p
	}
	return unsafe.Add(p, i*dt.Extent())
}

// Block is the block of count elements of dt at element displacement i
// of p, nil when count is 0. A v-operation's empty last block often sits
// just past the end of the buffer; when the buffer is Go memory (fileio
// passes its exchange buffers), a pointer there points at the next heap
// object, which the garbage collector then marks, free or not ("found
// pointer to free object"). An empty block needs no address.
func Block(p unsafe.Pointer, i, count int, dt *mpirt.Datatype) unsafe.Pointer {
	if count == 0 {
		return nil
	}
	return BlockAt(p, i, dt)
}

// ByteBlock is Block with a displacement in bytes (the w-operations).
func ByteBlock(p unsafe.Pointer, off, count int) unsafe.Pointer {
	if count == 0 || p == nil {
		return nil
	}
	return unsafe.Add(p, off)
}

// SchedBarrier: dissemination, ceil(log2 p) rounds of one empty message.
func SchedBarrier(c *mpirt.Comm, _ *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	AppendBarrier(s, c)
	return s, nil
}

// AppendBarrier adds a dissemination barrier over c.
func AppendBarrier(s *mpirt.Schedule, c *mpirt.Comm) {
	n, me := c.Size(), c.Rank()
	for k := 1; k < n; k <<= 1 {
		s.Recv(c, nil, (me-k+n)%n)
		s.Send(c, nil, (me+k)%n)
		s.Round()
	}
}

// SchedBcast: binomial tree of the packed data, ceil(log2 p) rounds.
func SchedBcast(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	k := mpirt.NewPacked(a.Rbuf, a.Rcount, a.Rdt)
	if c.Rank() == a.Root {
		s.Local(k.Load)
	}
	AppendBcast(s, c, k.Data, a.Root)
	if c.Rank() != a.Root {
		s.Local(k.Store)
	}
	return s, nil
}

// AppendBcast adds a binomial broadcast of data from root over c.
func AppendBcast(s *mpirt.Schedule, c *mpirt.Comm, data []byte, root int) {
	n, me := c.Size(), c.Rank()
	v := (me - root + n) % n
	mask := 1
	for ; mask < n; mask <<= 1 {
		if v&mask != 0 {
			s.Recv(c, data, (v-mask+root)%n)
			s.Round()
			break
		}
	}
	for mask >>= 1; mask > 0; mask >>= 1 {
		if v+mask < n {
			s.Send(c, data, (v+mask+root)%n)
		}
	}
	s.Round()
}

// vec describes the blocks of a v-operation: block i has counts[i]
// elements at element displacement displs[i] (nil: uniform blocks of
// count elements back to back).
type vec struct {
	count          int
	counts, displs []int
}

func (v vec) block(p unsafe.Pointer, i int, dt *mpirt.Datatype) (unsafe.Pointer, int) {
	if v.counts == nil {
		return BlockAt(p, i*v.count, dt), v.count
	}
	return Block(p, v.displs[i], v.counts[i], dt), v.counts[i]
}

// SchedGather: linear, one round; the root posts p-1 receives.
func SchedGather(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return gather(c, a, vec{count: a.Rcount}), nil
}

// SchedGatherv is SchedGather with per-rank counts and displacements.
func SchedGatherv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return gather(c, a, vec{counts: a.Rcounts, displs: a.Rdispls}), nil
}

func gather(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	me := c.Rank()
	if me != a.Root {
		s.SendTyped(c, a.Sbuf, a.Scount, a.Sdt, a.Root)
		return s
	}
	for i := range c.Size() {
		p, k := v.block(a.Rbuf, i, a.Rdt)
		if i != me {
			s.RecvTyped(c, p, k, a.Rdt, i)
		} else if !mpirt.IsInPlace(a.Sbuf) {
			s.Local(func() error { mpirt.CopyTyped(p, k, a.Rdt, a.Sbuf, a.Scount, a.Sdt); return nil })
		}
	}
	return s
}

// SchedScatter: linear, one round; the root posts p-1 sends.
func SchedScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scatter(c, a, vec{count: a.Scount}), nil
}

// SchedScatterv is SchedScatter with per-rank counts and displacements.
func SchedScatterv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scatter(c, a, vec{counts: a.Scounts, displs: a.Sdispls}), nil
}

func scatter(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	me := c.Rank()
	if me != a.Root {
		s.RecvTyped(c, a.Rbuf, a.Rcount, a.Rdt, a.Root)
		return s
	}
	for i := range c.Size() {
		p, k := v.block(a.Sbuf, i, a.Sdt)
		if i != me {
			s.SendTyped(c, p, k, a.Sdt, i)
		} else if !mpirt.IsInPlace(a.Rbuf) {
			s.Local(func() error { mpirt.CopyTyped(a.Rbuf, a.Rcount, a.Rdt, p, k, a.Sdt); return nil })
		}
	}
	return s
}

// SchedAllgather: every process sends its block to every other, one
// round of p-1 sends and p-1 receives.
func SchedAllgather(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return allgather(c, a, vec{count: a.Rcount}), nil
}

// SchedAllgatherv is SchedAllgather with per-rank counts and displacements.
func SchedAllgatherv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return allgather(c, a, vec{counts: a.Rcounts, displs: a.Rdispls}), nil
}

func allgather(c *mpirt.Comm, a *mpirt.CollArgs, v vec) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	sbuf, scount, sdt := a.Sbuf, a.Scount, a.Sdt
	if mpirt.IsInPlace(sbuf) {
		sbuf, scount = v.block(a.Rbuf, me, a.Rdt)
		sdt = a.Rdt
	} else {
		p, k := v.block(a.Rbuf, me, a.Rdt)
		s.Local(func() error { mpirt.CopyTyped(p, k, a.Rdt, sbuf, scount, sdt); return nil })
	}
	for d := 1; d < n; d++ {
		from := (me - d + n) % n
		p, k := v.block(a.Rbuf, from, a.Rdt)
		s.RecvTyped(c, p, k, a.Rdt, from)
		s.SendTyped(c, sbuf, scount, sdt, (me+d)%n)
	}
	return s
}

// alltoallBlocks describes both sides of an all-to-all: where block j
// goes to / comes from.
type alltoallBlocks struct {
	send, recv func(j int) (unsafe.Pointer, int, *mpirt.Datatype)
}

func alltoallArgs(a *mpirt.CollArgs, op mpirt.CollOp) alltoallBlocks {
	switch op {
	case mpirt.CollAlltoall:
		return alltoallBlocks{
			send: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
				return BlockAt(a.Sbuf, j*a.Scount, a.Sdt), a.Scount, a.Sdt
			},
			recv: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
				return BlockAt(a.Rbuf, j*a.Rcount, a.Rdt), a.Rcount, a.Rdt
			}}
	case mpirt.CollAlltoallv:
		return alltoallBlocks{
			send: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
				return Block(a.Sbuf, a.Sdispls[j], a.Scounts[j], a.Sdt), a.Scounts[j], a.Sdt
			},
			recv: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
				return Block(a.Rbuf, a.Rdispls[j], a.Rcounts[j], a.Rdt), a.Rcounts[j], a.Rdt
			}}
	}
	return alltoallBlocks{
		send: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
			return ByteBlock(a.Sbuf, a.Sdispls[j], a.Scounts[j]), a.Scounts[j], a.Sdts[j]
		},
		recv: func(j int) (unsafe.Pointer, int, *mpirt.Datatype) {
			return ByteBlock(a.Rbuf, a.Rdispls[j], a.Rcounts[j]), a.Rcounts[j], a.Rdts[j]
		}}
}

// inPlaceArgs turns an in-place all-to-all into an ordinary one: the
// receive description serves both sides (MPI 4.0 §6.8).
func inPlaceArgs(a *mpirt.CollArgs) *mpirt.CollArgs {
	b := *a
	b.Sbuf, b.Scount, b.Sdt, b.Scounts, b.Sdispls, b.Sdts = a.Rbuf, a.Rcount, a.Rdt, a.Rcounts, a.Rdispls, a.Rdts
	return &b
}

// SchedAlltoall: one round, p-1 sends and p-1 receives posted at once
// (partners in shifted order so they do not all hit one process first).
// In place, the blocks to send are packed first, then the receives land
// in the user buffer.
func SchedAlltoall(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, mpirt.CollAlltoall), nil
}

// SchedAlltoallv is SchedAlltoall with per-rank counts and displacements.
func SchedAlltoallv(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, mpirt.CollAlltoallv), nil
}

// SchedAlltoallw is SchedAlltoallv with per-rank datatypes and byte
// displacements.
func SchedAlltoallw(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return alltoall(c, a, mpirt.CollAlltoallw), nil
}

func alltoall(c *mpirt.Comm, a *mpirt.CollArgs, op mpirt.CollOp) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	inPlace := mpirt.IsInPlace(a.Sbuf)
	if inPlace {
		a = inPlaceArgs(a)
	}
	b := alltoallArgs(a, op)
	if inPlace {
		// Stage every outgoing block before any receive is posted.
		staged := make([][]byte, n)
		for j := range n {
			if j == me {
				continue
			}
			p, k, dt := b.send(j)
			data := make([]byte, k*dt.Size())
			staged[j] = data
			s.Local(func() error { dt.Pack(data, p, k); return nil })
		}
		for d := 1; d < n; d++ {
			from, to := (me-d+n)%n, (me+d)%n
			p, k, dt := b.recv(from)
			s.RecvTyped(c, p, k, dt, from)
			s.Send(c, staged[to], to)
		}
		return s
	}
	sp, sk, sdt := b.send(me)
	rp, rk, rdt := b.recv(me)
	s.Local(func() error { mpirt.CopyTyped(rp, rk, rdt, sp, sk, sdt); return nil })
	for d := 1; d < n; d++ {
		from, to := (me-d+n)%n, (me+d)%n
		p, k, dt := b.recv(from)
		s.RecvTyped(c, p, k, dt, from)
		p, k, dt = b.send(to)
		s.SendTyped(c, p, k, dt, to)
	}
	return s
}

// schedOperand returns a packed buffer holding this process's
// contribution to a reduction when the schedule runs: sbuf, or rbuf when
// sbuf is MPI_IN_PLACE.
func schedOperand(s *mpirt.Schedule, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype) []byte {
	src := sbuf
	if mpirt.IsInPlace(sbuf) {
		src = rbuf
	}
	acc := make([]byte, mpirt.PackedLen(count, dt))
	s.Local(func() error { mpirt.LoadPacked(acc, src, count, dt); return nil })
	return acc
}

func store(s *mpirt.Schedule, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, acc []byte) {
	s.Local(func() error { mpirt.StorePacked(rbuf, count, dt, acc); return nil })
}

// AppendReduceToZero adds a binomial reduction of every process's acc
// (packed buffers of elements of dt) into rank 0's acc over c.
// Operands are always combined lower ranks first, so non-commutative
// operators get the canonical order: ceil(log2 p) rounds.
func AppendReduceToZero(s *mpirt.Schedule, c *mpirt.Comm, acc []byte, dt *mpirt.Datatype, op mpirt.Handle) {
	n, me := c.Size(), c.Rank()
	var tmp []byte
	for mask := 1; mask < n; mask <<= 1 {
		if me&mask != 0 {
			s.Send(c, acc, me-mask)
			s.Round()
			return
		}
		if me+mask < n {
			if tmp == nil {
				tmp = make([]byte, len(acc))
			}
			s.Recv(c, tmp, me+mask)
			s.Round()
			// acc covers lower ranks than tmp: acc = acc op tmp.
			s.Local(func() error {
				if err := mpirt.ReducePacked(op, dt, acc, tmp); err != nil {
					return err
				}
				copy(acc, tmp)
				return nil
			})
		}
	}
	s.Round()
}

// SchedReduce: binomial reduction to rank 0, then one hop to the root.
func SchedReduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	AppendReduce(s, c, a.Sbuf, a.Rbuf, a.Rcount, a.Rdt, a.Op, a.Root)
	return s, nil
}

// AppendReduce adds a reduction of sbuf (or rbuf in place) into the
// root's rbuf over c.
func AppendReduce(s *mpirt.Schedule, c *mpirt.Comm, sbuf, rbuf unsafe.Pointer, count int, dt *mpirt.Datatype, op mpirt.Handle, root int) {
	me := c.Rank()
	acc := schedOperand(s, sbuf, rbuf, count, dt)
	AppendReduceToZero(s, c, acc, dt, op)
	switch {
	case root == 0 && me == 0:
	case me == 0:
		s.Send(c, acc, root)
		return
	case me == root:
		s.Recv(c, acc, 0)
	default:
		return
	}
	s.Round()
	store(s, rbuf, count, dt, acc)
}

// SchedAllreduce: reduction to rank 0, then binomial broadcast of the
// result, 2 ceil(log2 p) rounds. Every process gets rank 0's bytes, so
// floating-point results are identical everywhere.
func SchedAllreduce(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	s := c.NewSchedule()
	acc := schedOperand(s, a.Sbuf, a.Rbuf, a.Rcount, a.Rdt)
	AppendReduceToZero(s, c, acc, a.Rdt, a.Op)
	AppendBcast(s, c, acc, 0)
	store(s, a.Rbuf, a.Rcount, a.Rdt, acc)
	return s, nil
}

// SchedReduceScatterBlock: reduction of all p blocks to rank 0, which
// sends block i to rank i.
func SchedReduceScatterBlock(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	counts := make([]int, c.Size())
	for i := range counts {
		counts[i] = a.Rcount
	}
	return reduceScatter(c, a, counts), nil
}

// SchedReduceScatter: reduction of the whole vector to rank 0, which
// sends block i (Rcounts[i] elements) to rank i.
func SchedReduceScatter(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return reduceScatter(c, a, a.Rcounts), nil
}

func reduceScatter(c *mpirt.Comm, a *mpirt.CollArgs, counts []int) *mpirt.Schedule {
	s := c.NewSchedule()
	dt := a.Rdt
	total := 0
	for _, k := range counts {
		total += k
	}
	acc := schedOperand(s, a.Sbuf, a.Rbuf, total, dt)
	AppendReduceToZero(s, c, acc, dt, a.Op)
	AppendScatterPacked(s, c, acc, counts, dt, a.Rbuf, 0)
	return s
}

// AppendScatterPacked adds the scatter of a packed vector acc (at root)
// in blocks of counts[i] elements of dt, stored into rbuf on rank i.
func AppendScatterPacked(s *mpirt.Schedule, c *mpirt.Comm, acc []byte, counts []int, dt *mpirt.Datatype, rbuf unsafe.Pointer, root int) {
	me := c.Rank()
	mine := counts[me]
	if me != root {
		buf := make([]byte, mpirt.PackedLen(mine, dt))
		s.Recv(c, buf, root)
		s.Round()
		store(s, rbuf, mine, dt, buf)
		return
	}
	off := 0
	for i, k := range counts {
		blk := acc[min(off, len(acc)):min(off+mpirt.PackedLen(k, dt), len(acc))]
		if i == me {
			store(s, rbuf, k, dt, blk)
		} else {
			s.Send(c, blk, i)
		}
		off += k * dt.Size()
	}
	s.Round()
}

// SchedScan: recursive doubling, ceil(log2 p) rounds. partial covers a
// block of ranks that grows by doubling; a partner's partial from below
// is combined on the left, from above on the right, so the order of the
// operands is canonical.
func SchedScan(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scan(c, a, false), nil
}

// SchedExscan: SchedScan where the result leaves out this process's own
// operand (rank 0's receive buffer is not touched).
func SchedExscan(c *mpirt.Comm, a *mpirt.CollArgs) (*mpirt.Schedule, error) {
	return scan(c, a, true), nil
}

func scan(c *mpirt.Comm, a *mpirt.CollArgs, exclusive bool) *mpirt.Schedule {
	s := c.NewSchedule()
	n, me := c.Size(), c.Rank()
	count, dt, op := a.Rcount, a.Rdt, a.Op
	partial := schedOperand(s, a.Sbuf, a.Rbuf, count, dt)
	span := len(partial)
	result := make([]byte, span)
	tmp := make([]byte, span)
	have := false // exscan: result holds a value
	if exclusive {
		s.Local(func() error { have = false; return nil })
	} else {
		s.Local(func() error { copy(result, partial); return nil })
	}
	for mask := 1; mask < n; mask <<= 1 {
		dst := me ^ mask
		if dst >= n {
			continue
		}
		s.Send(c, partial, dst)
		s.Recv(c, tmp, dst)
		s.Round()
		if dst < me {
			s.Local(func() error {
				// tmp covers lower ranks: result = tmp op result,
				// partial = tmp op partial.
				if exclusive && !have {
					copy(result, tmp)
					have = true
				} else if err := mpirt.ReducePacked(op, dt, tmp, result); err != nil {
					return err
				}
				return mpirt.ReducePacked(op, dt, tmp, partial)
			})
		} else {
			s.Local(func() error {
				// partial = partial op tmp.
				if err := mpirt.ReducePacked(op, dt, partial, tmp); err != nil {
					return err
				}
				copy(partial, tmp)
				return nil
			})
		}
	}
	if !exclusive || me > 0 {
		store(s, a.Rbuf, count, dt, result)
	}
	return s
}
