#!/bin/sh
# Hook command of the recorder plugin: usage `record.sh <EventName>`.
# * Appends the stdin payload to "$REC_DIR/<nanotime>-<pid>-<Event>.json"
#   (nothing is written when REC_DIR is unset).
# * If "$REC_DIR/respond/<Event>" is executable, the payload is piped into it
#   and its stdout / exit code become the hook's answer (used to measure
#   Stop blocking, additionalContext, ...). Otherwise exits 0 silently.
ev="$1"
input=$(cat)
if [ -n "$REC_DIR" ]; then
  mkdir -p "$REC_DIR"
  printf '%s\n' "$input" > "$REC_DIR/$(date +%s%N)-$$-$ev.json"
  if [ -x "$REC_DIR/respond/$ev" ]; then
    printf '%s\n' "$input" | "$REC_DIR/respond/$ev"
    exit $?
  fi
fi
exit 0
