#!/usr/bin/env bash
# Builds the Nyala server image from the distribution (docs/docker.md):
#   ./mvnw -B -DskipTests package && docker/build-image.sh [TAG]
# TAG defaults to nyala:dev. BASE_IMAGE (a Java 17 runtime with bash) defaults to
# nyala-base:bookworm when docker/engine.sh has built it, else to the Dockerfile's default.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
tag="${1:-nyala:dev}"
lib="$root/minicluster/target/dist/lib"
[ -d "$lib" ] || { echo "no $lib: run ./mvnw -B -DskipTests package first" >&2; exit 1; }
base="${BASE_IMAGE:-}"
if [ -z "$base" ] && docker image inspect nyala-base:bookworm >/dev/null 2>&1; then
  base=nyala-base:bookworm
fi
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
mkdir "$ctx/nyala"
cp -r "$lib" "$ctx/nyala/lib"
cp "$root"/docker/image/{entrypoint.sh,healthcheck.sh} "$ctx/nyala/"
cp "$root"/docker/image/Dockerfile "$ctx/"
docker build -t "$tag" ${base:+--build-arg BASE_IMAGE="$base"} "$ctx"
