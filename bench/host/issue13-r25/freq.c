#include <stdio.h>
#include <time.h>
int main(){struct timespec a,b; unsigned long x=1,n=400000000UL; clock_gettime(CLOCK_MONOTONIC,&a);
for(unsigned long i=0;i<n;i++){ __asm__ volatile("imul %0, %0\n\timul %0, %0\n\timul %0, %0\n\timul %0, %0":"+r"(x)); }
clock_gettime(CLOCK_MONOTONIC,&b); double t=(b.tv_sec-a.tv_sec)+1e-9*(b.tv_nsec-a.tv_nsec); printf("%.2f GHz (x=%lu)\n", 12.0*n/t/1e9,x);}
