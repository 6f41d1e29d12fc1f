import asyncio, sys, re
from pathlib import Path
import bench.play as bp
WRAP = ("import sys, gc, time\n"
        "_t = [0.0]\n"
        "def cb(phase, info):\n"
        "    if phase == 'start': _t[0] = time.perf_counter()\n"
        "    else:\n"
        "        d = (time.perf_counter() - _t[0]) * 1000\n"
        "        if d > 50: print(f'GC gen{info[\"generation\"]} {d:.0f} ms collected {info[\"collected\"]}', file=sys.stderr, flush=True)\n"
        "gc.callbacks.append(cb)\n"
        "gc.set_threshold(20000, 5, 1000)\n"
        "from server.cli import main; sys.exit(main(sys.argv[1:]))")
orig_start = bp.Server.start
def start(self):
    import subprocess, time, os
    command = [sys.executable, "-c", WRAP, "serve", "--host", "127.0.0.1", "--port", "0",
               "--data-dir", self.dir.name, "--public-name", "localhost", "--max-sessions", str(self.sessions + 20)]
    log = open(Path(self.dir.name) / "server.log", "wb")
    self.proc = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = (Path(self.dir.name) / "server.log").read_text(errors="replace")
        m = re.search(r"listening on .*?:(\d+)", text)
        if m: self.port = int(m.group(1)); return
        time.sleep(0.05)
bp.Server.start = start
orig_stop = bp.Server.stop
def stop(self):
    text = (Path(self.dir.name) / "server.log").read_text(errors="replace")
    print("\n".join(l for l in text.splitlines() if l.startswith("GC"))[-3000:], file=sys.stderr)
    orig_stop(self)
bp.Server.stop = stop
rows = asyncio.run(bp.run_size(200, 30, 3.0, [], 1))
print({k: rows[k] for k in ("pick p50", "pick p95", "pick p99")}, file=sys.stderr)
