#!/usr/bin/env bash
# Creates (once) the Python environment of the OTLP receiver used by tests/export/otlp.rs:
# the official OpenTelemetry protobuf definitions and protobuf, pinned. Idempotent.
# Usage: tests/export/otlp-venv.sh DIR   (prints DIR/bin/python)
set -euo pipefail
dir="${1:?usage: otlp-venv.sh DIR}"
pins=(opentelemetry-proto==1.45.2 protobuf==7.36.2)
if ! "$dir/bin/python" -c 'import opentelemetry.proto.collector.logs.v1.logs_service_pb2' >/dev/null 2>&1; then
  python3 -m venv "$dir"
  "$dir/bin/python" -m pip install --quiet --disable-pip-version-check "${pins[@]}"
fi
echo "$dir/bin/python"
