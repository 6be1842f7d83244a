#!/bin/bash
# The image's HEALTHCHECK: healthy once the server's web page /healthz answers 200. Uses bash's
# /dev/tcp, so it needs neither curl nor a second JVM. The port is $NYALA_WEB_PORT, else the
# master's (8051) or the tablet server's (8050) default, whichever answers.
check() {
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'GET /healthz HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
  local status
  read -r -t 2 status <&3 || return 1
  exec 3<&-
  [[ "$status" == *" 200 "* ]]
}
for port in ${NYALA_WEB_PORT:-8051 8050}; do
  check "$port" 2>/dev/null && exit 0
done
exit 1
