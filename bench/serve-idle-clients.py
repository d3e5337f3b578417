#!/usr/bin/env python3
"""One client's idle connections against everyone else (issue 39, point 1).

Starts `togyz-probe serve` (--bin) over --tables on a free loopback port
with its default limits, then for --seconds: one client, 127.0.0.1, keeps
--connections connections open that never send a byte, opening new ones as
the server closes them, while another, 127.0.0.2, asks GET /healthz every
0.3 s (1 s to connect and answer). Prints how many of those were answered.
Loopback only; bounded in connections (at most 2000) and time (at most 60 s).

    python3 bench/serve-idle-clients.py --bin target/release/togyz-probe --tables /tmp/tb8
"""

import argparse
import re
import socket
import subprocess
import threading
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--tables", required=True)
    ap.add_argument("--connections", type=int, default=1100)
    ap.add_argument("--seconds", type=float, default=15)
    args = ap.parse_args()
    n = min(args.connections, 2000)
    seconds = min(args.seconds, 60)
    server = subprocess.Popen(
        [args.bin, "serve", "--tables", args.tables, "--bind", "127.0.0.1:0", "--log-sample", "0"]
        if "--log-sample" in subprocess.run([args.bin, "serve", "--help"], capture_output=True, text=True).stdout
        else [args.bin, "serve", "--tables", args.tables, "--bind", "127.0.0.1:0"],
        stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
    )
    try:
        first = server.stderr.readline()
        port = int(re.search(r"127\.0\.0\.1:([0-9]+)", first).group(1))
        # The server's log (unsampled on the older build) is read and dropped.
        threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
        stop = time.monotonic() + seconds
        opened = [0]

        def hog():
            held = []
            while time.monotonic() < stop:
                # Drop the connections the server closed.
                alive = []
                for s in held:
                    try:
                        s.setblocking(False)
                        if s.recv(1) == b"":
                            s.close()
                            continue
                    except BlockingIOError:
                        pass
                    except OSError:
                        s.close()
                        continue
                    alive.append(s)
                held = alive
                while len(held) < n and time.monotonic() < stop:
                    s = socket.socket()
                    s.bind(("127.0.0.1", 0))
                    s.settimeout(1)
                    try:
                        s.connect(("127.0.0.1", port))
                    except OSError:
                        s.close()
                        break
                    held.append(s)
                    opened[0] += 1
                time.sleep(0.05)
            for s in held:
                s.close()

        t = threading.Thread(target=hog)
        t.start()
        time.sleep(1)
        asked = answered = 0
        while time.monotonic() < stop:
            asked += 1
            s = socket.socket()
            s.bind(("127.0.0.2", 0))
            s.settimeout(1)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(b"GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                if s.recv(64).startswith(b"HTTP/1.1 200"):
                    answered += 1
            except OSError:
                pass
            finally:
                s.close()
            time.sleep(0.3)
        t.join()
        print(f"{args.bin}: {n} idle connections of 127.0.0.1 for {seconds:g} s "
              f"({opened[0]} opened in all); /healthz from 127.0.0.2 answered {answered} of {asked}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
