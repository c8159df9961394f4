"""Optional peer: PostGIS with a GiST index answering "topmost polygon per point".

    Benchmarks/.venv/bin/python Benchmarks/peers/postgis_gist.py SCENE.json POINTS.f64 [--points N]

Starts a private, throw-away PostgreSQL cluster (initdb in a temporary
folder, trust auth, fsync off, listening on 127.0.0.1 only, run as the
`postgres` user when we are root), loads the scene's polygons (COPY of WKT),
builds a GiST index, then asks one point per query, as a client would:

    SELECT layer FROM polys
    WHERE ST_Contains(geom, ST_SetSRID(ST_MakePoint(%s, %s), 0))
    ORDER BY layer DESC LIMIT 1

(prepared, one connection, sequential). Needs Debian's
postgresql-NN-postgis-3 and PyPI's psycopg[binary]; run.sh installs both
unless told --no-postgis. harness.py uses the PostGIS class directly.
"""

import argparse
import glob
import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np


def pg_bin():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    if not found:
        return None
    bindir = os.path.dirname(found[-1])
    version = bindir.split("/")[-2]
    if not glob.glob(f"/usr/share/postgresql/{version}/extension/postgis.control"):
        return None
    return bindir


class PostGIS:
    """A private cluster with the scene loaded; `stop()` removes it."""

    def __init__(self, port, lifetime=1800, log=print):
        import psycopg  # noqa: F401  (fail early when missing)

        self.bindir = pg_bin()
        if self.bindir is None:
            raise RuntimeError("no PostgreSQL with PostGIS installed")
        self.port = port
        self.log = log
        self.root = tempfile.mkdtemp(prefix="hitroute-pg-")
        os.chmod(self.root, 0o755)
        self.data = os.path.join(self.root, "data")
        self.as_user = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            user = pwd.getpwnam("postgres")
            os.chown(self.root, user.pw_uid, user.pw_gid)
            self.as_user = ["runuser", "-u", "postgres", "--"]
        subprocess.run(self.as_user + [f"{self.bindir}/initdb", "-D", self.data, "-A", "trust", "-U", "postgres",
                                       "--no-sync"], check=True, capture_output=True, timeout=120)
        self.proc = subprocess.Popen(
            ["timeout", "--signal=TERM", "--kill-after=10", str(lifetime)] + self.as_user +
            [f"{self.bindir}/postgres", "-D", self.data, "-p", str(port), "-k", self.root,
             "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
             "-c", "full_page_writes=off", "-c", "shared_buffers=512MB", "-c", "max_wal_size=4GB",
             "-c", "maintenance_work_mem=512MB"],
            stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.root, "postgres.log"), "ab"),
            start_new_session=True)
        self.conn = self._connect()

    def _connect(self):
        import psycopg

        deadline = time.time() + 60
        while True:
            try:
                return psycopg.connect(host="127.0.0.1", port=self.port, user="postgres", dbname="postgres",
                                       autocommit=True)
            except psycopg.OperationalError:
                if time.time() > deadline or self.proc.poll() is not None:
                    raise
                time.sleep(0.2)

    def load(self, scene_path):
        """Loads the polygons and builds the index: (load s, index s)."""
        with open(scene_path, "rb") as f:
            scene = json.load(f)
        cur = self.conn.cursor()
        cur.execute("CREATE EXTENSION IF NOT EXISTS postgis")
        cur.execute("DROP TABLE IF EXISTS polys")
        cur.execute("CREATE UNLOGGED TABLE polys (layer int NOT NULL, geom geometry(Polygon) NOT NULL)")
        t = time.perf_counter()
        with cur.copy("COPY polys (layer, geom) FROM STDIN") as copy:
            for layer in scene["layers"]:
                shape = layer.get("shape") or {}
                if shape.get("type") != "polygon":
                    continue
                pts = shape["points"] + [shape["points"][0]]
                wkt = "POLYGON((" + ",".join(f"{x!r} {y!r}" for x, y in pts) + "))"
                copy.write_row((int(layer["id"][1:]), wkt))
        loaded = time.perf_counter() - t
        t = time.perf_counter()
        cur.execute("CREATE INDEX polys_gist ON polys USING gist (geom)")
        cur.execute("ANALYZE polys")
        return loaded, time.perf_counter() - t

    def query(self, xy):
        """One prepared query per point, sequentially: (seconds, answers)."""
        cur = self.conn.cursor()
        sql = ("SELECT layer FROM polys WHERE ST_Contains(geom, ST_SetSRID(ST_MakePoint(%s, %s), 0)) "
               "ORDER BY layer DESC LIMIT 1")
        answers = np.full(len(xy), -1, dtype=np.int32)
        t = time.perf_counter()
        for i, (x, y) in enumerate(xy):
            cur.execute(sql, (float(x), float(y)), prepare=True)
            row = cur.fetchone()
            if row:
                answers[i] = row[0]
        return time.perf_counter() - t, answers

    def stop(self):
        try:
            self.conn.close()
        except Exception:
            pass
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait(10)
        shutil.rmtree(self.root, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scene")
    ap.add_argument("points")
    ap.add_argument("--points", dest="count", type=int, default=20_000)
    ap.add_argument("--port", type=int, default=28399)
    a = ap.parse_args()
    xy = np.fromfile(a.points, dtype="<f8").reshape(-1, 2)[:a.count]
    pg = PostGIS(a.port)
    try:
        load_s, index_s = pg.load(a.scene)
        secs, answers = pg.query(xy)
        print(json.dumps({"load_s": load_s, "index_s": index_s, "points": len(xy), "query_s": secs,
                          "queries_per_s": len(xy) / secs, "hits": int((answers >= 0).sum())}))
    finally:
        pg.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
