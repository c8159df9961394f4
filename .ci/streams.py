"""Live test of GET /scenes/{id}/stream with a real WebSocket client (the
`websockets` package), against the server at $BASE:

    python .ci/streams.py http://127.0.0.1:18080

Checks: the handshake names only hitroute.v1; each message is answered as
POST /scenes/{id}/hit answers the same body, plus seq; a bad message is an
error and the stream stays open; a ping is answered; a patch pushes the
new version; the closing handshake ends with the code echoed; a binary
message closes with 1003, bad UTF-8 with 1007, a message over the limit
with 1009; deleting the scene pushes `deleted` and closes with 4404.
Exits non-zero on the first failure."""
import asyncio, json, sys, urllib.request

import websockets
from websockets.exceptions import ConnectionClosed

BASE = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:18080"
WS = BASE.replace("http://", "ws://")
SCENE = "stream-ci"
RING = {"id": SCENE, "layers": [
    {"id": "button", "action": "below.press", "shape": {"type": "rect", "x": 0, "y": 0, "width": 240, "height": 240}},
    {"id": "ring", "action": "ring.select", "shape": {"type": "compound", "fillRule": "evenodd", "shapes": [
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 120, "ry": 120},
        {"type": "ellipse", "cx": 120, "cy": 120, "rx": 48, "ry": 48}]}}]}


def http(method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(BASE + path, data=data, method=method, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def check(cond, what):
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)


async def expect_close(ws, code, what):
    try:
        while True:
            await asyncio.wait_for(ws.recv(), 30)
    except ConnectionClosed:
        pass
    check(ws.close_code == code, f"{what}: close {ws.close_code} (want {code})")


async def main():
    status, _ = http("PUT", f"/scenes/{SCENE}", RING)
    check(status in (200, 201), f"PUT scene: {status}")
    url = f"{WS}/scenes/{SCENE}/stream"
    async with websockets.connect(url, subprotocols=["hitroute.v1"]) as ws:
        check(ws.subprotocol == "hitroute.v1", "the handshake names hitroute.v1")
        bodies = [{"x": 120, "y": 120}, {"x": 210, "y": 120, "trace": False}, {"x": 10, "y": 10, "all": True}]
        for k, body in enumerate(bodies):
            await ws.send(json.dumps({**body, "seq": k}))
        for k, body in enumerate(bodies):
            answer = json.loads(await asyncio.wait_for(ws.recv(), 30))
            _, expected = http("POST", f"/scenes/{SCENE}/hit", body)
            expected = json.loads(expected)
            check(answer.pop("seq") == k and answer == expected, f"message {k} answered as POST /hit answers it")
        await ws.send('{"x": "left", "seq": "bad"}')
        error = json.loads(await asyncio.wait_for(ws.recv(), 30))
        check(error["type"] == "error" and error["seq"] == "bad" and error["status"] == 422, "a bad message is an error")
        pong = await ws.ping(b"hello")
        await asyncio.wait_for(pong, 30)
        check(True, "a ping is answered")
        status, _ = http("PATCH", f"/scenes/{SCENE}/layers/button", {"action": "pressed"})
        push = json.loads(await asyncio.wait_for(ws.recv(), 30))
        check(status == 200 and push == {"type": "scene", "version": 2}, f"a patch pushes the version: {push}")
        await ws.close(code=1000)
        check(ws.close_code == 1000, "the closing handshake echoes 1000")

    async with websockets.connect(url, subprotocols=["hitroute.v1"]) as ws:
        await ws.send(b"\x00\x01")
        await expect_close(ws, 1003, "a binary message")
    async with websockets.connect(url, subprotocols=["hitroute.v1"], max_size=None) as ws:
        await ws.send("x" * 70_000)
        await expect_close(ws, 1009, "a message over 64 KiB")
    async with websockets.connect(url, subprotocols=["hitroute.v1"]) as ws:
        # Invalid UTF-8 in a text frame: the library would refuse to send it, so write the frame by hand.
        from websockets.frames import Frame, Opcode
        ws.protocol.send_frame(Frame(Opcode.TEXT, b"\xc0\xaf"))
        ws.send_data()
        await expect_close(ws, 1007, "text that is not UTF-8")
    async with websockets.connect(url, subprotocols=["hitroute.v1"]) as ws:
        status, _ = http("DELETE", f"/scenes/{SCENE}")
        push = json.loads(await asyncio.wait_for(ws.recv(), 30))
        check(status == 204 and push == {"type": "scene", "deleted": True}, "deleting pushes deleted")
        await expect_close(ws, 4404, "a deleted scene")
    try:
        async with websockets.connect(url, subprotocols=["hitroute.v1"]):
            check(False, "an unknown scene is refused")
    except websockets.exceptions.InvalidStatus as e:
        check(e.response.status_code == 404, "an unknown scene is a 404 before any upgrade")
    print("streams: all checks passed")


asyncio.run(main())
