#!/usr/bin/env bash
# Builds and installs Nyala's artifacts into the local Maven repository, then runs the tests of
# this example project, which depends on them like any project outside the Nyala build would.
# Extra arguments go to both Maven runs, e.g.:
#   examples/user-project/run.sh -o -Dmaven.repo.local=/path/to/repo
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"

echo "run.sh: installing Nyala's artifacts (./mvnw -B install -DskipTests $*)" >&2
./mvnw -B "$@" install -DskipTests

echo "run.sh: testing the user project (examples/user-project)" >&2
./mvnw -B "$@" -f "$HERE/pom.xml" test
