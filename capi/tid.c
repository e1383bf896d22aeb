/* gmpi_gettid: the calling thread's id, cached per thread (the runtime
 * asks on every MPI call while background progress runs; see
 * runtime.SetThreadID). */
#include <sys/syscall.h>
#include <unistd.h>

int gmpi_gettid(void)
{
    static __thread int tid;
    if (tid == 0)
        tid = (int)syscall(SYS_gettid);
    return tid;
}
