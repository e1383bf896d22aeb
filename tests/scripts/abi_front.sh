#!/bin/bash
# abi_front.sh BUILD ABI [NAME:NP ...]: the C tests built against another
# family's header run with gmpi's front for that ABI (README, "ABI fronts").
#
#   ABI=openmpi   each program is compiled and linked with Debian's
#                 mpicc.openmpi (Open MPI's own header, NEEDED libmpi.so.40)
#                 and run under our mpirun with build/openmpi/lib first on
#                 the loader path; a few are also built with our own
#                 build/openmpi/bin/mpicc; then one job mixes an MPICH-ABI
#                 and an Open MPI-ABI build of the same programs.
#   ABI=standard  compiled with build/bin/mpicc_abi (the MPI-5 ABI header)
#                 against build/abi/lib/libmpi_abi.so.
#   ABI=mpich     compiled and linked with Debian's mpicc.mpich (MPICH's own
#                 header, NEEDED libmpich.so.12) and run with build/lib
#                 first on the loader path: the MPICH front with the
#                 family's header (ctest builds tests/c with ours). A
#                 program that does not link against Debian's libmpich
#                 (convmem: the MPI-4 f08 status conversions it lacks) is
#                 built with build/bin/mpicc instead. MPICH's own test
#                 programs (errcodes_mpich, dtop_mpich) and hello join the
#                 selection.
#
# Without NAME:NP arguments the default selection below runs. Each program
# must exit 0 and print " No Errors".
set -u
BUILD=$(cd "${1:?usage: $0 BUILD ABI [NAME:NP ...]}" && pwd)
ABI=${2:?usage: $0 BUILD ABI [NAME:NP ...]}
shift 2
. "$(dirname "$0")/lib.sh"
need_build
src=$(cd "$(dirname "$0")/../c" && pwd)

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
    # Every program of tests/c/testlist that either header can build, at
    # one of its process counts, except (see the README, "ABI fronts"):
    #   errcodes_mpich, dtop_mpich  MPICH's own numbering and datatype
    #       choices (library codes <= MPICH's MPI_ERR_LASTCODE,
    #       MPI_INTEGER16 == MPI_DATATYPE_NULL);
    #   attrs, topoattr, g2topo  gmpi's MPICHX_TOPOLOGY_* attributes, which
    #       only the MPICH-ABI header names;
    #   hello  asserts MPICH's five-int MPI_Status.
    # convmem (Fortran status conversions, MPI_F_STATUS_SIZE, MPI_F08_status)
    # needs names Open MPI 4.1's header lacks: built with ours.
    # Programs using MPI-4 names that Open MPI 4.1's header lacks
    # (commcreate, comm_err: MPI_COMM_TYPE_HW_GUIDED; sessions:
    # MPI_SESSION_NULL; errhandler_err: MPI_ERRORS_ABORT, and Open MPI's
    # header turns the removed MPI-1 names it calls into errors) are built
    # with our Open MPI-ABI header, which has them.
    tests=(ring:4 cpi:4 status:2 errhandler:2 collectives:4 groups:4 topo:4 info:2
        errhandler_user:2 commfree:2 dtypes:2 pack:2 userop:4 p2p_more:2 intercomm:4
        neighbor:4 typeattr:2 splitprop:8 commleak:2 p2p_errors:2 mprobe:2 cancel:2
        p2p_semantics:2 p2p_threads:2 groups_err:4 attrs_err:2 info_err:2 topo_err:2
        isendrecv:2 partitioned:2 express:2 bigmsg:2 collall:2 collinter:3 greq:2
        topo_mpich:4 attr_mpich:2 collov:2 coll_err:3 bcast_typemap:2 commgroup_rand:4
        comm_idup:2 status_error:2 threads_sendmany:5 threads_anysrc:5 collshm:4
        coll_typesig:3 info_preinit:2 rma_ops:2 rma_shared:3 rma_err:2 badargs:1
        userop_mpi:4 dynerr:1 dynjoin:2 dynspawn:2 file_basic:2 file_access:2
        commcreate:2 comm_err:2 sessions:2 errhandler_err:2 convmem:2 big_count_status:2)
fi

[ "$ABI" = mpich ] && [ $# -eq 0 ] && tests+=(hello:2 errcodes_mpich:1 dtop_mpich:2)

case "$ABI" in
mpich)
    CC_ABI=$(command -v mpicc.mpich) || skip "mpicc.mpich is not installed (libmpich-dev)"
    LIBDIR=$BUILD/lib
    [ -e "$LIBDIR/libmpich.so.12" ] || fail "$LIBDIR/libmpich.so.12 is missing (build first)"
    ;;
openmpi)
    CC_ABI=$(command -v mpicc.openmpi) || skip "mpicc.openmpi is not installed (libopenmpi-dev)"
    LIBDIR=$BUILD/openmpi/lib
    [ -e "$LIBDIR/libmpi.so.40" ] || fail "$LIBDIR/libmpi.so.40 is missing (build first)"
    ;;
standard)
    CC_ABI=$BUILD/bin/mpicc_abi
    LIBDIR=$BUILD/abi/lib
    [ -e "$LIBDIR/libmpi_abi.so" ] || fail "$LIBDIR/libmpi_abi.so is missing (build first)"
    ;;
*) fail "unknown ABI $ABI (openmpi or standard)" ;;
esac

dir=$(mktemp -d "${TMPDIR:-/tmp}/gmpi-abi-$ABI.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# build CC OUTDIR NAME: compiles tests/c/NAME.c with mtest.c.
build() {
    local cc=$1 out=$2 name=$3
    mkdir -p "$out"
    [ -e "$out/mtest.o" ] || $cc -c -o "$out/mtest.o" "$src/mtest.c" || return 1
    $cc -O1 -o "$out/$name" "$src/$name.c" "$out/mtest.o" -lm
}

# run NP PROG...: one job under our mpirun with the front first on the
# loader path; passes on exit 0 and " No Errors".
run() {
    local np=$1
    shift
    local out
    out=$(LD_LIBRARY_PATH=$LIBDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
        timeout 300 "$BUILD/bin/mpirun" -n "$np" --timeout 240 -x LD_LIBRARY_PATH "$@" 2>&1 </dev/null)
    local rc=$?
    if [ $rc -ne 0 ] || ! grep -q ' No Errors' <<<"$out"; then
        echo "$out" | excerpt 30
        echo "exit status $rc"
        return 1
    fi
}

failed=()
own=()
for t in "${tests[@]}"; do
    name=${t%%:*} np=${t##*:}
    if ! build "$CC_ABI" "$dir/bin" "$name" >"$dir/cc.log" 2>&1; then
        # Open MPI 4.1's header has no MPI-4 functions (the large-count
        # _c variants, MPI_Isendrecv, ...): such a test is built with our
        # own Open MPI-ABI header, which declares the whole API.
        owncc=
        [ "$ABI" = openmpi ] && owncc=$BUILD/openmpi/bin/mpicc
        [ "$ABI" = mpich ] && owncc=$BUILD/bin/mpicc
        if [ -n "$owncc" ] && build "$owncc" "$dir/own" "$name" >"$dir/cc2.log" 2>&1; then
            cp "$dir/own/$name" "$dir/bin/$name"
            own+=("$name")
        else
            cat "$dir/cc.log" "$dir/cc2.log" 2>/dev/null | grep -E "error" | head -5
            failed+=("$name(compile)")
            continue
        fi
    fi
    # The program must resolve its MPI library to our front.
    soname=
    [ "$ABI" = openmpi ] && soname=libmpi.so.40
    [ "$ABI" = mpich ] && ! [[ " ${own[*]} " == *" $name "* ]] && soname=libmpich.so.12
    if [ -n "$soname" ]; then
        lib=$(LD_LIBRARY_PATH=$LIBDIR ldd "$dir/bin/$name" | awk -v so="$soname" '$1 == so { print $3 }')
        case "$lib" in
        "$LIBDIR/"*) ;;
        *) fail "$name resolves $soname to '$lib', not $LIBDIR" ;;
        esac
    fi
    t0=$(now)
    if run "$np" "$dir/bin/$name"; then
        echo "ok   $ABI $name -n $np ($(elapsed "$t0") s)"
    else
        echo "FAIL $ABI $name -n $np"
        failed+=("$name:$np")
    fi
done

fsrc=$(cd "$(dirname "$0")/../fronts" && pwd)
# The family's Fortran status layout (tests/fronts/fstatus.c) and its
# MPI_T constants and tool interface (tests/fronts/mpit.c, with a
# GMPI_EAGER_LIMIT it must read back): with the family's own header, and
# for Open MPI also with ours.
fcc=("$CC_ABI")
[ "$ABI" = openmpi ] && fcc+=("$BUILD/openmpi/bin/mpicc")
fprogs=(fstatus mpit)
[ "$ABI" = mpich ] && fprogs=(mpit) # fstatus.c: the other families' Fortran status
for cc in "${fcc[@]}"; do
    for prog in "${fprogs[@]}"; do
        if $cc -O1 -o "$dir/$prog" "$fsrc/$prog.c" >"$dir/cc.log" 2>&1 &&
            GMPI_EAGER_LIMIT=12345 run 2 "$dir/$prog"; then
            echo "ok   $ABI $prog ($(basename "$cc")) -n 2"
        else
            cat "$dir/cc.log"
            failed+=("$prog($(basename "$cc"))")
        fi
    done
done
# MPI_Bcast of count 1 of derived types freed and recreated around every
# call (the same handle each time, another layout), on MPI_COMM_WORLD and
# row/column communicators from every root (tests/fronts/bcast_recycle.c:
# BLACS's pattern in ScaLAPACK's xdsyevr), with the family's header.
if $CC_ABI -O1 -o "$dir/bcast_recycle" "$fsrc/bcast_recycle.c" >"$dir/cc.log" 2>&1 &&
    run 4 "$dir/bcast_recycle"; then
    echo "ok   $ABI bcast_recycle -n 4"
else
    cat "$dir/cc.log"
    failed+=("bcast_recycle")
fi
if [ "$ABI" = openmpi ]; then
    # The same tool interface test with MPICH's values, on our libmpi.so.12.
    if "$BUILD/bin/mpicc" -O1 -o "$dir/mpit_mpich" "$fsrc/mpit.c" >"$dir/cc.log" 2>&1 &&
        out=$(GMPI_EAGER_LIMIT=12345 timeout 300 "$BUILD/bin/mpirun" --timeout 240 -n 2 "$dir/mpit_mpich" 2>&1 </dev/null) &&
        grep -q ' No Errors' <<<"$out"; then
        echo "ok   mpich mpit -n 2"
    else
        cat "$dir/cc.log"
        echo "$out" | excerpt 20
        failed+=("mpit(mpich)")
    fi
fi

if [ "$ABI" = standard ]; then
    # What only the standard ABI has (tests/fronts/abi_version.c).
    if $CC_ABI -O1 -o "$dir/abi_version" "$fsrc/abi_version.c" >"$dir/cc.log" 2>&1 &&
        run 2 "$dir/abi_version"; then
        echo "ok   standard abi_version -n 2"
    else
        cat "$dir/cc.log"
        failed+=("abi_version")
    fi
fi

if [ "$ABI" = openmpi ]; then
    # Our own Open MPI-ABI header must build the same programs
    # (big_count_status: with the MPI-4 _c calls Open MPI 4.1's lacks).
    for name in ring collectives status big_count_status; do
        if build "$BUILD/openmpi/bin/mpicc" "$dir/own" "$name" >"$dir/cc.log" 2>&1 &&
            run 2 "$dir/own/$name"; then
            echo "ok   build/openmpi/bin/mpicc $name -n 2"
        else
            cat "$dir/cc.log"
            failed+=("own-header:$name")
        fi
    done
    # One job, two ABIs: ranks 0-1 built against MPICH's ABI (our
    # libmpi.so.12), ranks 2-3 against Open MPI's (our libmpi.so.40).
    for name in ring p2p_semantics collectives collall; do
        [ -x "$dir/bin/$name" ] || build "$CC_ABI" "$dir/bin" "$name" >"$dir/cc.log" 2>&1 ||
            build "$BUILD/openmpi/bin/mpicc" "$dir/bin" "$name" >>"$dir/cc.log" 2>&1
        if build "$BUILD/bin/mpicc" "$dir/mpich" "$name" >"$dir/cc.log" 2>&1 &&
            out=$(timeout 300 "$BUILD/bin/mpirun" --timeout 240 -n 2 "$dir/mpich/$name" : \
                -n 2 -env LD_LIBRARY_PATH "$LIBDIR" "$dir/bin/$name" 2>&1 </dev/null) &&
            [ "$(grep -c ' No Errors' <<<"$out")" -ge 1 ]; then
            echo "ok   mixed MPICH+Open MPI ABI $name -n 2+2"
        else
            cat "$dir/cc.log"
            echo "$out" | excerpt 20
            failed+=("mixed:$name")
        fi
    done
fi

[ ${#own[@]} -gt 0 ] && echo "built with our own $ABI-ABI header (names or symbols the family's lacks): ${own[*]}"
if [ ${#failed[@]} -gt 0 ]; then
    fail "$ABI front: ${failed[*]}"
fi
echo "PASS: $ABI front (${#tests[@]} programs)"
