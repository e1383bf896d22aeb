package main

import (
	"fmt"
	"os"
	"time"
	"unsafe"

	"gmpi/devices/tcp"
	mpirt "gmpi/runtime"
	"gmpi/runtime/param"
	"gmpi/runtime/pmi"
)

// MPI_Comm_spawn, MPI_Comm_spawn_multiple and MPI_Comm_get_parent. The
// root opens a port and asks the process manager (PMI-1 spawn; our mpirun
// starts the children as a job of their own) to start the children with
// the port in their environment (GMPI_PARENT_PORT); the children connect
// to it collectively in MPI_Init, the parents accept: the result is the
// intercommunicator of connect/accept (api_dynamic.go).

// parentComm is MPI_Comm_get_parent's communicator (0: none).
var parentComm mpirt.Handle

// connectParent is the children's side, in MPI_Init.
func connectParent() error {
	port := param.ParentPort.Get(world.Params())
	if port == "" {
		return nil
	}
	_, secret, err := tcp.ParsePortName(port)
	if err != nil {
		return err
	}
	timeout := connectTimeout(nil)
	var mc *tcp.MsgConn
	conn := func() (mpirt.RootConn, error) {
		m, err := tcp.DialPort(port, time.Now().Add(timeout))
		if err != nil {
			return nil, mpirt.Errorf(mpirt.ErrPort, "", "connecting to the parents' port: %v", err)
		}
		m.SetDeadline(time.Now().Add(timeout))
		mc = m
		return m, nil
	}
	nc, err := world.CommWorld().ConnectJobs(0, mpirt.RoleConnect, conn, secret, nil)
	if mc != nil {
		mc.Close()
	}
	if err != nil {
		return err
	}
	nc.SetName("MPI_COMM_PARENT")
	parentComm = nc.Handle()
	return nil
}

func MPI_Comm_get_parent(parent *int32) int32 {
	const fn = "MPI_Comm_get_parent"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if parent == nil {
		return badPointer(fn, "parent")
	}
	// Once freed or disconnected, the parent communicator is gone.
	if parentComm != 0 && world.Comm(parentComm) == nil {
		parentComm = 0
	}
	*parent = int32(mpirt.HandleCommNull)
	if parentComm != 0 {
		*parent = int32(parentComm)
	}
	return 0
}

// cStrings reads a NULL-terminated array of C strings (nil p: none).
func cStrings(p unsafe.Pointer) []string {
	if p == nil {
		return nil
	}
	var out []string
	for i := 0; i < 1<<16; i++ {
		s := *(**byte)(unsafe.Add(p, i*int(unsafe.Sizeof(uintptr(0)))))
		if s == nil {
			break
		}
		out = append(out, goString(s, 1<<20))
	}
	return out
}

func MPI_Comm_spawn(command *byte, argv unsafe.Pointer, maxprocs, infoH, root, commH int32, intercomm *int32, errcodes *int32) int32 {
	const fn = "MPI_Comm_spawn"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkRoot(fn, c, root); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, intercomm, "intercomm"); rc != 0 {
		return rc
	}
	var cmds []pmi.SpawnCmd
	var lerr error
	if c.Rank() == int(root) {
		in, rc := infoArg(fn, c, infoH, "info", true)
		if rc != 0 {
			return rc
		}
		switch {
		case command == nil:
			lerr = mpirt.Errorf(mpirt.ErrArg, "", "invalid argument command: NULL pointer")
		case maxprocs <= 0:
			lerr = mpirt.Errorf(mpirt.ErrArg, "", "invalid argument maxprocs: %d (must be positive)", maxprocs)
		default:
			cmds = []pmi.SpawnCmd{{N: int(maxprocs), Exec: goString(command, 1<<16), Args: cStrings(argv), Info: infoPairs(in)}}
		}
	}
	return spawn(fn, c, root, cmds, lerr, intercomm, errcodes, int(maxprocs))
}

func MPI_Comm_spawn_multiple(count int32, commands, argvs unsafe.Pointer, maxprocs *int32, infos *int32, root, commH int32, intercomm *int32, errcodes *int32) int32 {
	const fn = "MPI_Comm_spawn_multiple"
	c, rc := intraComm(fn, commH)
	if rc != 0 {
		return rc
	}
	if rc := checkRoot(fn, c, root); rc != 0 {
		return rc
	}
	if rc := newCommOut(fn, c, intercomm, "intercomm"); rc != 0 {
		return rc
	}
	var cmds []pmi.SpawnCmd
	var lerr error
	total := 0
	if c.Rank() == int(root) {
		switch {
		case count <= 0:
			return failf(fn, c, mpirt.ErrCount, "invalid count argument count: %d (must be positive)", count)
		case commands == nil || maxprocs == nil || infos == nil:
			lerr = mpirt.Errorf(mpirt.ErrArg, "", "invalid argument: array_of_commands, array_of_maxprocs or array_of_info is NULL")
		}
		ps := int(unsafe.Sizeof(uintptr(0)))
		for i := 0; lerr == nil && i < int(count); i++ {
			cmd := *(**byte)(unsafe.Add(commands, i*ps))
			n := *(*int32)(unsafe.Add(unsafe.Pointer(maxprocs), 4*i))
			in, rc := infoArg(fn, c, *(*int32)(unsafe.Add(unsafe.Pointer(infos), 4*i)), fmt.Sprintf("array_of_info[%d]", i), true)
			if rc != 0 {
				return rc
			}
			var args []string
			if argvs != nil {
				args = cStrings(*(*unsafe.Pointer)(unsafe.Add(argvs, i*ps)))
			}
			switch {
			case cmd == nil:
				lerr = mpirt.Errorf(mpirt.ErrArg, "", "invalid argument array_of_commands[%d]: NULL pointer", i)
			case n <= 0:
				lerr = mpirt.Errorf(mpirt.ErrArg, "", "invalid argument array_of_maxprocs[%d]: %d (must be positive)", i, n)
			default:
				cmds = append(cmds, pmi.SpawnCmd{N: int(n), Exec: goString(cmd, 1<<16), Args: args, Info: infoPairs(in)})
				total += int(n)
			}
		}
	}
	return spawn(fn, c, root, cmds, lerr, intercomm, errcodes, total)
}

// infoPairs lists an info object's keys and values (nil: none).
func infoPairs(in *mpirt.Info) [][2]string {
	if in == nil {
		return nil
	}
	var out [][2]string
	for i := 0; i < in.NKeys(); i++ {
		k, _ := in.NthKey(i)
		v, _ := in.Get(k)
		out = append(out, [2]string{k, v})
	}
	return out
}

// spawn is the collective part: the root starts the children and
// accepts their connection; errcodes (significant at root, where n is
// their number) gets every child's code.
func spawn(fn string, c *mpirt.Comm, root int32, cmds []pmi.SpawnCmd, lerr error, intercomm, errcodes *int32, n int) int32 {
	var port *tcp.Port
	var key []byte
	var counts []int
	if c.Rank() == int(root) && lerr == nil {
		cfg := world.Config()
		if why := cannotSpawn(cfg.Params); why != "" {
			lerr = mpirt.Errorf(mpirt.ErrSpawn, "", "%s", why)
		} else if p, err := tcp.OpenPort(param.TCPIf.Get(cfg.Params), cfg.Log); err != nil {
			lerr = mpirt.Errorf(mpirt.ErrSpawn, "", "opening the port for the children: %v", err)
		} else if counts, err = pmiClient.Spawn(cmds, [][2]string{{pmi.ParentPortKey, p.Name}}); err != nil {
			p.Close()
			lerr = mpirt.Errorf(mpirt.ErrSpawn, "", "the process manager could not start the processes: %v", err)
		} else if sum(counts) == 0 {
			p.Close()
			lerr = mpirt.Errorf(mpirt.ErrSpawn, "", "the info key soft allowed no process: the universe (MPI_UNIVERSE_SIZE) is full")
		} else {
			port, key = p, p.Secret()
		}
	}
	if port != nil {
		defer port.Close()
	}
	timeout := connectTimeout(nil)
	var mc *tcp.MsgConn
	conn := func() (mpirt.RootConn, error) {
		ch := make(chan *tcp.MsgConn, 1)
		go func() {
			m, _ := port.Accept()
			ch <- m
		}()
		select {
		case m := <-ch:
			if m == nil {
				return nil, mpirt.Errorf(mpirt.ErrSpawn, "", "the port closed before the children connected")
			}
			m.SetDeadline(time.Now().Add(timeout))
			mc = m
			return m, nil
		case <-time.After(timeout):
			port.Close()
			return nil, mpirt.Errorf(mpirt.ErrSpawn, "", "the children did not connect within %v (GMPI_CONNECT_TIMEOUT)", timeout)
		}
	}
	nc, err := c.ConnectJobs(int(root), mpirt.RoleAccept, conn, key, lerr)
	if mc != nil {
		mc.Close()
	}
	code := int32(0)
	if err != nil {
		*intercomm = int32(mpirt.HandleCommNull)
		code = fail(fn, c, err)
	} else {
		setNewComm(intercomm, nc)
	}
	if errcodes != nil && c.Rank() == int(root) {
		// Per command, its started processes first; those soft left out
		// get MPI_ERR_SPAWN.
		i := 0
		for k, cmd := range cmds {
			for m := 0; m < cmd.N && i < n; m, i = m+1, i+1 {
				v := code
				if code == 0 && counts != nil && m >= counts[k] {
					v = int32(mpirt.ErrSpawn)
				}
				*(*int32)(unsafe.Add(unsafe.Pointer(errcodes), 4*i)) = v
			}
		}
		for ; i < n; i++ {
			*(*int32)(unsafe.Add(unsafe.Pointer(errcodes), 4*i)) = code
		}
	}
	return code
}

func sum(xs []int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

// cannotSpawn says why this process cannot spawn ("" when it can): only
// gmpi's mpirun starts children that join their parents (it hands them
// the parents' port); other launchers would start processes that never
// connect, or refuse.
func cannotSpawn(p *param.Values) string {
	const fix = "; start the job with gmpi's mpirun (with --launcher srun or hydra it still starts the processes through that launcher, and can spawn)"
	switch {
	case pmiClient == nil:
		return "no process manager: a process started without mpirun cannot spawn" + fix
	case param.JobID.Get(p) != "":
		if pmiClient.Version() == pmi.V2 {
			return "this process speaks PMI-2 to its launcher, and spawning needs PMI-1" + fix
		}
		return ""
	case os.Getenv("SLURM_JOB_ID") != "" || os.Getenv("SLURM_STEP_ID") != "":
		return "launched by Slurm (srun), which cannot start processes for MPI_Comm_spawn of this library" + fix
	default:
		return "launched by a process manager that is not gmpi's mpirun (e.g. MPICH's mpiexec.hydra), which cannot start processes for MPI_Comm_spawn of this library" + fix
	}
}
