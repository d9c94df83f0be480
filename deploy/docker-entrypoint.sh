#!/bin/bash
# Entrypoint of the openacl-server image: source the installed tree's
# set_env.sh (found at image build time, or given as OPENACL_SET_ENV), then
# replace this shell with the server so it receives SIGTERM directly.
set -e
env_file=${OPENACL_SET_ENV:-}
if [ -z "$env_file" ] && [ -s /etc/openacl-set-env-path ]; then
    env_file=$(cat /etc/openacl-set-env-path)
fi
if [ -z "$env_file" ] || [ ! -r "$env_file" ]; then
    echo "openacl-entrypoint: set_env.sh not found (set OPENACL_SET_ENV)" >&2
    exit 1
fi
# shellcheck disable=SC1090
. "$env_file"
exec openacl-server "$@"
