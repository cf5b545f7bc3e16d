#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/huf.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){ unsigned MT=argc>2?atoi(argv[2]):8, MT2=argc>3?atoi(argv[3]):16;
  FILE*f=fopen(argv[1],"rb"); size_t cap=64<<20; uint8_t*in=malloc(cap); size_t n=fread(in,1,cap,f); fclose(f);
  size_t B=1<<20, nb=n/B; if(nb>24) nb=24; n=nb*B;
  uint8_t*enc=malloc(nb*(B+B/2)); size_t*es=malloc(nb*sizeof(size_t)); uint8_t*out=malloc(n+64);
  void*work=calloc(1,WLZ_HUF_WORK_SIZE); size_t tot=0;
  for(size_t b=0;b<nb;b++){ es[b]=wlz_huf_encode2(in+b*B,B,15,MT,MT2,4,enc+b*(B+B/2),B+B/2,work); tot+=es[b]; if(!es[b]){printf("enc fail\n");return 1;} }
  wlz_huf_tables*t=malloc(sizeof *t); double best=1e9;
  for(int r=0;r<15;r++){ double t0=now(); for(size_t b=0;b<nb;b++) if(wlz_huf_decode(enc+b*(B+B/2),es[b],out+b*B,B,t)){printf("dec fail\n");return 1;} double d=now()-t0; if(d<best)best=d; }
  if(memcmp(in,out,n)){printf("MISMATCH\n");return 1;}
  printf("%s: %.1f%% %.0f MB/s\n",argv[1],100.0*tot/n,n/best/1e6); return 0; }
