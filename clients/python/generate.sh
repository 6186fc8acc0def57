#!/usr/bin/env bash
# Regenerates steer/steer_pb2.py from wire/steer.proto. The generated module is
# committed so that the package installs without protoc; test_python_proto fails when
# it no longer matches the .proto. Run with Debian 12's protoc (3.21): its output
# works with the protobuf runtime from 3.20 on.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
protoc --python_out="$here/steer" -I"$here/../../wire" "$here/../../wire/steer.proto"
echo "wrote $here/steer/steer_pb2.py" >&2
