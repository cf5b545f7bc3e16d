import sys, collections
ev=[l.split() for l in open(sys.argv[1])]
ev=[(int(a),int(b),int(c),int(d),float(e),float(f)) for a,b,c,d,e,f in ev]
names={1:'list',2:'part',3:'block',10:'write',11:'read',12:'levels',13:'total',14:'farinit'}
tot=[e for e in ev if e[1]==13][0][5]
print("total %.1f ms"%(tot*1e3))
agg=collections.defaultdict(lambda:[0,0.0])
for th,t,q,k,t0,t1 in ev:
    agg[names[t]][0]+=1; agg[names[t]][1]+=t1-t0
for n,(c,s) in sorted(agg.items()): print("%-7s n=%4d sum %.1f ms"%(n,c,s*1e3))
fi=[e for e in ev if e[1]==14]
if fi: print("farinit %.1f-%.1f"%(fi[0][4]*1e3,fi[0][5]*1e3))
reads=[e for e in ev if e[1]==11]
print("reads: first %.1f ms, last end %.1f ms"%(reads[0][4]*1e3, reads[-1][5]*1e3) if reads else "no reads")
# worker busy timeline
ths=sorted(set(e[0] for e in ev if e[0]>=0))
busy=sum(e[5]-e[4] for e in ev if e[0]>=0)
print("threads %d busy %.1f ms of %.1f (%.0f%%)"%(len(ths),busy*1e3,len(ths)*tot*1e3,100*busy/(len(ths)*tot)))
# first task start, block tasks per round
blocks=[e for e in ev if e[1]==3]
print("first task %.1f ms"%(min(e[4] for e in ev if e[0]>=0)*1e3))
rounds=collections.defaultdict(list)
for e in blocks: rounds[e[2]].append(e)
for q in sorted(rounds):
    r=rounds[q]; print("round %3d: %2d blocks, start %.1f-%.1f end %.1f-%.1f ms, mean %.1f"%(q,len(r),min(e[4] for e in r)*1e3,max(e[4] for e in r)*1e3,min(e[5] for e in r)*1e3,max(e[5] for e in r)*1e3,1e3*sum(e[5]-e[4] for e in r)/len(r)))
parts=collections.defaultdict(list)
for e in ev:
    if e[1]==2: parts[e[2]].append(e)
for q in sorted(parts):
    r=parts[q]; print("parts %3d: %2d, %.1f-%.1f ms sum %.1f"%(q,len(r),min(e[4] for e in r)*1e3,max(e[5] for e in r)*1e3,1e3*sum(e[5]-e[4] for e in r)))
w=[e for e in ev if e[1]==10]
for e in w: print("write round %d at %.1f-%.1f"%(e[2],e[4]*1e3,e[5]*1e3))
