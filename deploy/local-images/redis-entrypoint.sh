#!/bin/sh
# As the official image: the data directory belongs to redis, the server runs as redis, and protected
# mode is off (the official image builds it so), since the other containers reach it over the network.
set -eu
if [ "${1:-}" = redis-server ]; then
    if [ "$(id -u)" = 0 ]; then
        chown -R redis:redis /data
        exec setpriv --reuid=redis --regid=redis --init-groups sh "$0" "$@"
    fi
    shift
    exec redis-server --protected-mode no "$@"
fi
exec "$@"
