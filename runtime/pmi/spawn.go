package pmi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Spawning (MPI_Comm_spawn, MPI_Comm_spawn_multiple) through PMI-1's
// multi-line command, one block per command, as MPICH's simple PMI
// writes it (hydra serves the same):
//
//	mcmd=spawn
//	nprocs=N
//	execname=PROG
//	totspawns=K           the number of blocks of this request
//	spawnssofar=I         1-based index of this block
//	argcnt=M
//	arg1=A ... argM=A
//	preput_num=P
//	preput_key_0=K preput_val_0=V ...   (one per line)
//	info_num=Q
//	info_key_0=K info_val_0=V ...       (one per line)
//	endcmd
//
// After the last block the server answers "cmd=spawn_result rc=0" (or
// rc=-1 errmsg=...). Values are encoded with EncodeValue. Our mpirun adds
// SpawnCountsKey=N1,N2,...: how many processes of each command it
// started (fewer than nprocs when the info key soft allows it); a server
// without it started them all.

// SpawnCmd is one command of a spawn request.
type SpawnCmd struct {
	N    int
	Exec string
	Args []string
	Info [][2]string // info keys and values, in order
}

// ParentPortKey is the preput key under which the parents' port reaches
// the children (MPICH's name).
const ParentPortKey = "PARENT_ROOT_PORT_NAME"

// SpawnCountsKey is the spawn_result key of the started counts (ours).
const SpawnCountsKey = "gmpi_nprocs"

// Spawn asks the process manager to start cmds as one new job whose KVS
// holds preput, and returns how many processes of each command it
// started. PMI-1 only.
func (c *Client) Spawn(cmds []SpawnCmd, preput [][2]string) ([]int, error) {
	p, ok := c.p.(v1)
	if !ok {
		return nil, errors.New("spawning needs PMI-1 (this launcher speaks PMI-2)")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, cmd := range cmds {
		var b strings.Builder
		line := func(k, v string) { b.WriteString(k + "=" + v + "\n") }
		b.WriteString("mcmd=spawn\n")
		line("nprocs", strconv.Itoa(cmd.N))
		line("execname", EncodeValue(cmd.Exec))
		line("totspawns", strconv.Itoa(len(cmds)))
		line("spawnssofar", strconv.Itoa(i+1))
		line("argcnt", strconv.Itoa(len(cmd.Args)))
		for k, a := range cmd.Args {
			line("arg"+strconv.Itoa(k+1), EncodeValue(a))
		}
		line("preput_num", strconv.Itoa(len(preput)))
		for k, kv := range preput {
			line("preput_key_"+strconv.Itoa(k), EncodeValue(kv[0]))
			line("preput_val_"+strconv.Itoa(k), EncodeValue(kv[1]))
		}
		line("info_num", strconv.Itoa(len(cmd.Info)))
		for k, kv := range cmd.Info {
			line("info_key_"+strconv.Itoa(k), EncodeValue(kv[0]))
			line("info_val_"+strconv.Itoa(k), EncodeValue(kv[1]))
		}
		b.WriteString("endcmd\n")
		if err := p.write("spawn", b.String()); err != nil {
			return nil, err
		}
	}
	f, err := p.readReply("spawn_result")
	if err != nil {
		return nil, fmt.Errorf("pmi: spawn: %w", err)
	}
	counts := make([]int, len(cmds))
	for i, cmd := range cmds {
		counts[i] = cmd.N
	}
	if v, ok := f[SpawnCountsKey]; ok {
		parts := strings.Split(v, ",")
		if len(parts) != len(cmds) {
			return nil, fmt.Errorf("pmi: spawn: %s=%q does not give %d counts", SpawnCountsKey, v, len(cmds))
		}
		for i, s := range parts {
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n > cmds[i].N {
				return nil, fmt.Errorf("pmi: spawn: bad %s=%q", SpawnCountsKey, v)
			}
			counts[i] = n
		}
	}
	return counts, nil
}

// SpawnBlock is one parsed block of a spawn request (the server's side).
type SpawnBlock struct {
	Cmd        SpawnCmd
	Total, Idx int
	Preput     [][2]string
}

// ParseSpawnBlock reads the key=value lines of one block (without mcmd
// and endcmd).
func ParseSpawnBlock(lines []string) (*SpawnBlock, error) {
	f := map[string]string{}
	for _, l := range lines {
		k, v, ok := strings.Cut(strings.TrimRight(l, "\r\n"), "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("pmi: malformed spawn line %q", l)
		}
		f[k] = v
	}
	num := func(k string, lo, hi int) (int, error) {
		n, err := strconv.Atoi(f[k])
		if err != nil || n < lo || n > hi {
			return 0, fmt.Errorf("pmi: spawn: bad %s=%q", k, f[k])
		}
		return n, nil
	}
	b := &SpawnBlock{}
	var err error
	if b.Cmd.N, err = num("nprocs", 1, 1<<20); err != nil {
		return nil, err
	}
	if b.Total, err = num("totspawns", 1, 1<<16); err != nil {
		return nil, err
	}
	if b.Idx, err = num("spawnssofar", 1, b.Total); err != nil {
		return nil, err
	}
	if b.Cmd.Exec = DecodeValue(f["execname"]); b.Cmd.Exec == "" {
		return nil, errors.New("pmi: spawn: no execname")
	}
	n, err := num("argcnt", 0, 1<<16)
	if err != nil {
		return nil, err
	}
	for k := 1; k <= n; k++ {
		v, ok := f["arg"+strconv.Itoa(k)]
		if !ok {
			return nil, fmt.Errorf("pmi: spawn: arg%d missing", k)
		}
		b.Cmd.Args = append(b.Cmd.Args, DecodeValue(v))
	}
	pairs := func(prefix string) ([][2]string, error) {
		if _, ok := f[prefix+"_num"]; !ok {
			return nil, nil
		}
		n, err := num(prefix+"_num", 0, 1<<16)
		if err != nil {
			return nil, err
		}
		var out [][2]string
		for k := 0; k < n; k++ {
			key, ok1 := f[prefix+"_key_"+strconv.Itoa(k)]
			val, ok2 := f[prefix+"_val_"+strconv.Itoa(k)]
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("pmi: spawn: %s %d missing", prefix, k)
			}
			out = append(out, [2]string{DecodeValue(key), DecodeValue(val)})
		}
		return out, nil
	}
	if b.Preput, err = pairs("preput"); err != nil {
		return nil, err
	}
	if b.Cmd.Info, err = pairs("info"); err != nil {
		return nil, err
	}
	return b, nil
}
