package main

import mpirt "gmpi/runtime"

// MPI-2/MPI-4 communicator calls outside the dup/split family:
// MPI_Comm_disconnect, and the group-based constructors of the sessions
// model (MPI_Comm_create_from_group, MPI_Intercomm_create_from_groups).

func MPI_Comm_disconnect(commH *int32) int32 {
	const fn = "MPI_Comm_disconnect"
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
	if err := c.Disconnect(); err != nil {
		return fail(fn, c, err)
	}
	*commH = int32(mpirt.HandleCommNull)
	return 0
}

// fromGroupArgs checks the arguments common to the group-based
// constructors and returns the string tag and the error handler to
// attach (also the one their errors go through).
func fromGroupArgs(fn string, tag *byte, infoH, errhandler int32, out *int32, outArg string) (string, mpirt.Handle, int32) {
	h, rc := errhandlerArg(fn, nil, errhandler, "errhandler", mpirt.ObjComm)
	if rc != 0 {
		return "", 0, rc
	}
	if tag == nil {
		return "", 0, handlerFailf(fn, h, mpirt.ErrArg, "invalid argument stringtag: NULL pointer")
	}
	if _, rc := infoArg(fn, nil, infoH, "info", true); rc != 0 {
		return "", 0, rc
	}
	if out == nil {
		return "", 0, handlerFailf(fn, h, mpirt.ErrArg, "invalid argument %s: NULL pointer", outArg)
	}
	return goString(tag, 1<<16), h, 0
}

// handlerFailf raises an error through the error handler h that the
// call was given (there is no communicator yet).
func handlerFailf(fn string, h mpirt.Handle, class int, format string, args ...any) int32 {
	return handlerFail(fn, h, mpirt.Errorf(class, fn, format, args...))
}

func handlerFail(fn string, h mpirt.Handle, err error) int32 {
	e := mpirt.Errorf(mpirt.ErrorClassOf(err), fn, "%s", errMsg(err))
	return raiseVia(h, world.Errhandler(h), mpirt.HandleCommNull, e)
}

func MPI_Comm_create_from_group(groupH int32, tag *byte, infoH, errhandler int32, newcomm *int32) int32 {
	const fn = "MPI_Comm_create_from_group"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	g, rc := groupArg(fn, nil, groupH, "group")
	if rc != 0 {
		return rc
	}
	t, h, rc := fromGroupArgs(fn, tag, infoH, errhandler, newcomm, "newcomm")
	if rc != 0 {
		return rc
	}
	if g.Size() == 0 {
		*newcomm = int32(mpirt.HandleCommNull)
		return 0
	}
	nc, err := world.CommFromGroup(g, t)
	if err != nil {
		*newcomm = int32(mpirt.HandleCommNull)
		return handlerFail(fn, h, err)
	}
	nc.SetErrhandler(h)
	setNewComm(newcomm, nc)
	return 0
}

func MPI_Intercomm_create_from_groups(localH, localLeader, remoteH, remoteLeader int32, tag *byte, infoH, errhandler int32, newintercomm *int32) int32 {
	const fn = "MPI_Intercomm_create_from_groups"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	local, rc := groupArg(fn, nil, localH, "local_group")
	if rc != 0 {
		return rc
	}
	remote, rc := groupArg(fn, nil, remoteH, "remote_group")
	if rc != 0 {
		return rc
	}
	t, h, rc := fromGroupArgs(fn, tag, infoH, errhandler, newintercomm, "newintercomm")
	if rc != 0 {
		return rc
	}
	nc, err := world.IntercommFromGroups(local, int(localLeader), remote, int(remoteLeader), t)
	if err != nil {
		*newintercomm = int32(mpirt.HandleCommNull)
		return handlerFail(fn, h, err)
	}
	nc.SetErrhandler(h)
	setNewComm(newintercomm, nc)
	return 0
}
