"""Peer: uvicorn + Starlette with the ring scene's logic.

    Benchmarks/.venv/bin/python Benchmarks/peers/python_starlette.py PORT

One uvicorn worker, its default loop and HTTP implementation as installed
(pure-Python h11 unless uvloop/httptools are present; run.sh installs only
uvicorn and starlette). Routes and JSON shapes as node-ring.js and hitroute.
"""

import os
import sys

import uvicorn
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

sys.path.insert(0, os.path.dirname(__file__))
import ring_logic  # noqa: E402

MEDIA = "application/json; charset=utf-8"


async def hit(request):
    if request.method == "GET":
        status, body = ring_logic.answer_hit_query(request.url.query)
    else:
        status, body = ring_logic.answer_hit_body(await request.body())
    return Response(body, status_code=status, media_type=MEDIA)


async def hits(request):
    status, body = ring_logic.answer_hits_body(await request.body())
    return Response(body, status_code=status, media_type=MEDIA)


async def healthz(request):
    return Response(b'{"status":"ok"}', media_type=MEDIA)


app = Starlette(routes=[
    Route("/scenes/{id}/hit", hit, methods=["GET", "POST"]),
    Route("/scenes/{id}/hits", hits, methods=["POST"]),
    Route("/healthz", healthz),
])

if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18084
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning", access_log=False)
