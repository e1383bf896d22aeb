/* nbmin.c: min and median of reps of short loops of small collectives
 * (allreduce, iallreduce_block, iallreduce_ovl, reduce, gather, scan,
 * scatter, bcast, allgather, alltoall), for A/B under load:
 *   nbmin BYTES ITERS REPS COMPUTE_USEC(-1: 1) OPS(comma list or all) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
static volatile double sink;
static void compute(double usec){double end=now()+usec*1e-6,x=1;while(now()<end)for(int i=0;i<100;i++)x=x*1.0000001+1e-9;sink=x;}
int main(int argc,char**argv){
  int rank,n; MPI_Init(&argc,&argv); MPI_Comm_rank(MPI_COMM_WORLD,&rank); MPI_Comm_size(MPI_COMM_WORLD,&n);
  long bytes = argc>1? atol(argv[1]) : 8; int iters = argc>2? atoi(argv[2]):200, reps = argc>3? atoi(argv[3]):30;
  double comp = argc>4? atof(argv[4]) : -1;
  const char *which = argc>5 ? argv[5] : "all";
  double *s = malloc(bytes*n+8), *r = malloc(bytes*n+8); for(long i=0;i<bytes/8*n;i++) s[i]=rank+1;
  int cnt = (int)(bytes/8);
  const char *names[]={"allreduce","iallreduce_block","iallreduce_ovl","reduce","gather","scan","scatter","bcast","allgather","alltoall"};
  for(int op=0;op<10;op++){
    {char a[256],b[64];snprintf(a,sizeof a,",%s,",which);snprintf(b,sizeof b,",%s,",names[op]);if(strcmp(which,"all")&&!strstr(a,b))continue;}
    double best=1e9, cpu=1e9, all[64]; int na=0;
    for(int rep=0;rep<reps;rep++){
      MPI_Barrier(MPI_COMM_WORLD);
      struct timespec c0,c1; clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&c0);
      double t=now();
      for(int i=0;i<iters;i++){
        MPI_Request q;
        switch(op){
        case 0: MPI_Allreduce(s,r,cnt,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD); break;
        case 1: MPI_Iallreduce(s,r,cnt,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD,&q); MPI_Wait(&q,MPI_STATUS_IGNORE); break;
        case 2: MPI_Iallreduce(s,r,cnt,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD,&q); compute(comp<0?1:comp); MPI_Wait(&q,MPI_STATUS_IGNORE); break;
        case 3: MPI_Reduce(s,r,cnt,MPI_DOUBLE,MPI_SUM,0,MPI_COMM_WORLD); break;
        case 4: MPI_Gather(s,(int)bytes,MPI_BYTE,r,(int)bytes,MPI_BYTE,0,MPI_COMM_WORLD); break;
        case 5: MPI_Scan(s,r,cnt,MPI_DOUBLE,MPI_SUM,MPI_COMM_WORLD); break;
        case 6: MPI_Scatter(s,(int)bytes,MPI_BYTE,r,(int)bytes,MPI_BYTE,0,MPI_COMM_WORLD); break;
        case 7: MPI_Bcast(s,(int)bytes,MPI_BYTE,0,MPI_COMM_WORLD); break;
        case 8: MPI_Allgather(s,(int)bytes,MPI_BYTE,r,(int)bytes,MPI_BYTE,MPI_COMM_WORLD); break;
        case 9: MPI_Alltoall(s,(int)bytes,MPI_BYTE,r,(int)bytes,MPI_BYTE,MPI_COMM_WORLD); break;
        }
      }
      t=(now()-t)/iters*1e6; clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&c1);
      double c=((c1.tv_sec-c0.tv_sec)+(c1.tv_nsec-c0.tv_nsec)*1e-9)/iters*1e6;
      double tm; MPI_Allreduce(&t,&tm,1,MPI_DOUBLE,MPI_MAX,MPI_COMM_WORLD);
      if(tm<best)best=tm; if(na<64) all[na++]=tm; if(c<cpu)cpu=c;
    }
    for(int a=0;a<na;a++)for(int b=a+1;b<na;b++)if(all[b]<all[a]){double x=all[a];all[a]=all[b];all[b]=x;}
    if(rank==0) printf("%-18s %8ld  min %9.3f  med %9.3f us  cpu(r0) %9.3f us\n",names[op],bytes,best,all[na/2],cpu);
  }
  MPI_Finalize(); return 0;}
