#!/bin/sh
# A slow `command` teacher for the repair kill test: it answers without code after a pause,
# naming the trajectory and turn. The call numbered $PTXBENCH_TEST_KILL_AT (once) kills the
# ptxbench process that started it with SIGKILL, as a crash would. Its parent is the keeper of
# its process group; ptxbench is the keeper's parent.
cat >/dev/null
state="$PTXBENCH_TEST_STATE"
echo "$PTXBENCH_TRAJECTORY_ID $PTXBENCH_TURN" >>"$state/calls"
n=$(wc -l <"$state/calls")
sleep 0.3
if [ "$n" -ge "${PTXBENCH_TEST_KILL_AT:-1000000}" ] && mkdir "$state/killed" 2>/dev/null; then
  read -r _ _ _ ptxbench _ <"/proc/$PPID/stat"
  kill -9 "$ptxbench"
  exit 0
fi
printf 'No code in this repair: %s turn %s.\n' "$PTXBENCH_TRAJECTORY_ID" "$PTXBENCH_TURN"
