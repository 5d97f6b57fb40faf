#!/bin/sh
# The program our plugin runs (`<program> --agent NAME <subcommand>`, the payload on stdin),
# for recording: the recorder (record.sh) under the payload's own event name (the plugin
# writes compact JSON, `hook_event_name` first: `session.idle`, `tool_call`, …).
input=$(cat)
ev=$(printf '%s' "$input" | sed -n 's/^{"hook_event_name":"\([^"]*\)".*/\1/p')
printf '%s\n' "$input" | exec sh "$(dirname "$0")/record.sh" "${ev:-$3}"
