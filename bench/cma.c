/* cma.c: how fast process_vm_readv moves a buffer here, against memcpy (the
 * numbers behind GMPI_SHM_CMA being off by default; see README.md).
 * Build: cc -O2 -o cma bench/cma.c; run: ./cma BYTES ITERATIONS */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int argc,char**argv){
  size_t n = argc>1? atol(argv[1]) : 4<<20; int iters = argc>2?atoi(argv[2]):200;
  char *src = aligned_alloc(4096, n), *dst = aligned_alloc(4096, n);
  memset(src, 1, n); memset(dst, 2, n);
  int p2c[2], c2p[2]; pipe(p2c); pipe(c2p);
  pid_t pid = fork();
  if (pid == 0) { // child: owns src; on command 'w', writes second half of src into parent's dst
    char cmd; unsigned long addr;
    while (read(p2c[0], &cmd, 1) == 1) {
      if (cmd == 'q') break;
      read(p2c[0], &addr, sizeof addr);
      struct iovec l = {src + n/2, n - n/2}, r = {(void*)(addr + n/2), n - n/2};
      process_vm_writev(getppid(), &l, 1, &r, 1, 0);
      write(c2p[1], "d", 1);
    }
    _exit(0);
  }
  // memcpy baseline
  double t = now(); for (int i=0;i<iters;i++){ memcpy(dst, src, n); __asm__ volatile("" ::: "memory"); } t = now()-t;
  printf("memcpy         %7.2f GB/s\n", n*(double)iters/t/1e9);
  // single reader: read whole child src (same address in child after fork)
  t = now();
  for (int i=0;i<iters;i++){ struct iovec l={dst,n}, r={src,n}; process_vm_readv(pid,&l,1,&r,1,0);} t=now()-t;
  printf("readv whole    %7.2f GB/s\n", n*(double)iters/t/1e9);
  // split: child writes second half while we read first half
  t = now();
  for (int i=0;i<iters;i++){
    unsigned long a=(unsigned long)dst; write(p2c[1],"w",1); write(p2c[1],&a,sizeof a);
    struct iovec l={dst,n/2}, r={src,n/2}; process_vm_readv(pid,&l,1,&r,1,0);
    char c; read(c2p[0],&c,1);
  } t=now()-t;
  printf("split r/w      %7.2f GB/s\n", n*(double)iters/t/1e9);
  write(p2c[1],"q",1); wait(NULL);
  return 0;
}
