# syntax=docker/dockerfile:1
#
# hitroute: build a release binary with the Swift standard library linked
# statically, then run it on a slim Debian as an unprivileged user.
#
#   docker build -t hitroute .
#   docker run --rm -p 8080:8080 -v hitroute-data:/data hitroute
#
# Settings are environment variables (HITROUTE_PORT, HITROUTE_THREADS, ...;
# see the README), e.g. `docker run -e HITROUTE_QUIET=1 ...`.

ARG SWIFT_VERSION=6.3

FROM swift:${SWIFT_VERSION}-bookworm AS build
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY openapi.yaml ./
RUN swift build -c release --static-swift-stdlib --product hitroute \
    && install -D -m 0755 .build/release/hitroute /out/hitroute

FROM debian:bookworm-slim
# The binary needs only glibc and libstdc++, both already in the base image.
# The health check below speaks HTTP with bash's /dev/tcp, so no curl is
# installed and the image has no package manager step at all.
RUN useradd --system --uid 10001 --user-group --no-create-home \
        --home-dir /nonexistent --shell /usr/sbin/nologin hitroute \
    && mkdir -p /data && chown 10001:10001 /data
COPY --from=build /out/hitroute /usr/local/bin/hitroute
USER 10001:10001
# The journal and snapshots live in /data; mount a volume there (docker run
# -v hitroute-data:/data ...) so scenes survive a restart. With --store
# redis://... the scenes live in Redis instead: clear the data directory
# with an empty value (docker run -e HITROUTE_DATA_DIR= ..., as
# deploy/k8s/hitroute.yaml does); an empty variable counts as unset.
ENV HITROUTE_HOST=0.0.0.0 \
    HITROUTE_PORT=8080 \
    HITROUTE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=15s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${HITROUTE_PORT:-8080} && printf 'GET /healthz HTTP/1.1\\r\\nHost: localhost\\r\\nConnection: close\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/hitroute"]
