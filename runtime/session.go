package mpirt

import (
	"hash/fnv"
	"strings"
)

// Sessions (MPI-4.0 chapter 11.3). A session is a handle, an error handler
// and the hints in force; every session of a process shares the one
// World (the front brings it up with the first session or MPI_Init and
// shuts it down after the last of them ends). The process sets are the two
// the standard requires, "mpi://WORLD" and "mpi://SELF"; communicators
// are built from their groups without a parent communicator, with a
// string tag telling concurrent constructions apart.

// Session is one MPI_Session.
type Session struct {
	handle Handle
	// Errh is the session's error handler.
	Errh ErrhandlerSlot
	info *Info
}

// Handle returns the session's handle.
func (s *Session) Handle() Handle { return s.handle }

// Info returns a copy of the hints in force (MPI_Session_get_info).
func (s *Session) Info() *Info { return s.info.Dup() }

// NewSession registers a session with error handler eh and the hints in
// force info (which it keeps).
func (w *World) NewSession(eh Handle, info *Info) *Session {
	s := &Session{info: info}
	s.Errh.Set(w, eh)
	s.handle = w.sessions.Add(s)
	return s
}

// Session resolves a session handle; nil when h names none.
func (w *World) Session(h Handle) *Session {
	s, ok := w.sessions.Get(h)
	if !ok {
		return nil
	}
	return s
}

// FreeSession releases s's handle (MPI_Session_finalize).
func (w *World) FreeSession(s *Session) { w.sessions.Remove(s.handle) }

// Process set names.
const (
	PsetWorld = "mpi://WORLD"
	PsetSelf  = "mpi://SELF"
)

// Psets lists the process sets, in the order MPI_Session_get_nth_pset
// numbers them.
func (w *World) Psets() []string { return []string{PsetWorld, PsetSelf} }

// PsetGroup returns the group of the process set name (matched without
// regard to case, as MPICH does); ok is false for an unknown name.
func (w *World) PsetGroup(name string) (g *Group, ok bool) {
	switch {
	case strings.EqualFold(name, PsetWorld):
		return w.commWorld.Group(), true
	case strings.EqualFold(name, PsetSelf):
		return NewGroup([]int{w.cfg.Rank}), true
	}
	return nil, false
}

// stringTag maps the string tag of the group-based constructors to the
// integer tag of their agreement messages.
func stringTag(tag string) int {
	h := fnv.New32a()
	h.Write([]byte(tag))
	return int(h.Sum32() & 0x0fffffff)
}

// CommFromGroup is MPI_Comm_create_from_group: collective over the
// members of g, which agree on a context on MPI_COMM_WORLD's collective
// context with tags derived from tag.
func (w *World) CommFromGroup(g *Group, tag string) (*Comm, error) {
	if g.RankOf(w.cfg.Rank) < 0 {
		return nil, Errorf(ErrGroup, "", "invalid group argument group: the calling process is not a member")
	}
	return w.commWorld.CreateGroup(g, stringTag(tag))
}

// IntercommFromGroups is MPI_Intercomm_create_from_groups: each side
// builds its local communicator from its group, then the two leaders
// (localLeader in local, remoteLeader in remote) meet on MPI_COMM_WORLD's
// collective context.
func (w *World) IntercommFromGroups(local *Group, localLeader int, remote *Group, remoteLeader int, tag string) (*Comm, error) {
	if localLeader < 0 || localLeader >= local.Size() {
		return nil, Errorf(ErrRank, "", "invalid rank argument local_leader: %d (group size %d)", localLeader, local.Size())
	}
	if remoteLeader < 0 || remoteLeader >= remote.Size() {
		return nil, Errorf(ErrRank, "", "invalid rank argument remote_leader: %d (group size %d)", remoteLeader, remote.Size())
	}
	l, err := w.CommFromGroup(local, tag)
	if err != nil {
		return nil, err
	}
	defer l.Free()
	cw := w.commWorld
	// A view of MPI_COMM_WORLD whose point-to-point context is its
	// collective one, so the leaders' exchange never meets user traffic.
	peer := &Comm{w: w, group: cw.group, rank: cw.rank, ctx: cw.ctx + 1, handle: cw.handle}
	t := tagSysUser - 4*stringTag(tag) + tagSysAllreduce - 3
	return l.IntercommCreate(localLeader, peer, remote.WorldRank(remoteLeader), t, nil)
}
