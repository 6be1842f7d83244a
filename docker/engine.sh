#!/usr/bin/env bash
# Makes a Docker engine and the base image available for the docker module's tests
# (docs/docker.md): `docker/engine.sh` before `./mvnw -B verify`, `docker/engine.sh stop` after.
# .ci/run calls both, with NYALA_DOCKER_MARKER naming a file of its own.
#
# - An engine whose socket answers is used as it is.
# - Otherwise, as root with apt: installs docker.io (and debootstrap) if missing and starts
#   dockerd in the background with the overlay2 storage driver where the kernel and the file
#   system under /var/lib/docker take it, else vfs; writes $NYALA_DOCKER_MARKER so that
#   `docker/engine.sh stop` (run by .ci/run's trap) stops only a dockerd this script started.
# - Where that is impossible it writes the reason to $NYALA_DOCKER_UNAVAILABLE_FILE; the Docker
#   tests then skip with that reason.
# - Builds nyala-base:bookworm (Debian minbase + OpenJDK 17 JRE + curl) unless the tag exists,
#   and installs docker-compose when no compose is present.
set -uo pipefail

NYALA_DOCKER_STATE="${NYALA_DOCKER_STATE:-${TMPDIR:-/tmp}/nyala-docker}"
NYALA_DOCKER_MARKER="${NYALA_DOCKER_MARKER:-$NYALA_DOCKER_STATE/dockerd.pid}"
NYALA_DOCKER_UNAVAILABLE_FILE="$NYALA_DOCKER_STATE/unavailable"
NYALA_BASE_IMAGE="${NYALA_BASE_IMAGE:-nyala-base:bookworm}"
SOCKET=/var/run/docker.sock

engine_log() { echo "[docker/engine.sh] $*" >&2; }

engine_answers() {
  command -v docker >/dev/null 2>&1 && docker version --format '{{.Server.Version}}' >/dev/null 2>&1
}

engine_unavailable() {
  engine_log "no Docker engine: $1; the Docker tests will be skipped"
  echo "$1" >"$NYALA_DOCKER_UNAVAILABLE_FILE"
  return 1
}

engine_install() {
  local pkgs=()
  command -v dockerd >/dev/null 2>&1 || pkgs+=(docker.io)
  command -v debootstrap >/dev/null 2>&1 || pkgs+=(debootstrap)
  [ ${#pkgs[@]} -eq 0 ] && return 0
  engine_log "installing ${pkgs[*]} with apt-get"
  apt-get update -qq >>"$NYALA_DOCKER_STATE/apt.log" 2>&1 && DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq "${pkgs[@]}" >>"$NYALA_DOCKER_STATE/apt.log" 2>&1
}

engine_start() {
  if [ "$(id -u)" -ne 0 ]; then
    engine_unavailable "not root, so cannot install or start dockerd (start one yourself)"
    return 1
  fi
  if ! command -v apt-get >/dev/null 2>&1 && ! command -v dockerd >/dev/null 2>&1; then
    engine_unavailable "no dockerd and no apt-get to install docker.io"
    return 1
  fi
  engine_install || { engine_unavailable "apt-get could not install docker.io"; return 1; }
  # overlay2 shares layers; vfs copies the whole file system for every layer, build step and
  # container (an image build took 2.5 min instead of 3 s). vfs works everywhere, e.g. where
  # /var/lib/docker is itself on an overlay.
  local driver
  for driver in overlay2 vfs; do
    engine_log "starting dockerd --storage-driver=$driver (log: $NYALA_DOCKER_STATE/dockerd.log)"
    nohup dockerd --storage-driver="$driver" >"$NYALA_DOCKER_STATE/dockerd.log" 2>&1 &
    local pid=$!
    echo "$pid" >"$NYALA_DOCKER_MARKER"
    for _ in $(seq 1 60); do
      engine_answers && return 0
      kill -0 "$pid" 2>/dev/null || break
      sleep 1
    done
    engine_log "dockerd --storage-driver=$driver did not start: $(tail -n 1 \
      "$NYALA_DOCKER_STATE/dockerd.log")"
    kill "$pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 1; done
    rm -f "$NYALA_DOCKER_MARKER"
  done
  engine_unavailable "dockerd did not answer on $SOCKET within 60 s (see $NYALA_DOCKER_STATE/dockerd.log)"
}

# The base image from Debian packages (no registry here): minbase plus the JRE, and curl for an
# operator inside a container (the HEALTHCHECK needs only bash). The mirror is debootstrap's default unless NYALA_DEBIAN_MIRROR is set.
engine_base_image() {
  docker image inspect "$NYALA_BASE_IMAGE" >/dev/null 2>&1 && return 0
  command -v debootstrap >/dev/null 2>&1 || engine_install || true
  if ! command -v debootstrap >/dev/null 2>&1; then
    engine_log "no debootstrap: $NYALA_BASE_IMAGE not built; tests fall back to the Dockerfile's default base"
    return 0
  fi
  local root="$NYALA_DOCKER_STATE/rootfs"
  rm -rf "$root"
  engine_log "building $NYALA_BASE_IMAGE with debootstrap (about a minute)"
  if debootstrap --variant=minbase --include=openjdk-17-jre-headless,curl bookworm "$root" \
      ${NYALA_DEBIAN_MIRROR:-} >"$NYALA_DOCKER_STATE/debootstrap.log" 2>&1; then
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -c . | docker import - "$NYALA_BASE_IMAGE" >/dev/null
    engine_log "built $NYALA_BASE_IMAGE"
  else
    engine_log "debootstrap failed (see $NYALA_DOCKER_STATE/debootstrap.log)"
  fi
  rm -rf "$root"
}

# Compose for docker/compose.yaml and its test: the engine's plugin if present, else Debian's
# docker-compose.
engine_compose() {
  docker compose version >/dev/null 2>&1 && return 0
  command -v docker-compose >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
    engine_log "no docker compose and no root + apt to install docker-compose: ComposeIT skips"
    return 0
  fi
  engine_log "installing docker-compose with apt-get"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose) \
    >>"$NYALA_DOCKER_STATE/apt.log" 2>&1 \
    || engine_log "could not install docker-compose (see $NYALA_DOCKER_STATE/apt.log)"
}

# Stops dockerd only if this script started it.
engine_stop() {
  [ -f "$NYALA_DOCKER_MARKER" ] || return 0
  local pid
  pid="$(cat "$NYALA_DOCKER_MARKER")"
  rm -f "$NYALA_DOCKER_MARKER"
  if kill -0 "$pid" 2>/dev/null; then
    engine_log "stopping dockerd ($pid), which this script started"
    kill "$pid"
    for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || return 0; sleep 1; done
  fi
}

engine_main() {
  mkdir -p "$NYALA_DOCKER_STATE"
  rm -f "$NYALA_DOCKER_UNAVAILABLE_FILE"
  if ! engine_answers; then
    [ -S "$SOCKET" ] && engine_log "$SOCKET does not answer"
    engine_start || return 0
  fi
  engine_base_image
  engine_compose
}

case "${1:-start}" in
  stop) engine_stop ;;
  *) engine_main ;;
esac
