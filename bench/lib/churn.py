#!/usr/bin/env python3
"""Clients that come and go as a user's day makes them, against a running usedspaced.

    churn.py clients SOCKET BIN_DIR PATH ROUNDS
        Each round starts and ends one client of every kind the daemon meets: `usedspace
        watch` in each format (killed with SIGKILL, SIGTERM, or its bar's pipes closed),
        `usedspace status` (text, json, a bar format), raw subscribers that vanish in every
        way (close, half-close then close, reset with SO_LINGER 0, close with unread
        updates, disconnect mid-request), and a `subscribe` through socat killed.

    churn.py soak SOCKET CYCLES STAYERS RATE
        CYCLES raw subscribe/disconnect cycles (the same ways of vanishing), RATE a second
        (spread out, so that they interleave with the daemon's publishes), while STAYERS
        subscribers stay connected the whole time and check every update they get: one
        frame per publish, seq strictly increasing by one (a single watched path). Prints
        the stayers' counts; the caller compares them with the daemon's publishes.

Output: "key value" lines on stdout, for the calling script.
"""
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import threading
import time


def connect(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(5)
    s.connect(path)
    return s


def read_frame(sock, buffer):
    """One frame (header + body lines) from sock; returns (header, lines, rest of buffer)."""
    def line():
        nonlocal buffer
        while b"\n" not in buffer:
            chunk = sock.recv(65536)
            if not chunk:
                raise EOFError
            buffer += chunk
        text, _, buffer = buffer.partition(b"\n")
        return text.decode()
    header = line()
    parts = header.split(" ")
    count = int(parts[1]) if parts[0] in ("ok", "update") else 0
    return header, [line() for _ in range(count)], buffer


def vanish(path, way):
    """One raw client that subscribes and goes away in one of the ways clients do."""
    s = connect(path)
    try:
        if way == "mid-request":
            s.send(b"subscribe for")
        else:
            s.send(b"subscribe json\n")
        if way == "answered-then-close":
            read_frame(s, b"")
        elif way == "half-close":
            s.shutdown(socket.SHUT_WR)
            read_frame(s, b"")
        elif way == "reset":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    except (OSError, EOFError):
        pass
    finally:
        s.close()


WAYS = ["close", "answered-then-close", "half-close", "reset", "mid-request"]


def clients(path, bin_dir, watched, rounds):
    env = dict(os.environ, USEDSPACE_SOCKET=path)
    usedspace = os.path.join(bin_dir, "usedspace")
    started = 0
    for round_ in range(rounds):
        for form in ["i3bar", "i3blocks", "polybar", "waybar", "json", "text"]:
            watch = subprocess.Popen([usedspace, "watch", "--format", form, "--path", watched], env=env,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            started += 1
            # Its first line: it is subscribed.
            ready, _, _ = select.select([watch.stdout], [], [], 5)
            if ready:
                os.read(watch.stdout.fileno(), 65536)
            how = round_ % 3
            if how == 0:
                watch.send_signal(signal.SIGKILL)
            elif how == 1:
                watch.send_signal(signal.SIGTERM)
            else:
                # The bar went away: its pipes close; watch sees EPIPE at its next write.
                watch.stdout.close()
                watch.stdin.close()
                watch.send_signal(signal.SIGTERM)
            watch.wait()
        for arguments in (["status"], ["status", "--format", "json"], ["status", "--format", "waybar", "--details"]):
            subprocess.run([usedspace] + arguments + ["--path", watched], env=env, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, check=False)
            started += 1
        for way in WAYS:
            vanish(path, way)
            started += 1
        socat = subprocess.Popen(["socat", "-t", "100000", "-", "UNIX-CONNECT:" + path],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        socat.stdin.write(b"subscribe\n")
        socat.stdin.flush()
        select.select([socat.stdout], [], [], 5)
        socat.kill()
        socat.wait()
        started += 1
    print("clients", started)


class Stayer(threading.Thread):
    def __init__(self, path):
        super().__init__(daemon=True)
        self.sock = connect(path)
        self.sock.settimeout(None)
        self.updates = 0
        self.problems = []
        self.stop = False

    def run(self):
        self.sock.send(b"subscribe json\n")
        buffer = b""
        last = None
        import json
        while not self.stop:
            try:
                header, lines, buffer = read_frame(self.sock, buffer)
            except (OSError, EOFError) as error:
                if not self.stop:
                    self.problems.append("connection lost: %s" % error)
                return
            if not header.startswith(("ok", "update")) or len(lines) != 1:
                self.problems.append("unexpected frame: %r" % header)
                continue
            seq = json.loads(lines[0])["seq"]
            if header.startswith("update"):
                self.updates += 1
                if last is not None and seq != last + 1:
                    self.problems.append("seq %d after %d" % (seq, last))
            last = seq


def soak(path, cycles, stayers, rate):
    group = [Stayer(path) for _ in range(stayers)]
    for stayer in group:
        stayer.start()
    time.sleep(0.5)
    started = time.monotonic()
    done = 0
    while done < cycles:
        vanish(path, WAYS[done % len(WAYS)])
        done += 1
        ahead = started + done / rate - time.monotonic()
        if ahead > 0:
            time.sleep(ahead)
    print("cycles", done)
    print("cycle_seconds", "%.1f" % (time.monotonic() - started))
    # Let the last publish reach everyone.
    time.sleep(1.5)
    for stayer in group:
        stayer.stop = True
    counts = [stayer.updates for stayer in group]
    print("stayer_updates", ",".join(str(c) for c in counts))
    problems = [p for stayer in group for p in stayer.problems]
    print("stayer_problems", len(problems))
    for problem in problems[:10]:
        print("problem", problem.replace(" ", "_"))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "clients" and len(sys.argv) == 6:
        clients(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    elif len(sys.argv) >= 2 and sys.argv[1] == "soak" and len(sys.argv) == 6:
        soak(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    else:
        sys.exit(__doc__)
