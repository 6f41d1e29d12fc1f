import asyncio, sys, time
import bench.play as bp
slow = []
orig = bp.Player.data_received
def data_received(self, data, datatype):
    now = time.monotonic()
    for since, needle, into in self.watch:
        if needle == bp.PICKED and (needle in data) and (now - since) > 0.3:
            slow.append((round(now, 2), self.name, round((now - since) * 1000), len(data),
                         data[:120].decode(errors="replace").replace("\x1b", "~")))
    return orig(self, data, datatype)
bp.Player.data_received = data_received
rows = asyncio.run(bp.run_size(100, 30, 3.0, [], 1))
print({k: rows[k] for k in ("pick p50", "pick p95", "picks timed")}, file=sys.stderr)
print(len(slow), "slow", file=sys.stderr)
for s in slow[:25]: print(s, file=sys.stderr)
