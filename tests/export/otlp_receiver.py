"""An OTLP/HTTP logs receiver for the export tests: decodes every request with the official
OpenTelemetry protobuf definitions (PyPI opentelemetry-proto) and protobuf's own JSON parser,
which rejects unknown fields, wrong types and malformed values.

Usage: python otlp_receiver.py RESULTS_FILE
Prints the port it listens on (127.0.0.1) as its first line. Appends one JSON line per request
to RESULTS_FILE: {"ok": true, "records": [...]} or {"ok": false, "error": "..."}; answers 200
with an empty ExportLogsServiceResponse, or 400.
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

RESULTS = sys.argv[1]
# Handlers run in threads: one line at a time, so lines never interleave.
WRITING = threading.Lock()


def any_value(v):
    kind = v.WhichOneof("value")
    return None if kind is None else getattr(v, kind)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        result = {"path": self.path, "content_type": self.headers.get("Content-Type")}
        try:
            if self.path != "/v1/logs":
                raise ValueError("wrong path " + self.path)
            if self.headers.get("Content-Type") != "application/json":
                raise ValueError("wrong content type")
            req = json_format.Parse(body, logs_service_pb2.ExportLogsServiceRequest())
            records = []
            for rl in req.resource_logs:
                resource = {a.key: any_value(a.value) for a in rl.resource.attributes}
                for sl in rl.scope_logs:
                    for r in sl.log_records:
                        records.append({
                            "resource": resource,
                            "scope": sl.scope.name,
                            "time_unix_nano": r.time_unix_nano,
                            "severity_number": r.severity_number,
                            "event_name": r.event_name,
                            "body": r.body.string_value,
                            "attributes": {a.key: any_value(a.value) for a in r.attributes},
                        })
            result.update(ok=True, records=records)
            status, answer = 200, b"{}"
        except Exception as e:  # any decoding failure is the finding
            result.update(ok=False, error=repr(e))
            status, answer = 400, json.dumps({"error": repr(e)}).encode()
        with WRITING, open(RESULTS, "a") as f:
            f.write(json.dumps(result) + "\n")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
