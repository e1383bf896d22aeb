package main

import (
	mpirt "gmpi/runtime"
)

// newCommOut checks a newcomm output argument.
func newCommOut(fn string, c *mpirt.Comm, p *int32, arg string) int32 {
	if p == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument %s: NULL pointer", arg)
	}
	return 0
}

// setNewComm stores nc's handle (MPI_COMM_NULL for nil) in *out.
func setNewComm(out *int32, nc *mpirt.Comm) {
	if nc == nil {
		*out = int32(mpirt.HandleCommNull)
		return
	}
	*out = int32(nc.Handle())
}

// infoArg resolves an info argument; MPI_INFO_NULL gives nil when
// nullOK.
func infoArg(fn string, c *mpirt.Comm, h int32, arg string, nullOK bool) (*mpirt.Info, int32) {
	if mpirt.Handle(h) == mpirt.HandleInfoNull {
		if nullOK {
			return nil, 0
		}
		return nil, failf(fn, c, mpirt.ErrInfo, "invalid info argument %s: MPI_INFO_NULL", arg)
	}
	in := lookupInfo(mpirt.Handle(h))
	if in == nil {
		return nil, failf(fn, c, mpirt.ErrInfo, "invalid info argument %s: 0x%08x is not an info object", arg, uint32(h))
	}
	return in, 0
}

// namedComm resolves a communicator argument called arg (comm() is the
// common case of an argument called comm).
func namedComm(fn string, h int32, arg string) (*mpirt.Comm, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	if c := world.Comm(mpirt.Handle(h)); c != nil {
		return c, 0
	}
	return nil, noComm(fn, h, arg)
}

// groupArg resolves a group argument.
func groupArg(fn string, c *mpirt.Comm, h int32, arg string) (*mpirt.Group, int32) {
	g := world.Group(mpirt.Handle(h))
	if g != nil {
		return g, 0
	}
	if mpirt.Handle(h) == mpirt.HandleGroupNull {
		return nil, failf(fn, c, mpirt.ErrGroup, "invalid group argument %s: MPI_GROUP_NULL", arg)
	}
	return nil, failf(fn, c, mpirt.ErrGroup, "invalid group argument %s: 0x%08x is not a group", arg, uint32(h))
}

func dup(fn string, commH, infoH int32, withInfo bool, newcomm *int32) int32 {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	var in *mpirt.Info
	if withInfo {
		if in, rc = infoArg(fn, c, infoH, "info", true); rc != 0 {
			return rc
		}
		if in == nil {
			in = mpirt.NewInfo()
		}
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	nc, err := c.Dup(in)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_dup(commH int32, newcomm *int32) int32 {
	return dup("MPI_Comm_dup", commH, 0, false, newcomm)
}

func MPI_Comm_dup_with_info(commH, info int32, newcomm *int32) int32 {
	return dup("MPI_Comm_dup_with_info", commH, info, true, newcomm)
}

// idup is MPI_Comm_idup: the new communicator's handle is stored in
// *newcomm at once, as MPICH does (the agreement runs in the background
// and builds the communicator under that handle; mpirt.Comm.Idup), and
// MPI_COMM_NULL is stored there before the request completes if the
// agreement failed.
func idup(fn string, commH, infoH int32, withInfo bool, newcomm, request *int32) int32 {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if request == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument request: NULL pointer")
	}
	var in *mpirt.Info
	if withInfo {
		if in, rc = infoArg(fn, c, infoH, "info", true); rc != 0 {
			return rc
		}
		if in == nil {
			in = mpirt.NewInfo()
		}
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	r, err := c.Idup(in, func(h mpirt.Handle) { *newcomm = int32(h) }, func(nc *mpirt.Comm, err error) {
		if nc == nil {
			*newcomm = int32(mpirt.HandleCommNull)
		}
	})
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	*request = int32(world.AddRequest(r))
	return 0
}

func MPI_Comm_idup(commH int32, newcomm, request *int32) int32 {
	return idup("MPI_Comm_idup", commH, 0, false, newcomm, request)
}

func MPI_Comm_idup_with_info(commH, info int32, newcomm, request *int32) int32 {
	return idup("MPI_Comm_idup_with_info", commH, info, true, newcomm, request)
}

func MPI_Comm_split(commH, color, key int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_split"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	nc, err := c.Split(int(color), int(key))
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_split_type(commH, splitType, key, infoH int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_split_type"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	switch splitType {
	case mpirt.Undefined, mpirt.CommTypeShared, mpirt.CommTypeHWGuided, mpirt.CommTypeHWUnguided, 4: // 4: MPIX_COMM_TYPE_NEIGHBORHOOD
	default:
		return failf(fn, c, mpirt.ErrArg, "invalid argument split_type: %d", splitType)
	}
	in, rc := infoArg(fn, c, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	if splitType == 4 {
		splitType = mpirt.CommTypeHWUnguided // no neighborhoods: MPI_COMM_NULL
	}
	nc, err := c.SplitType(int(splitType), int(key), in)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_create(commH, groupH int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_create"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	g, rc := groupArg(fn, c, groupH, "group")
	if rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	nc, err := c.Create(g)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_create_group(commH, groupH, tag int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_create_group"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	g, rc := groupArg(fn, c, groupH, "group")
	if rc != 0 {
		return rc
	}
	if rc := checkTag(fn, c, tag, false); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, newcomm, "newcomm"); rc != 0 {
		return rc
	}
	nc, err := c.CreateGroup(g, int(tag))
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Comm_free(commH *int32) int32 {
	const fn = "MPI_Comm_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if commH == nil {
		return badPointer(fn, "comm")
	}
	c, rc := comm(fn, *commH)
	if rc != 0 {
		return rc
	}
	if err := c.Free(); err != nil {
		return fail(fn, c, err)
	}
	*commH = int32(mpirt.HandleCommNull)
	return 0
}

func MPI_Comm_compare(comm1, comm2 int32, result *int32) int32 {
	const fn = "MPI_Comm_compare"
	a, rc := namedComm(fn, comm1, "comm1")
	if rc != 0 {
		return rc
	}
	b, rc := namedComm(fn, comm2, "comm2")
	if rc != 0 {
		return rc
	}
	if result == nil {
		return failf(fn, a, mpirt.ErrArg, "invalid argument result: NULL pointer")
	}
	*result = int32(mpirt.CompareComms(a, b))
	return 0
}

func MPI_Comm_test_inter(commH int32, flag *int32) int32 {
	const fn = "MPI_Comm_test_inter"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if flag == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument flag: NULL pointer")
	}
	*flag = b2i(c.IsInter())
	return 0
}

func MPI_Comm_get_name(commH int32, name *byte, resultlen *int32) int32 {
	const fn = "MPI_Comm_get_name"
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	if name == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument comm_name: NULL pointer")
	}
	if resultlen == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument resultlen: NULL pointer")
	}
	*resultlen = cString(name, maxObjectName, c.Name())
	return 0
}

func MPI_Comm_set_name(commH int32, name *byte) int32 {
	const fn = "MPI_Comm_set_name"
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	if name == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument comm_name: NULL pointer")
	}
	c.SetName(goString(name, maxObjectName-1))
	return 0
}

func MPI_Comm_get_info(commH int32, info *int32) int32 {
	const fn = "MPI_Comm_get_info"
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	if info == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument info_used: NULL pointer")
	}
	*info = int32(infos.Add(c.Info()))
	return 0
}

func MPI_Comm_set_info(commH, infoH int32) int32 {
	const fn = "MPI_Comm_set_info"
	c, rc := commOrPending(fn, commH)
	if rc != 0 {
		return rc
	}
	in, rc := infoArg(fn, c, infoH, "info", true)
	if rc != 0 {
		return rc
	}
	c.SetInfo(in)
	return 0
}

func MPI_Comm_group(commH int32, group *int32) int32 {
	const fn = "MPI_Comm_group"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if group == nil {
		return failf(fn, c, mpirt.ErrArg, "invalid argument group: NULL pointer")
	}
	*group = int32(world.AddGroup(c.Group()))
	return 0
}
