/* gmpi_gettid: the calling thread's id, cached per thread (the runtime
 * asks on every MPI call while background progress runs; see
 * runtime.SetThreadID). A child of fork(2) forgets the cached id: its
 * only thread, the one that forked, has an id of its own. */
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

static __thread int tid;

static void forget_tid(void)
{
    tid = 0;
}

__attribute__((constructor)) static void gmpi_tid_init(void)
{
    pthread_atfork(NULL, NULL, forget_tid);
}

int gmpi_gettid(void)
{
    if (tid == 0)
        tid = (int)syscall(SYS_gettid);
    return tid;
}
