package main

import (
	"sync"
	"unsafe"

	mpirt "gmpi/runtime"
)

// infoKey reads and checks a key argument.
func infoKey(fn string, p *byte) (string, int32) {
	if p == nil {
		return "", badPointer(fn, "key")
	}
	k := goString(p, mpirt.MaxInfoKey+2)
	if err := mpirt.CheckInfoKey(fn, k); err != nil {
		return "", fail(fn, nil, err)
	}
	return k, 0
}

// Info objects work before MPI_Init and after MPI_Finalize (MPI 4.0), so
// their handles live in a table of the process, not of the world, and the
// MPI_Info_* calls do not require an initialized library.
var (
	infos        = mpirt.NewHandleTable[*mpirt.Info](mpirt.ObjInfo)
	preInitEnvMu sync.Mutex
	preInitEnv   *mpirt.Info
)

// infoEnv is MPI_INFO_ENV: the world's once MPI is initialized, before
// that what the process knows of itself (no process counts yet).
func infoEnv() *mpirt.Info {
	if w := world; w != nil {
		return w.InfoEnv()
	}
	preInitEnvMu.Lock()
	defer preInitEnvMu.Unlock()
	if preInitEnv == nil {
		preInitEnv = mpirt.EnvInfo(mpirt.Config{})
	}
	return preInitEnv
}

// lookupInfo resolves an info handle: MPI_INFO_ENV or a created info; nil
// for MPI_INFO_NULL and garbage.
func lookupInfo(h mpirt.Handle) *mpirt.Info {
	if h == mpirt.HandleInfoEnv {
		return infoEnv()
	}
	in, _ := infos.Get(h)
	return in
}

func MPI_Info_create(info *int32) int32 {
	const fn = "MPI_Info_create"
	if info == nil {
		return badPointer(fn, "info")
	}
	*info = int32(infos.Add(mpirt.NewInfo()))
	return 0
}

func MPI_Info_create_env(argc int32, argv unsafe.Pointer, info *int32) int32 {
	const fn = "MPI_Info_create_env"
	if info == nil {
		return badPointer(fn, "info")
	}
	*info = int32(infos.Add(infoEnv().Dup()))
	return 0
}

func MPI_Info_set(infoH int32, key, value *byte) int32 {
	const fn = "MPI_Info_set"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	if infoH == int32(mpirt.HandleInfoEnv) {
		return failf(fn, nil, mpirt.ErrInfo, "invalid info argument info: MPI_INFO_ENV cannot be modified")
	}
	k, rc := infoKey(fn, key)
	if rc != 0 {
		return rc
	}
	if value == nil {
		return badPointer(fn, "value")
	}
	v := goString(value, mpirt.MaxInfoVal+2)
	if len(v) > mpirt.MaxInfoVal {
		return failf(fn, nil, mpirt.ErrInfoValue, "invalid info value argument value: longer than MPI_MAX_INFO_VAL (%d)", mpirt.MaxInfoVal)
	}
	in.Set(k, v)
	return 0
}

func MPI_Info_get(infoH int32, key *byte, valuelen int32, value *byte, flag *int32) int32 {
	const fn = "MPI_Info_get"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	k, rc := infoKey(fn, key)
	if rc != 0 {
		return rc
	}
	if valuelen < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument valuelen: %d is negative", valuelen)
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	if value == nil && valuelen > 0 {
		return badPointer(fn, "value")
	}
	v, ok := in.Get(k)
	*flag = b2i(ok)
	if ok && value != nil {
		// valuelen excludes the NUL: the buffer holds valuelen+1 bytes.
		cString(value, int(valuelen)+1, v)
	}
	return 0
}

func MPI_Info_get_valuelen(infoH int32, key *byte, valuelen, flag *int32) int32 {
	const fn = "MPI_Info_get_valuelen"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	k, rc := infoKey(fn, key)
	if rc != 0 {
		return rc
	}
	if valuelen == nil {
		return badPointer(fn, "valuelen")
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	v, ok := in.Get(k)
	*flag = b2i(ok)
	if ok {
		*valuelen = int32(len(v))
	}
	return 0
}

func MPI_Info_get_string(infoH int32, key *byte, buflen *int32, value *byte, flag *int32) int32 {
	const fn = "MPI_Info_get_string"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	k, rc := infoKey(fn, key)
	if rc != 0 {
		return rc
	}
	if buflen == nil {
		return badPointer(fn, "buflen")
	}
	if flag == nil {
		return badPointer(fn, "flag")
	}
	if *buflen < 0 {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument buflen: %d is negative", *buflen)
	}
	if value == nil && *buflen > 0 {
		return badPointer(fn, "value")
	}
	v, ok := in.Get(k)
	*flag = b2i(ok)
	if !ok {
		return 0
	}
	if *buflen > 0 {
		cString(value, int(*buflen), v)
	}
	*buflen = int32(len(v) + 1)
	return 0
}

func MPI_Info_delete(infoH int32, key *byte) int32 {
	const fn = "MPI_Info_delete"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	if infoH == int32(mpirt.HandleInfoEnv) {
		return failf(fn, nil, mpirt.ErrInfo, "invalid info argument info: MPI_INFO_ENV cannot be modified")
	}
	k, rc := infoKey(fn, key)
	if rc != 0 {
		return rc
	}
	if !in.Delete(k) {
		return failf(fn, nil, mpirt.ErrInfoNokey, "invalid info key argument key: %q is not set", k)
	}
	return 0
}

func MPI_Info_dup(infoH int32, newinfo *int32) int32 {
	const fn = "MPI_Info_dup"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	if newinfo == nil {
		return badPointer(fn, "newinfo")
	}
	*newinfo = int32(infos.Add(in.Dup()))
	return 0
}

func MPI_Info_free(infoH *int32) int32 {
	const fn = "MPI_Info_free"
	if infoH == nil {
		return badPointer(fn, "info")
	}
	if _, rc := infoArg(fn, nil, *infoH, "info", false); rc != 0 {
		return rc
	}
	if *infoH == int32(mpirt.HandleInfoEnv) {
		return failf(fn, nil, mpirt.ErrInfo, "invalid info argument info: MPI_INFO_ENV cannot be freed")
	}
	infos.Remove(mpirt.Handle(*infoH))
	*infoH = int32(mpirt.HandleInfoNull)
	return 0
}

func MPI_Info_get_nkeys(infoH int32, nkeys *int32) int32 {
	const fn = "MPI_Info_get_nkeys"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	if nkeys == nil {
		return badPointer(fn, "nkeys")
	}
	*nkeys = int32(in.NKeys())
	return 0
}

func MPI_Info_get_nthkey(infoH int32, n int32, key *byte) int32 {
	const fn = "MPI_Info_get_nthkey"
	in, rc := activeInfo(fn, infoH)
	if rc != 0 {
		return rc
	}
	if key == nil {
		return badPointer(fn, "key")
	}
	k, ok := in.NthKey(int(n))
	if !ok {
		return failf(fn, nil, mpirt.ErrArg, "invalid argument n: %d (the info object has %d keys)", n, in.NKeys())
	}
	cString(key, mpirt.MaxInfoKey+1, k)
	return 0
}

// activeInfo resolves the info argument of the MPI_Info_* calls, which
// MPI 4.0 allows at any time.
func activeInfo(fn string, infoH int32) (*mpirt.Info, int32) {
	return infoArg(fn, nil, infoH, "info", false)
}
