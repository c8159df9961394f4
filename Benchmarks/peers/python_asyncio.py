"""Peer: a raw asyncio HTTP/1.1 keep-alive server with the ring scene's logic.

    python3 Benchmarks/peers/python_asyncio.py PORT

Standard library only (asyncio.Protocol, no uvloop). Handles keep-alive and
pipelined requests with Content-Length bodies; the routes and JSON shapes of
node-ring.js and hitroute (POST/GET …/hit, POST …/hits, GET /healthz).
"""

import asyncio
import re
import signal
import sys

sys.path.insert(0, __import__("os").path.dirname(__file__))
import ring_logic  # noqa: E402

ROUTE = re.compile(rb"^/scenes/[A-Za-z0-9._-]+/(hit|hits)$")
REASONS = {200: b"OK", 400: b"Bad Request", 404: b"Not Found", 405: b"Method Not Allowed", 422: b"Unprocessable Content"}


def respond(status, body, keep_alive):
    head = b"HTTP/1.1 %d %s\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: %d\r\n" % (
        status, REASONS.get(status, b"Error"), len(body))
    if not keep_alive:
        head += b"Connection: close\r\n"
    return head + b"\r\n" + body


def handle(method, target, body):
    path, _, query = target.partition(b"?")
    if path == b"/healthz":
        return 200, b'{"status":"ok"}'
    m = ROUTE.match(path)
    if not m:
        return 404, b'{"status":404,"detail":"no route"}'
    kind = m.group(1)
    if method == b"GET" and kind == b"hit":
        return ring_logic.answer_hit_query(query.decode("latin-1"))
    if method != b"POST":
        return 405, b'{"status":405}'
    if kind == b"hit":
        return ring_logic.answer_hit_body(body)
    return ring_logic.answer_hits_body(body)


class HTTPProtocol(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport = transport
        self.buffer = bytearray()

    def data_received(self, data):
        self.buffer += data
        out = []
        while True:
            end = self.buffer.find(b"\r\n\r\n")
            if end < 0:
                if len(self.buffer) > 65536:
                    self.transport.close()
                break
            head = bytes(self.buffer[:end]).split(b"\r\n")
            try:
                method, target, version = head[0].split(b" ", 2)
            except ValueError:
                self.transport.close()
                return
            length = 0
            keep_alive = version == b"HTTP/1.1"
            for line in head[1:]:
                name, _, value = line.partition(b":")
                name = name.strip().lower()
                if name == b"content-length":
                    length = int(value.strip())
                elif name == b"connection":
                    v = value.strip().lower()
                    keep_alive = v == b"keep-alive" or (keep_alive and v != b"close")
            if len(self.buffer) < end + 4 + length:
                break
            body = bytes(self.buffer[end + 4:end + 4 + length])
            del self.buffer[:end + 4 + length]
            status, payload = handle(method, target, body)
            out.append(respond(status, payload, keep_alive))
            if not keep_alive:
                self.transport.write(b"".join(out))
                self.transport.close()
                return
        if out:
            self.transport.write(b"".join(out))


async def main(port):
    loop = asyncio.get_running_loop()
    server = await loop.create_server(HTTPProtocol, "127.0.0.1", port, backlog=1024)
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set_result, None)
    async with server:
        await stop


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]) if len(sys.argv) > 1 else 18083))
