#!/usr/bin/env bash
# The agent exports exactly the three JVMTI entry points.
. "$MCT_SRCDIR/tests/setup"

command -v nm >/dev/null || skip "no nm"
got=$(nm -D --defined-only "$MCT_AGENT" | awk '{ print $3 }' | sort | tr '\n' ' ')
want="Agent_OnAttach Agent_OnLoad Agent_OnUnload "
[ "$got" = "$want" ] || fail "the agent exports '$got', want '$want'"
exit 0
