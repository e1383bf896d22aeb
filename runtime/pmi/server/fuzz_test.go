package server

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"gmpi/internal/fuzzseed"
	"gmpi/runtime/pmi"
)

// rwc is a connection whose peer sent in and then closed.
type rwc struct {
	r   io.Reader
	out bytes.Buffer
}

func (c *rwc) Read(b []byte) (int, error)  { return c.r.Read(b) }
func (c *rwc) Write(b []byte) (int, error) { return c.out.Write(b) }
func (c *rwc) Close() error                { return nil }

// serveSeeds: every PMI-1 command the server knows (in fd mode and after
// initack in PMI_PORT mode), spawn blocks, a PMI-2 client, and malformed
// input.
var serveSeeds = [][]any{
	{true, "cmd=init pmi_version=1 pmi_subversion=1\ncmd=get_maxes\ncmd=get_appnum\ncmd=get_my_kvsname\ncmd=get_universe_size\n"},
	{true, "cmd=put kvsname=kvs_0 key=k value=v%20w\ncmd=get kvsname=kvs_0 key=k\ncmd=get kvsname=kvs_0 key=nokey\ncmd=get kvsname=other key=k\n"},
	{true, "cmd=put kvsname=kvs_0 key= value=v\ncmd=put kvsname=kvs_0 key=k value=" + strings.Repeat("v", 2000) + "\n"},
	{true, "cmd=barrier_in\ncmd=finalize\n"},
	{true, "cmd=abort exitcode=3 message=gmpi%3A%20abort\n"},
	{true, "cmd=abort exitcode=x\n"},
	{false, "cmd=initack pmiid=0\ncmd=init pmi_version=1 pmi_subversion=1\ncmd=barrier_in\n"},
	{false, "cmd=initack pmiid=7\n"},
	{false, "cmd=initack pmiid=0\ncmd=initack pmiid=0\n"},
	{false, "cmd=get_maxes\n"},
	{true, "mcmd=spawn\nnprocs=1\nexecname=a.out\ntotspawns=1\nspawnssofar=1\nargcnt=1\narg1=x\npreput_num=1\npreput_key_0=k\npreput_val_0=v\ninfo_num=0\nendcmd\n"},
	{true, "mcmd=spawn\nnprocs=1\nexecname=a.out\ntotspawns=2\nspawnssofar=1\nargcnt=0\nendcmd\nmcmd=spawn\nnprocs=2\nexecname=b\ntotspawns=2\nspawnssofar=2\nargcnt=0\nendcmd\n"},
	{true, "mcmd=spawn\nnprocs=1\nexecname=a.out\ntotspawns=2\nspawnssofar=2\nargcnt=0\nendcmd\n"},
	{true, "mcmd=spawn\nnprocs=0\nendcmd\nmcmd=other\nendcmd\n"},
	{true, "mcmd=spawn\nnprocs=1\n"},
	{true, "    40cmd=fullinit;pmijobid=1;pmirank=0;threaded=FALSE;"},
	{true, "cmd=nosuch a=b\ncmd=\n=x\n"},
	{true, "cmd=get value=%zz%4\n\n\n"},
	{true, strings.Repeat("a", pmi.MaxLine+10) + "\n"},
	{true, "cmd=put kvsname=kvs_0 key=k\x00 value=\xff\r\ncmd=finalize"},
}

// FuzzServe feeds one connection's bytes to the PMI-1 server (mpirun's
// side of the wire): it never panics, always ends when the input does,
// and answers only with well-formed lines.
func FuzzServe(f *testing.F) {
	fuzzseed.Add(f, serveSeeds...)
	f.Fuzz(func(t *testing.T, fdMode bool, in string) {
		spawned := 0
		s, err := New(Config{Size: 1, KVSName: "kvs_0", Spawn: func(rank int, blocks []*pmi.SpawnBlock) ([]int, error) {
			spawned += len(blocks)
			counts := make([]int, len(blocks))
			for i, b := range blocks {
				counts[i] = b.Cmd.N
			}
			return counts, nil
		}})
		if err != nil {
			t.Fatal(err)
		}
		rank := -1
		if fdMode {
			rank = 0
		}
		c := &rwc{r: strings.NewReader(in)}
		s.Serve(rank, c) // returns at the end of the input
		if spawned > 1<<16 {
			t.Fatalf("%d spawn blocks", spawned)
		}
	})
}
