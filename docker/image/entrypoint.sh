#!/bin/sh
# Runs `nyala <role> [flags]`; data under /var/lib/nyala unless flags say otherwise.
set -e
role="${1:-master}"
shift || true
exec java ${NYALA_JAVA_OPTS:-} -Djava.util.logging.manager=org.apache.logging.log4j.jul.LogManager \
  -cp '/opt/nyala/lib/*' io.nyala.minicluster.cli.NyalaCommand "$role" \
  --fs_data_dirs=/var/lib/nyala/data --fs_wal_dir=/var/lib/nyala/wal "$@"
