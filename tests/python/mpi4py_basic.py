"""mpi4py_basic.py: Debian's python3-mpi4py (built against Open MPI) on
gmpi's Open MPI front. Run under mpirun at any size; rank 0 prints
" No Errors" when every check passed. Checks the library is gmpi's, then
point-to-point (objects and buffers, probes, persistent requests),
collectives (blocking and nonblocking, vector variants) and reductions,
communicators (Dup, Idup, intercommunicators and their Dup), info objects
at Open MPI's key limit. (mpi4py sets the error handler of an Idup's new
communicator before the operation completes: the handle exists at once,
as MPICH's does.)"""

import sys

from mpi4py import MPI

errors = []


def check(cond, what):
    if not cond:
        errors.append(what)
        print(f"rank {rank}: FAIL: {what}", flush=True)


comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()

version = MPI.Get_library_version()
check("gmpi" in version.lower(), f"Get_library_version is not gmpi's: {version!r}")
check(MPI.Get_version() >= (3, 1), f"Get_version {MPI.Get_version()}")
check(MPI.Query_thread() in (MPI.THREAD_SINGLE, MPI.THREAD_FUNNELED, MPI.THREAD_SERIALIZED,
                             MPI.THREAD_MULTIPLE), "Query_thread")
check(comm.Get_name() == "MPI_COMM_WORLD", f"world name {comm.Get_name()!r}")

# Point-to-point: pickled objects around a ring, buffers with statuses.
right, left = (rank + 1) % size, (rank - 1) % size
got = comm.sendrecv({"from": rank, "data": list(range(rank + 3))}, dest=right, source=left)
check(got == {"from": left, "data": list(range(left + 3))}, f"sendrecv object {got}")

buf = bytearray(16)
st = MPI.Status()
req = comm.Irecv([buf, MPI.BYTE], source=MPI.ANY_SOURCE, tag=7)
comm.Send([bytes([rank]) * 16, MPI.BYTE], dest=right, tag=7)
req.Wait(st)
check(buf == bytes([left]) * 16, "Irecv data")
check(st.Get_source() == left and st.Get_tag() == 7 and st.Get_count(MPI.BYTE) == 16,
      f"status source={st.Get_source()} tag={st.Get_tag()} count={st.Get_count(MPI.BYTE)}")
st2 = MPI.Status()
comm.Recv([bytearray(1), MPI.BYTE], source=MPI.PROC_NULL, status=st2)
check(st2.Get_source() == MPI.PROC_NULL and st2.Get_tag() == MPI.ANY_TAG,
      f"PROC_NULL status source={st2.Get_source()} tag={st2.Get_tag()}")

# Collectives.
check(comm.bcast("hello" if rank == 0 else None, root=0) == "hello", "bcast")
check(comm.allgather(rank) == list(range(size)), "allgather")
g = comm.gather(rank * rank, root=size - 1)
if rank == size - 1:
    check(g == [r * r for r in range(size)], f"gather {g}")
check(comm.scatter([r + 100 for r in range(size)] if rank == 0 else None, root=0) == rank + 100,
      "scatter")
check(comm.alltoall([rank * 10 + r for r in range(size)]) == [r * 10 + rank for r in range(size)],
      "alltoall")
comm.Barrier()

# Reductions, buffer and object, predefined and user operators.
try:
    import array

    a = array.array("d", [rank + 0.5] * 4)
    out = array.array("d", [0.0] * 4)
    comm.Allreduce([a, MPI.DOUBLE], [out, MPI.DOUBLE], op=MPI.SUM)
    check(list(out) == [sum(r + 0.5 for r in range(size))] * 4, f"Allreduce SUM {list(out)}")
    ia = array.array("i", [rank, -rank])
    iout = array.array("i", [0, 0])
    comm.Allreduce([ia, MPI.INT], [iout, MPI.INT], op=MPI.MAX)
    check(list(iout) == [size - 1, 0], f"Allreduce MAX {list(iout)}")
    comm.Allreduce(MPI.IN_PLACE, [ia, MPI.INT], op=MPI.MIN)
    check(list(ia) == [0, -(size - 1)], f"Allreduce IN_PLACE MIN {list(ia)}")
except ImportError:
    pass
check(comm.allreduce(rank, op=MPI.SUM) == size * (size - 1) // 2, "allreduce object SUM")
check(comm.reduce(rank + 1, op=MPI.PROD, root=0) == (__import__("math").factorial(size) if rank == 0 else None),
      "reduce PROD")
check(comm.allreduce((rank, rank), op=MPI.MAXLOC) == (size - 1, size - 1), "allreduce MAXLOC")
myop = MPI.Op.Create(lambda x, y, dt: x + y if isinstance(x, int) else x, commute=True)
check(comm.allreduce(1, op=myop) == size, "allreduce with a user op")
myop.Free()
check(comm.scan(1) == rank + 1, "scan")
check(comm.exscan(1) == (rank if rank > 0 else None), "exscan")

# Buffer collectives: vector variants, reduce_scatter, nonblocking ones.
try:
    import array

    counts = [r + 1 for r in range(size)]
    displs = [sum(counts[:r]) for r in range(size)]
    full = array.array("i", range(sum(counts)))
    part = array.array("i", [-1] * (rank + 1))
    comm.Scatterv([full, counts, displs, MPI.INT] if rank == 0 else None, [part, MPI.INT], root=0)
    check(list(part) == list(range(displs[rank], displs[rank] + rank + 1)), f"Scatterv {list(part)}")
    back = array.array("i", [-1] * sum(counts))
    comm.Allgatherv([part, MPI.INT], [back, counts, displs, MPI.INT])
    check(list(back) == list(full), f"Allgatherv {list(back)}")
    rs = array.array("d", [0.0])
    comm.Reduce_scatter_block([array.array("d", [rank + r for r in range(size)]), MPI.DOUBLE],
                              [rs, MPI.DOUBLE], op=MPI.SUM)
    check(rs[0] == sum(q + rank for q in range(size)), f"Reduce_scatter_block {rs[0]}")
    nb = array.array("l", [rank] * 3)
    nbout = array.array("l", [0] * 3)
    req = comm.Iallreduce([nb, MPI.LONG], [nbout, MPI.LONG], op=MPI.SUM)
    req2 = comm.Ibarrier()
    MPI.Request.Waitall([req, req2])
    check(list(nbout) == [size * (size - 1) // 2] * 3, f"Iallreduce {list(nbout)}")
    bc = array.array("i", [7, 8, 9] if rank == size - 1 else [0, 0, 0])
    comm.Ibcast([bc, MPI.INT], root=size - 1).Wait()
    check(list(bc) == [7, 8, 9], f"Ibcast {list(bc)}")
    # Probes and persistent requests.
    comm.Send([array.array("i", [rank] * (rank + 2)), MPI.INT], dest=right, tag=11)
    pst = MPI.Status()
    comm.Probe(source=MPI.ANY_SOURCE, tag=11, status=pst)
    n = pst.Get_count(MPI.INT)
    check(pst.Get_source() == left and n == left + 2, f"Probe source={pst.Get_source()} count={n}")
    pin = array.array("i", [0] * n)
    comm.Recv([pin, MPI.INT], source=pst.Get_source(), tag=11)
    check(list(pin) == [left] * (left + 2), f"Recv after Probe {list(pin)}")
    check(not comm.Iprobe(source=MPI.ANY_SOURCE, tag=12), "Iprobe found a message nobody sent")
    sv, rv = array.array("i", [0]), array.array("i", [-1])
    preqs = [comm.Recv_init([rv, MPI.INT], source=left, tag=13),
             comm.Send_init([sv, MPI.INT], dest=right, tag=13)]
    for it in range(3):
        sv[0] = rank * 10 + it
        MPI.Prequest.Startall(preqs)
        MPI.Request.Waitall(preqs)
        check(rv[0] == left * 10 + it, f"persistent round {it}: {rv[0]}")
    for p in preqs:
        p.Free()
except ImportError:
    pass

# Communicators, groups, attributes, errors.
if size >= 2:
    low = rank < size // 2
    half = comm.Split(0 if low else 1, rank)
    inter = half.Create_intercomm(0, comm, size // 2 if low else 0, tag=21)
    check(inter.Is_inter() and inter.Get_remote_size() == (size - size // 2 if low else size // 2),
          "Create_intercomm")
    idup = inter.Dup()
    check(idup.Is_inter() and MPI.Comm.Compare(inter, idup) == MPI.CONGRUENT, "intercommunicator Dup")
    got = idup.allreduce(rank)
    want = sum(range(size // 2, size)) if low else sum(range(size // 2))
    check(got == want, f"allreduce over the duplicated intercommunicator {got}, want {want}")
    idup.Free()
    inter.Free()
    half.Free()
info = MPI.Info.Create()
info.Set("k" * (MPI.MAX_INFO_KEY - 1), "v")
check(info.Get("k" * (MPI.MAX_INFO_KEY - 1)) == "v", "longest info key")
try:
    info.Set("k" * (MPI.MAX_INFO_KEY + 1), "v")
    check(False, f"an info key of {MPI.MAX_INFO_KEY + 1} characters was accepted")
except MPI.Exception as e:
    check(e.Get_error_class() == MPI.ERR_INFO_KEY, f"long info key: class {e.Get_error_class()}")
check(info.Get_nkeys() == 1, f"info nkeys {info.Get_nkeys()}")
info.Free()

sub = comm.Split(rank % 2, -rank)
check(sub.Get_size() == (size + 1 - rank % 2) // 2, "Split size")
check(sub.allreduce(1) == sub.Get_size(), "Split allreduce")
check(MPI.Comm.Compare(comm, comm.Dup()) == MPI.CONGRUENT, "Compare dup")
for k in range(3):
    icomm, ireq = comm.Idup()
    ireq.Wait()
    check(MPI.Comm.Compare(comm, icomm) == MPI.CONGRUENT, "Compare idup")
    check(icomm.allreduce(rank + 1) == size * (size + 1) // 2, "allreduce on an Idup")
    check(icomm.bcast(k if rank == 0 else None, root=0) == k, "bcast on an Idup")
    icomm.Barrier()
    icomm.Free()
sub.Free()
check(comm.Get_attr(MPI.TAG_UB) >= 32767, f"TAG_UB {comm.Get_attr(MPI.TAG_UB)}")
check(comm.group.Get_size() == size, "group size")
comm.Set_errhandler(MPI.ERRORS_RETURN)
try:
    comm.Send([bytearray(1), MPI.BYTE], dest=size + 5)
    check(False, "send to a bad rank did not raise")
except MPI.Exception as e:
    check(e.Get_error_class() == MPI.ERR_RANK, f"bad rank error class {e.Get_error_class()}")
dt = MPI.INT.Create_vector(2, 1, 2)
dt.Commit()
check(dt.Get_size() == 8 and dt.Get_extent() == (0, 12), f"vector size/extent {dt.Get_size()} {dt.Get_extent()}")
check(dt.Get_envelope()[3] == MPI.COMBINER_VECTOR, f"envelope {dt.Get_envelope()}")
dt.Free()

comm.Barrier()
if rank == 0 and not errors:
    print(" No Errors", flush=True)
sys.exit(1 if errors else 0)
