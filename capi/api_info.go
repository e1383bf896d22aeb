package main

import (
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

func MPI_Info_create(info *int32) int32 {
	const fn = "MPI_Info_create"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if info == nil {
		return badPointer(fn, "info")
	}
	*info = int32(world.AddInfo(mpirt.NewInfo()))
	return 0
}

func MPI_Info_create_env(argc int32, argv unsafe.Pointer, info *int32) int32 {
	const fn = "MPI_Info_create_env"
	if info == nil {
		return badPointer(fn, "info")
	}
	if world == nil {
		// Callable before MPI_Init; there is no world to keep the handle.
		return failf(fn, nil, mpirt.ErrOther, "called before MPI_Init (not supported by gmpi)")
	}
	*info = int32(world.AddInfo(world.InfoEnv().Dup()))
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
	*newinfo = int32(world.AddInfo(in.Dup()))
	return 0
}

func MPI_Info_free(infoH *int32) int32 {
	const fn = "MPI_Info_free"
	if !active(fn) {
		return int32(mpirt.ErrOther)
	}
	if infoH == nil {
		return badPointer(fn, "info")
	}
	if _, rc := infoArg(fn, nil, *infoH, "info", false); rc != 0 {
		return rc
	}
	if *infoH == int32(mpirt.HandleInfoEnv) {
		return failf(fn, nil, mpirt.ErrInfo, "invalid info argument info: MPI_INFO_ENV cannot be freed")
	}
	world.FreeInfo(mpirt.Handle(*infoH))
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

// activeInfo resolves the info argument of the MPI_Info_* calls (after
// checking that MPI is initialized).
func activeInfo(fn string, infoH int32) (*mpirt.Info, int32) {
	if !active(fn) {
		return nil, int32(mpirt.ErrOther)
	}
	return infoArg(fn, nil, infoH, "info", false)
}
