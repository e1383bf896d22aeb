package main

import (
	mpirt "gmpi/runtime"
)

// Intercommunicators: creation, merge and the remote-group queries
// (runtime/intercomm.go holds the semantics).

func MPI_Intercomm_create(localH, localLeader, peerH, remoteLeader, tag int32, newintercomm *int32) int32 {
	const fn = "MPI_Intercomm_create"
	l, rc := comm(fn, localH)
	if rc != 0 {
		return rc
	}
	if l.IsInter() {
		return failf(fn, l, mpirt.ErrComm, "invalid communicator argument local_comm: it is an intercommunicator")
	}
	if localLeader < 0 || int(localLeader) >= l.Size() {
		return failf(fn, l, mpirt.ErrRank, "invalid rank argument local_leader: %d (communicator size %d)", localLeader, l.Size())
	}
	if rc := checkTag(fn, l, tag, false); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, l, newintercomm, "newintercomm"); rc != 0 {
		return rc
	}
	// peer_comm and remote_leader are significant only at the local
	// leader: an error there is handed to the runtime, which fails the
	// call on the whole local group (the others would wait forever).
	var peer *mpirt.Comm
	var lerr error
	if l.Rank() == int(localLeader) {
		peer, lerr = peerArgs(peerH, remoteLeader)
	}
	nc, err := l.IntercommCreate(int(localLeader), peer, int(remoteLeader), int(tag), lerr)
	if err != nil {
		*newintercomm = int32(mpirt.HandleCommNull)
		return fail(fn, l, err)
	}
	setNewComm(newintercomm, nc)
	return 0
}

// peerArgs checks MPI_Intercomm_create's peer_comm and remote_leader.
func peerArgs(peerH, remoteLeader int32) (*mpirt.Comm, error) {
	peer := world.Comm(mpirt.Handle(peerH))
	switch {
	case peer == nil && mpirt.Handle(peerH) == mpirt.HandleCommNull:
		return nil, mpirt.Errorf(mpirt.ErrComm, "", "invalid communicator argument peer_comm: MPI_COMM_NULL")
	case peer == nil:
		return nil, mpirt.Errorf(mpirt.ErrComm, "", "invalid communicator argument peer_comm: 0x%08x is not a communicator", uint32(peerH))
	case remoteLeader < 0 || int(remoteLeader) >= peer.PeerSize():
		return nil, mpirt.Errorf(mpirt.ErrRank, "", "invalid rank argument remote_leader: %d (peer_comm size %d)", remoteLeader, peer.PeerSize())
	case !peer.IsInter() && int(remoteLeader) == peer.Rank():
		return nil, mpirt.Errorf(mpirt.ErrRank, "", "invalid rank argument remote_leader: %d is the local leader itself", remoteLeader)
	}
	return peer, nil
}

func MPI_Intercomm_merge(commH, high int32, newintracomm *int32) int32 {
	const fn = "MPI_Intercomm_merge"
	c, rc := comm(fn, commH)
	if rc != 0 {
		return rc
	}
	if !c.IsInter() {
		return failf(fn, c, mpirt.ErrComm, "invalid communicator argument intercomm: not an intercommunicator")
	}
	if rc := newCommOut(fn, c, newintracomm, "newintracomm"); rc != 0 {
		return rc
	}
	nc, err := c.Merge(high != 0)
	if err != nil {
		*newintracomm = int32(mpirt.HandleCommNull)
		return fail(fn, c, err)
	}
	setNewComm(newintracomm, nc)
	return 0
}

// interComm resolves a communicator that must be an intercommunicator.
func interComm(fn string, commH int32) (*mpirt.Comm, int32) {
	c, rc := comm(fn, commH)
	if rc != 0 {
		return nil, rc
	}
	if !c.IsInter() {
		return nil, failf(fn, c, mpirt.ErrComm, "invalid communicator argument comm: not an intercommunicator")
	}
	return c, 0
}

func MPI_Comm_remote_size(commH int32, size *int32) int32 {
	const fn = "MPI_Comm_remote_size"
	c, rc := interComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, size == nil, "size"); rc != 0 {
		return rc
	}
	*size = int32(c.RemoteSize())
	return 0
}

func MPI_Comm_remote_group(commH int32, group *int32) int32 {
	const fn = "MPI_Comm_remote_group"
	c, rc := interComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := nullArg(fn, c, group == nil, "group"); rc != 0 {
		return rc
	}
	*group = int32(world.AddGroup(c.RemoteGroup()))
	return 0
}
