#!/bin/sh
# Runs `nyala <role> [flags]`; data under /var/lib/nyala (the image's volume) unless flags say
# otherwise.
set -e
role="${1:-master}"
shift || true
# NyalaCluster.withEncryption() hands every server the same cluster key this way; written
# owner-only, as the server requires (docs/encryption.md).
if [ -n "${NYALA_ENCRYPTION_KEY:-}" ] && [ ! -f /var/lib/nyala/cluster.key ]; then
  (umask 077 && echo "$NYALA_ENCRYPTION_KEY" >/var/lib/nyala/cluster.key)
fi
exec java ${NYALA_JAVA_OPTS:-} -Djava.util.logging.manager=org.apache.logging.log4j.jul.LogManager \
  -cp '/opt/nyala/lib/*' io.nyala.minicluster.cli.NyalaCommand "$role" \
  --fs_data_dirs=/var/lib/nyala/data --fs_wal_dir=/var/lib/nyala/wal "$@"
