#!/bin/bash
# A stand-in for the claude binary that records the CPU time of the client and everything it
# waited for (its hooks) — bash's `times`, second line — in $OMC_COST_TIMES. Used by the
# ignored measurement in tests/e2e_user_hooks.rs: OMC_E2E_CLAUDE_BIN=<this> REAL_CLAUDE=<claude>.
"$REAL_CLAUDE" "$@"
rc=$?
if [ -n "$OMC_COST_TIMES" ]; then times > "$OMC_COST_TIMES"; fi
exit $rc
