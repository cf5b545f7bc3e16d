# Threads busy per 5 ms of a trace (trace-g.diff's build), by task kind:
# python3 timeline.py TRACE
import sys
names = {1: 'list', 2: 'part', 3: 'block', 4: 'zero', 5: 'piece', 6: 'rtask', 10: 'write', 11: 'read', 12: 'levels'}
ev = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1])]
ev = [e for e in ev if e[0] >= 0 and e[1] != 13]
end = max(e[5] for e in ev)
for b in range(int(end * 200) + 1):
    lo, hi = b * 5e-3, (b + 1) * 5e-3
    k = {}
    for e in ev:
        o = min(hi, e[5]) - max(lo, e[4])
        if o > 0:
            k[names[int(e[1])]] = k.get(names[int(e[1])], 0) + o / 5e-3
    print("%3d-%3d ms: %4.1f busy  %s" % (b * 5, b * 5 + 5, sum(k.values()), ' '.join('%s %.1f' % x for x in sorted(k.items()))))
