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
