# Sums a trace of trace.diff's build: tasks by kind, threads' busy time,
# and each round's block and piece tasks.  python3 tran.py TRACE
import sys, collections
ev = [tuple(int(x) if i < 4 else float(x) for i, x in enumerate(l.split())) for l in open(sys.argv[1])]
names = {1: 'list', 2: 'part', 3: 'block', 4: 'zero', 5: 'piece', 6: 'rtask', 10: 'write', 11: 'read', 12: 'levels', 13: 'total'}
tot = [e for e in ev if e[1] == 13][0][5]
print("total %.1f ms" % (tot * 1e3))
agg = collections.defaultdict(lambda: [0, 0.0])
for th, t, q, k, t0, t1 in ev:
    agg[names[t]][0] += 1
    agg[names[t]][1] += t1 - t0
for n, (c, s) in sorted(agg.items()):
    print("%-7s n=%4d sum %.1f ms" % (n, c, s * 1e3))
reads = [e for e in ev if e[1] == 11]
print("reads: first start %.1f ms, last end %.1f ms" % (reads[0][4] * 1e3, reads[-1][5] * 1e3))
ths = sorted(set(e[0] for e in ev if e[0] >= 0))
busy = sum(e[5] - e[4] for e in ev if e[0] >= 0)
print("threads %d busy %.1f ms of %.1f (%.0f%%)" % (len(ths), busy * 1e3, len(ths) * tot * 1e3, 100 * busy / (len(ths) * tot)))
print("first task %.1f ms, last task end %.1f ms" % (min(e[4] for e in ev if e[0] >= 0) * 1e3, max(e[5] for e in ev if e[0] >= 0) * 1e3))
for kind in (3, 5, 1, 2):
    rounds = collections.defaultdict(list)
    for e in ev:
        if e[1] == kind:
            rounds[e[2]].append(e)
    for q in sorted(rounds):
        r = rounds[q]
        print("%-5s round %3d: %2d, start %.1f-%.1f end %.1f-%.1f ms, mean %.1f" % (names[kind], q, len(r), min(e[4] for e in r) * 1e3, max(e[4] for e in r) * 1e3, min(e[5] for e in r) * 1e3, max(e[5] for e in r) * 1e3, 1e3 * sum(e[5] - e[4] for e in r) / len(r)))
for e in ev:
    if e[1] == 10:
        print("write round %d at %.1f-%.1f" % (e[2], e[4] * 1e3, e[5] * 1e3))
# idle per thread in 10 ms slices
if len(ths) > 1:
    sl = int(tot * 100) + 1
    b = [0.0] * sl
    for e in ev:
        if e[0] >= 0:
            for s in range(int(e[4] * 100), int(e[5] * 100) + 1):
                lo, hi = max(e[4], s / 100), min(e[5], (s + 1) / 100)
                if hi > lo:
                    b[s] += hi - lo
    print("busy threads per 10 ms: " + " ".join("%.1f" % (x * 100) for x in b))
