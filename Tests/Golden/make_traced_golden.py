#!/usr/bin/env python3
"""Writes traced-answers.txt: the exact answer bytes of a hitroute binary to
every request of traced-requests.txt, in order, on one keep-alive connection.

    python3 Tests/Golden/make_traced_golden.py HITROUTE_BINARY

Run once, with a binary built from a commit whose answers are right; the
test TracedGoldenTests replays the same requests in process and fails when
any byte differs. A request line is `METHOD TARGET [BODY]`; for PUT the body
names a file under this folder and only the status is kept. The answer line
is `STATUS BODY`.
"""
import http.client
import os
import socket
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    binary = sys.argv[1]
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
    server = subprocess.Popen(["timeout", "120", binary, "--port", str(port), "--quiet", "--threads", "1"])
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        out = []
        for line in open(os.path.join(HERE, "traced-requests.txt")):
            method, target, *rest = line.rstrip("\n").split(" ", 2)
            if method == "PUT":
                body = open(os.path.join(HERE, rest[0]), "rb").read()
            else:
                body = rest[0].encode() if rest else None
            headers = {"Content-Type": "application/json"} if body is not None else {}
            conn.request(method, target, body=body, headers=headers)
            reply = conn.getresponse()
            data = reply.read()
            out.append(f"{reply.status}" if method == "PUT" else f"{reply.status} {data.decode()}")
        open(os.path.join(HERE, "traced-answers.txt"), "w").write("\n".join(out) + "\n")
        print(f"{len(out)} answers written")
    finally:
        server.terminate()
        server.wait()


if __name__ == "__main__":
    main()
